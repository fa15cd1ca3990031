"""
Slow clients against the standalone receiver: ``messaging-platform-callbacks serve`` (its own process, SQLite
store; ``--fd-limit 256`` as a small container might have) while 500 connections trickle their request
heads (one header line a second, reconnecting a second after the server closes them), and legitimate callbacks are
posted meanwhile, each on a new connection as the platform does.

Checks afterwards, from the store itself: every legitimate callback answered 200 and stored. Prints the latency of
the legitimate callbacks, a retry included (a connection closed before its answer is posted again at once, as the
platform redelivers; target: p99 under 100 ms) and how often the slow connections were closed; exits 1 if a
check fails.

    .venv/bin/python bench/slow_clients.py [--slow 500] [--posts 1000] [--fd-limit 256] [--reconnect-delay 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callbacks import TOKEN, Connection, body, percentile  # noqa: E402  (bench/callbacks.py)


def start_receiver(folder: Path, fd_limit: int | None, extra: list[str]) -> tuple[subprocess.Popen[str], str, str]:
    database_url = f"sqlite:///{folder / 'callbacks.db'}"
    env = {**os.environ, "MESSAGING_PLATFORM_CALLBACK_TOKENS": f"1001:{TOKEN}", "AIRFLOW_HOME": str(folder)}

    def limit() -> None:
        if fd_limit:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fd_limit, fd_limit))

    proc = subprocess.Popen(
        [sys.executable, "-m", "messaging_platform_provider.callbacks.cli", "serve", "--port", "0"]
        + ["--database-url", database_url, *extra],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=limit,
    )
    assert proc.stdout is not None
    url = ""
    for line in proc.stdout:
        print("receiver:", line.strip())
        if line.startswith("Receiving callbacks at "):
            url = line.split(" at ", 1)[1].strip()
        if line.startswith("Limits: ") and url:
            return proc, url, database_url
    raise SystemExit("the receiver did not start")


class SlowClients:
    def __init__(self, host: str, port: int, path: str, count: int, reconnect_delay: float) -> None:
        self.host, self.port, self.path, self.count = host, port, path, count
        self.reconnect_delay = reconnect_delay
        self.open = 0
        self.closed_by_server = 0
        self.stop = asyncio.Event()

    async def one(self) -> None:
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            self.open += 1
            try:
                writer.write(f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\n".encode())
                n = 0
                while not self.stop.is_set():
                    try:
                        data = await asyncio.wait_for(reader.read(1), 1.0)
                        if data == b"":
                            self.closed_by_server += 1
                            break
                    except asyncio.TimeoutError:
                        n += 1
                        writer.write(f"X-Slow-{n}: {'a' * 8}\r\n".encode())  # one header line a second
                        await writer.drain()
            except OSError:
                self.closed_by_server += 1
            finally:
                self.open -= 1
                writer.close()
            await asyncio.sleep(self.reconnect_delay)  # then open another slow connection

    async def run(self) -> None:
        await asyncio.gather(*(self.one() for _ in range(self.count)))


async def scenario(
    url: str, slow: int, posts: int, concurrency: int, reconnect_delay: float
) -> tuple[list[tuple], SlowClients, float]:
    parts = urlsplit(url)
    host, port, path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
    attackers = SlowClients(host, port, path, slow, reconnect_delay)
    attack = asyncio.create_task(attackers.run())
    deadline = time.monotonic() + 60
    while attackers.open + attackers.closed_by_server < slow and time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # wait until every slow connection has been opened at least once
    bodies = [json.dumps(body(n, TOKEN)).encode() for n in range(posts)]
    queue: asyncio.Queue[bytes] = asyncio.Queue()
    for data in bodies:
        queue.put_nowait(data)
    results: list[tuple] = []
    retried = [0]

    async def worker() -> None:
        while not queue.empty():
            data = queue.get_nowait()
            start = time.perf_counter()
            status = 0
            for attempt in range(5):  # closed before an answer: posted again at once, as the platform redelivers
                conn = Connection(host, port, path)  # a new connection per callback, as the platform posts
                try:
                    status, _ = await asyncio.wait_for(conn.post(data), 30)
                    break
                except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, IndexError, ValueError):
                    status = 0
                    retried[0] += 1 if attempt < 4 else 0
                finally:
                    await conn.close()
            results.append((json.loads(data)["TransactionId"], status, time.perf_counter() - start))

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    wall = time.perf_counter() - started
    print(f"legitimate callbacks done; slow connections open {attackers.open}; {retried[0]} posts retried", flush=True)
    attackers.stop.set()
    await attack
    return results, attackers, wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=int, default=500, help="slow connections kept open")
    parser.add_argument("--posts", type=int, default=1000, help="legitimate callbacks")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument(
        "--fd-limit", type=int, default=None, help="the receiver's RLIMIT_NOFILE (default: inherited; e.g. 256)"
    )
    parser.add_argument("--reconnect-delay", type=float, default=1.0, help="a closed slow client reconnects after")
    parser.add_argument("receiver_args", nargs="*", help="extra `serve` options, after --")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this process holds the slow connections
    with tempfile.TemporaryDirectory(prefix="bench-slow-clients-") as folder:  # the store and the receiver's log
        return run(args, Path(folder))


def run(args: argparse.Namespace, folder: Path) -> int:
    receiver, url, database_url = start_receiver(folder, args.fd_limit, args.receiver_args)
    try:
        results, attackers, wall = asyncio.run(
            scenario(url, args.slow, args.posts, args.concurrency, args.reconnect_delay)
        )
    finally:
        receiver.terminate()
        receiver.wait(30)

    from messaging_platform_provider.callbacks.store import CallbackStore

    stored = set(CallbackStore(database_url).transaction_ids())
    latencies = [r[2] * 1000 for r in results]
    statuses: dict[int, int] = {}
    for _, status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    checks = {
        "every legitimate callback answered 200": statuses == {200: len(results)} and len(results) == args.posts,
        "every legitimate callback stored": {r[0] for r in results} <= stored,
        "p99 under 100 ms": percentile(latencies, 0.99) < 100,
    }
    print(f"slow connections           {args.slow:>8,} (closed by the receiver {attackers.closed_by_server:,} times)")
    print(f"legitimate callbacks       {len(results):>8,} (concurrency {args.concurrency}), answers {statuses}")
    print(f"stored                     {len(stored):>8,}")
    print(
        f"latency p50 / p99 / max    {percentile(latencies, 0.5):.1f} / {percentile(latencies, 0.99):.1f} / "
        f"{max(latencies):.1f} ms"
    )
    print(f"throughput                 {len(results) / wall:>8,.0f} posts/s ({wall:.2f} s wall)")
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
