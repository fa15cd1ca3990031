"""``messaging-platform-emulator`` / ``python -m messaging_platform_emulator``: serve until SIGINT/SIGTERM."""

from __future__ import annotations

import argparse
import os
import signal
import threading
from collections.abc import Sequence
from types import FrameType

from pydantic import ValidationError

from .conditions import Conditions
from .server import EmulatorServer


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="messaging-platform-emulator",
        description="Local stand-in of the messaging platform API v2.1 (control endpoints under /_emulator).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface to bind (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to bind (default 0: a free port)")
    parser.add_argument("--api-key", help="API key of the seeded account (default: random)")
    parser.add_argument(
        "--api-secret",
        default=os.environ.get("MESSAGING_PLATFORM_EMULATOR_API_SECRET"),
        help="secret of the seeded API key (default: $MESSAGING_PLATFORM_EMULATOR_API_SECRET, else random)",
    )
    parser.add_argument(
        "--latency",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait this long before answering each platform request, as across the internet (default 0)",
    )
    parser.add_argument(
        "--rate-limit",
        type=float,
        metavar="PER_SECOND",
        help="requests a second each account may make; beyond it the answer is 429 with Retry-After (default: none)",
    )
    parser.add_argument(
        "--burst", type=int, metavar="N", help="requests an account may make at once (default: one second's worth)"
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse every departure from the API reference (a property name in another case, a date-time with an "
        "offset, an unknown property ...) with 400, instead of taking it as the platform does and recording it "
        "under /_emulator/violations",
    )
    parser.add_argument(
        "--conn-file",
        metavar="PATH",
        help="write the Airflow connection URI, secret included, to PATH (mode 0600); "
        "the printed URI then hides the secret",
    )
    return parser


def write_private(path: str, text: str) -> None:
    """Write ``text`` to ``path`` readable by the owner only."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, text.encode("utf-8"))
    finally:
        os.close(fd)


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)

    try:
        conditions = Conditions(latency=args.latency, rate_limit=args.rate_limit, burst=args.burst)
    except ValidationError as exc:
        [first, *_] = exc.errors()
        parser.error(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}")
    server = EmulatorServer(
        args.host,
        args.port,
        api_key=args.api_key,
        api_secret=args.api_secret,
        conditions=conditions,
        strict=args.strict,
    )
    server.start()
    try:
        if args.conn_file:
            write_private(args.conn_file, server.connection_uri())
        shown = server.connection_uri(hide_secret=bool(args.conn_file))
        print(f"Emulator base URL: {server.base_url}", flush=True)
        if args.strict:
            print("Strict: every departure from the API reference is refused with 400.", flush=True)
        print(f"Airflow connection URI: {shown}", flush=True)
        while not stop.wait(1.0):
            pass
    finally:
        server.stop()
    return 0
