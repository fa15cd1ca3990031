"""
``messaging-platform-callbacks``: run the callback receiver standalone, or look at what it stored.

    messaging-platform-callbacks serve --host 0.0.0.0 --port 8081 --database-url sqlite:////var/lib/mp/callbacks.db
    messaging-platform-callbacks list --after 0 --limit 20
    messaging-platform-callbacks prune --older-than-days 30

Tokens come from ``--token-file`` (one or more per line), ``--token`` (visible to other users in ``ps``: prefer the
others), or ``$MESSAGING_PLATFORM_CALLBACK_TOKENS``, each ``ACCOUNT_ID:TOKEN`` (``--no-bind-tokens`` accepts bare
tokens for any account). They are never printed or logged. The server closes connections that are slow to send a
request head or body, answers 431 to a request head beyond ``--max-head-bytes``, and caps open connections
(``callbacks.guard``).

``prune`` deletes callbacks received, and claims made, more than ``--older-than-days`` ago; never a callback young
enough that a copy of it could still pass the receiver's freshness window (so a replay is still recognised), and
never one that a watcher has not read yet unless ``--drop-unread`` is given.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import timedelta
from pathlib import Path

from messaging_platform_provider.callbacks.settings import (
    TOKENS_ENV,
    redact_url,
    resolve_database_url,
    resolve_freshness,
    split_tokens,
)


def _tokens(args: argparse.Namespace) -> list[str]:
    tokens = list(args.token or [])
    for file in args.token_file or []:
        tokens += split_tokens(Path(file).read_text())
    return tokens


def serve(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from messaging_platform_provider.callbacks.connection_cap import connection_limits
    from messaging_platform_provider.callbacks.guard import guarded_protocol
    from messaging_platform_provider.callbacks.receiver import Receiver, create_receiver_app
    from messaging_platform_provider.callbacks.store import CallbackStore

    database_url = resolve_database_url(args.database_url)
    store = CallbackStore(database_url, synchronous=args.sqlite_synchronous)
    receiver = Receiver(
        tokens=_tokens(args) or None,
        store=store,
        max_body_bytes=args.max_body_bytes,
        bind_tokens=False if args.no_bind_tokens else None,
        max_age_seconds=args.max_age_seconds,
        max_clock_skew_seconds=args.max_clock_skew_seconds,
    )
    if not receiver.tokens:
        print(
            f"No usable callback token: give --token-file, --token or ${TOKENS_ENV}, each ACCOUNT_ID:TOKEN "
            "(bare tokens need --no-bind-tokens).",
            file=sys.stderr,
        )
        return 2
    app = create_receiver_app(receiver, path=args.path)
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((args.host, args.port))  # port 0: a free port, printed below
    sock.listen(args.backlog)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Receiving callbacks at http://{host}:{sock.getsockname()[1]}/{args.path.strip('/')}", flush=True)
    print(f"Store: {redact_url(database_url)}; {len(receiver.tokens)} token(s) accepted", flush=True)
    protocol = guarded_protocol(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        max_connections=connection_limits(args.max_connections, args.backlog),
        max_head_bytes=args.max_head_bytes,
    )
    freshness = receiver.freshness
    print(
        f"Limits: request head within {args.header_timeout:g} s and {args.max_head_bytes} bytes, body within "
        f"{args.body_timeout:g} s, at most {protocol.max_connections} connections, backlog {args.backlog}; "
        f"CallbackTimestamp at most {freshness.max_age:g} s old and {freshness.max_skew:g} s ahead",
        flush=True,
    )
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        access_log=args.access_log,
        lifespan="off",
        http=protocol,
        backlog=args.backlog,  # uvicorn listens again on the socket with this backlog
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def list_callbacks(args: argparse.Namespace) -> int:
    from messaging_platform_provider.callbacks.filters import CallbackFilter
    from messaging_platform_provider.callbacks.store import CallbackStore

    store = CallbackStore(args.database_url)
    filt = CallbackFilter.build(callback_types=args.type, keywords=args.keyword, account_ids=args.account)
    for stored in store.read_after(args.after, filt, args.limit):
        print(json.dumps(stored.to_event(), sort_keys=True))
    return 0


def prune(args: argparse.Namespace) -> int:
    from messaging_platform_provider.callbacks.schema import utcnow
    from messaging_platform_provider.callbacks.store import CallbackStore

    horizon = resolve_freshness(args.max_age_seconds, args.max_clock_skew_seconds).replay_horizon
    older_than = args.older_than_days * 86400.0
    if older_than < horizon:
        print(
            f"--older-than-days {args.older_than_days:g} would delete callbacks a copy of which could still pass the "
            f"receiver's freshness window ({horizon:g} s: max age plus clock skew), so a replay would be stored "
            "again; give at least that",
            file=sys.stderr,
        )
        return 2
    store = CallbackStore(args.database_url)
    result = store.prune(utcnow() - timedelta(seconds=older_than), keep_unread=not args.drop_unread)
    print(
        f"Deleted {result.callbacks} callback(s) and {result.claims} claim(s) older than {args.older_than_days:g} days"
    )
    if result.held_back_by:
        print("Kept the callbacks not yet read by: " + ", ".join(result.held_back_by) + " (--drop-unread deletes them)")
    return 0


def _freshness_options(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--max-age-seconds",
        type=float,
        default=None,
        help="how old a CallbackTimestamp may be (default: $MESSAGING_PLATFORM_CALLBACK_MAX_AGE_SECONDS, else a day)",
    )
    command.add_argument(
        "--max-clock-skew-seconds",
        type=float,
        default=None,
        help="how far ahead of this clock a CallbackTimestamp may be (default: "
        "$MESSAGING_PLATFORM_CALLBACK_MAX_CLOCK_SKEW_SECONDS, else 300)",
    )


def build_parser() -> argparse.ArgumentParser:
    from messaging_platform_provider.callbacks.connection_cap import DEFAULT_BACKLOG
    from messaging_platform_provider.callbacks.guard import DEFAULT_MAX_HEAD_BYTES
    from messaging_platform_provider.callbacks.receiver import DEFAULT_MAX_BODY_BYTES, DEFAULT_PATH

    parser = argparse.ArgumentParser(prog="messaging-platform-callbacks", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("serve", help="run the receiver")
    run.add_argument("--host", default="127.0.0.1")
    run.add_argument("--port", type=int, default=8081)
    run.add_argument("--database-url", default=None, help="SQLAlchemy URL (default: a SQLite file in AIRFLOW_HOME)")
    run.add_argument("--token", action="append", help="accepted callback token (repeatable)")
    run.add_argument("--token-file", action="append", help="file of accepted callback tokens (repeatable)")
    run.add_argument(
        "--no-bind-tokens",
        action="store_true",
        help="accept any configured token for any AccountId (default: ACCOUNT_ID:TOKEN, its own account only)",
    )
    run.add_argument("--path", default=DEFAULT_PATH, help="URL path callbacks are POSTed to")
    run.add_argument("--max-body-bytes", type=int, default=DEFAULT_MAX_BODY_BYTES)
    run.add_argument(
        "--sqlite-synchronous",
        default="FULL",
        choices=["FULL", "NORMAL"],
        help="SQLite: FULL survives a power cut, NORMAL only a crash of the process",
    )
    run.add_argument(
        "--header-timeout", type=float, default=10.0, help="seconds a connection has to send a request head (10)"
    )
    run.add_argument("--body-timeout", type=float, default=30.0, help="seconds a request has to send its body (30)")
    run.add_argument(
        "--max-head-bytes",
        type=int,
        default=DEFAULT_MAX_HEAD_BYTES,
        help=f"longest request head (request line and headers) in bytes; 431 beyond ({DEFAULT_MAX_HEAD_BYTES})",
    )
    run.add_argument(
        "--backlog",
        type=int,
        default=DEFAULT_BACKLOG,
        help=f"connections the kernel queues until they are accepted ({DEFAULT_BACKLOG}; capped by somaxconn)",
    )
    run.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="open connections at most (1000, lowered to fit the file-descriptor limit); beyond it the one waiting "
        "longest for a request head is closed",
    )
    _freshness_options(run)
    run.add_argument("--log-level", default="warning")
    run.add_argument("--access-log", action="store_true")
    run.set_defaults(func=serve)
    show = commands.add_parser("list", help="print stored callbacks as JSON lines (no tokens: none are stored)")
    show.add_argument("--database-url", default=None)
    show.add_argument("--after", type=int, default=0, help="only callbacks with a larger seq")
    show.add_argument("--limit", type=int, default=100)
    show.add_argument("--type", action="append", help="callback type name or number (repeatable)")
    show.add_argument("--keyword", action="append")
    show.add_argument("--account", action="append", type=int)
    show.set_defaults(func=list_callbacks)
    clean = commands.add_parser("prune", help="delete old callbacks and claims (retention)")
    clean.add_argument("--database-url", default=None)
    clean.add_argument("--older-than-days", type=float, default=30.0, help="age of what is deleted (30)")
    clean.add_argument(
        "--drop-unread", action="store_true", help="also delete old callbacks that a watcher has not read yet"
    )
    _freshness_options(clean)
    clean.set_defaults(func=prune)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
