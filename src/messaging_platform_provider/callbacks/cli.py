"""
``messaging-platform-callbacks``: run the callback receiver standalone, or look at what it stored.

    messaging-platform-callbacks serve --host 0.0.0.0 --port 8081 --database-url sqlite:////var/lib/mp/callbacks.db
    messaging-platform-callbacks list --after 0 --limit 20

Tokens come from ``--token-file`` (one or more per line), ``--token`` (visible to other users in ``ps``: prefer the
others), or ``$MESSAGING_PLATFORM_CALLBACK_TOKENS``, each ``ACCOUNT_ID:TOKEN`` (``--no-bind-tokens`` accepts bare
tokens for any account). They are never printed or logged. The server closes connections that are slow to send a
request head or body and caps open connections (``callbacks.guard``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from messaging_platform_provider.callbacks.settings import TOKENS_ENV, redact_url, resolve_database_url, split_tokens


def _tokens(args: argparse.Namespace) -> list[str]:
    tokens = list(args.token or [])
    for file in args.token_file or []:
        tokens += split_tokens(Path(file).read_text())
    return tokens


def serve(args: argparse.Namespace) -> int:
    import socket

    import uvicorn

    from messaging_platform_provider.callbacks.guard import ACCEPT_BATCH, connection_limits, guarded_protocol
    from messaging_platform_provider.callbacks.receiver import Receiver, create_receiver_app
    from messaging_platform_provider.callbacks.store import CallbackStore

    database_url = resolve_database_url(args.database_url)
    store = CallbackStore(database_url, synchronous=args.sqlite_synchronous)
    receiver = Receiver(
        tokens=_tokens(args) or None,
        store=store,
        max_body_bytes=args.max_body_bytes,
        bind_tokens=False if args.no_bind_tokens else None,
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
    sock.listen(2048)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"Receiving callbacks at http://{host}:{sock.getsockname()[1]}/{args.path.strip('/')}", flush=True)
    print(f"Store: {redact_url(database_url)}; {len(receiver.tokens)} token(s) accepted", flush=True)
    protocol = guarded_protocol(
        header_timeout=args.header_timeout,
        body_timeout=args.body_timeout,
        max_connections=connection_limits(args.max_connections),
    )
    print(
        f"Limits: request head within {args.header_timeout:g} s, body within {args.body_timeout:g} s, "
        f"at most {protocol.max_connections} connections",
        flush=True,
    )
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        access_log=args.access_log,
        lifespan="off",
        http=protocol,
        backlog=ACCEPT_BATCH,
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


def build_parser() -> argparse.ArgumentParser:
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
        "--max-connections",
        type=int,
        default=None,
        help="open connections at most (1000, lowered to fit the file-descriptor limit); beyond it the one waiting "
        "longest for a request head is closed",
    )
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
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    raise SystemExit(main())
