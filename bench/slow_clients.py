"""
Hostile clients against the standalone receiver: ``messaging-platform-callbacks serve`` (its own process, SQLite
store; ``--fd-limit 256`` as a small container might have) while legitimate callbacks are posted, each on a new
connection as the platform does. Three kinds of hostile connection, each reconnecting ``--reconnect-delay`` seconds
after the server closes it:

- ``--slow N`` trickle their request heads, one header line a second;
- ``--idle N`` open and send nothing (beyond the connection cap, the receiver closes the longest waiting);
- ``--streaming N`` stream one request head as fast as they can: a header value, or (every other one) a URL; they
  reconnect at once.

Checks afterwards, from the store itself: every legitimate callback answered 200 and stored. Prints the latency of
the legitimate callbacks, a retry included (a connection closed before its answer is posted again at once, as the
platform redelivers; target: p99 under 100 ms), how often the hostile connections were closed, and the receiver's
resident memory before and at its peak during the run (target: under 30 MB of growth); exits 1 if a check fails.

    .venv/bin/python bench/slow_clients.py [--slow 500] [--posts 1000] [--fd-limit 256] [--reconnect-delay 1]
    .venv/bin/python bench/slow_clients.py --slow 0 --idle 2000 --streaming 2    # the flood of docs/reliability.md
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from messaging_platform_emulator.process import stop as stop_process

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callbacks import TOKEN, Connection, body, percentile  # noqa: E402  (bench/callbacks.py)

WARM_UP = 50  # callbacks posted before the attack and before the memory baseline


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
    try:  # a receiver that does not start (or an interrupt meanwhile) is stopped before the error is raised
        assert proc.stdout is not None
        url = ""
        for line in proc.stdout:
            print("receiver:", line.strip())
            if line.startswith("Receiving callbacks at "):
                url = line.split(" at ", 1)[1].strip()
            if line.startswith("Limits: ") and url:
                return proc, url, database_url
        raise SystemExit("the receiver did not start")
    except BaseException:
        stop_process(proc)
        raise


class Attackers:
    """The hostile connections: each kind runs ``count`` connections, reconnecting after the server closes one."""

    def __init__(self, host: str, port: int, path: str, reconnect_delay: float) -> None:
        self.host, self.port, self.path = host, port, path
        self.reconnect_delay = reconnect_delay
        self.open = 0
        self.opened = 0
        self.closed_by_server = 0
        self.streamed = 0  # bytes of head sent by the streaming connections
        self.stop = asyncio.Event()

    async def _closed(self, reader: asyncio.StreamReader, timeout: float) -> bool:
        """Whether the server closed the connection (or answered and will), waiting at most ``timeout``."""
        try:
            data = await asyncio.wait_for(reader.read(65536), timeout)
        except asyncio.TimeoutError:
            return False
        return True if data == b"" or data.startswith(b"HTTP/") else False

    async def _run(self, talk: object, reconnect_delay: float | None = None) -> None:
        delay = self.reconnect_delay if reconnect_delay is None else reconnect_delay
        while not self.stop.is_set():
            try:
                reader, writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                await asyncio.sleep(0.05)
                continue
            self.open += 1
            self.opened += 1
            try:
                await talk(reader, writer)  # type: ignore[operator]
                self.closed_by_server += 0 if self.stop.is_set() else 1
            except OSError:
                self.closed_by_server += 1
            finally:
                self.open -= 1
                writer.close()
            await asyncio.sleep(delay)

    async def slow(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\n".encode())
        n = 0
        while not self.stop.is_set() and not await self._closed(reader, 1.0):
            n += 1
            writer.write(f"X-Slow-{n}: {'a' * 8}\r\n".encode())  # one header line a second
            await writer.drain()

    async def idle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while not self.stop.is_set() and not await self._closed(reader, 1.0):
            pass

    async def streaming(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, url: bool) -> None:
        start = f"POST {self.path}?q=" if url else f"POST {self.path} HTTP/1.1\r\nHost: {self.host}\r\nX-Stream: "
        writer.write(start.encode())
        chunk = b"a" * 16384
        while not self.stop.is_set() and not await self._closed(reader, 0.001):
            writer.write(chunk)
            self.streamed += len(chunk)
            await writer.drain()

    async def run(self, slow: int, idle: int, streaming: int) -> None:
        runs = [self._run(self.slow) for _ in range(slow)] + [self._run(self.idle) for _ in range(idle)]
        for n in range(streaming):
            # an attacker streaming heads reconnects at once: each connection is cut off after the head bound
            runs.append(self._run(lambda r, w, url=bool(n % 2): self.streaming(r, w, url), reconnect_delay=0))
        await asyncio.gather(*runs)


def rss_mib(pid: int) -> float:
    """The process's resident memory (VmRSS), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def attack(host: str, port: int, path: str, args: argparse.Namespace, ready: Any, stop: Any, report: Any) -> None:
    """The hostile connections, in a process of their own (they come from other machines, not the platform's)."""

    async def run() -> None:
        attackers = Attackers(host, port, path, args.reconnect_delay)
        task = asyncio.create_task(attackers.run(args.slow, args.idle, args.streaming))
        deadline = time.monotonic() + 60
        while attackers.opened < args.slow + args.idle + args.streaming and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # every hostile connection opened at least once
        ready.set()
        while not stop.is_set():
            await asyncio.sleep(0.05)
        still_open = attackers.open
        attackers.stop.set()
        await task
        report.put({"closed": attackers.closed_by_server, "streamed": attackers.streamed, "open": still_open})

    asyncio.run(run())


async def scenario(
    url: str, args: argparse.Namespace, receiver_pid: int
) -> tuple[list[tuple], dict[str, int], float, tuple[float, float]]:
    parts = urlsplit(url)
    host, port, path = parts.hostname or "127.0.0.1", parts.port or 80, parts.path
    bodies = [json.dumps(body(n, TOKEN)).encode() for n in range(args.posts + WARM_UP)]

    async def post_one(data: bytes) -> tuple[int, float, int]:
        start = time.perf_counter()
        status, retries = 0, 0
        for attempt in range(5):  # closed before an answer: posted again at once, as the platform redelivers
            conn = Connection(host, port, path)  # a new connection per callback, as the platform posts
            try:
                status, _ = await asyncio.wait_for(conn.post(data), 30)
                break
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, IndexError, ValueError):
                status = 0
                retries += 1 if attempt < 4 else 0
            finally:
                await conn.close()
        return status, time.perf_counter() - start, retries

    for data in bodies[:WARM_UP]:  # the receiver's first requests import and build what later ones reuse
        await post_one(data)
    before = rss_mib(receiver_pid)
    peak = [before]
    context = multiprocessing.get_context("fork")
    ready, stop, report = context.Event(), context.Event(), context.Queue()
    attacker = context.Process(target=attack, args=(host, port, path, args, ready, stop, report), daemon=True)
    attacker.start()
    try:
        if not await asyncio.to_thread(ready.wait, 90):
            raise SystemExit("the hostile connections did not all open")
        await asyncio.sleep(args.settle)  # the streaming ones under way, the idle ones churning through the cap

        async def sample() -> None:
            while True:
                peak[0] = max(peak[0], rss_mib(receiver_pid))
                await asyncio.sleep(0.1)

        sampler = asyncio.create_task(sample())
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        for data in bodies[WARM_UP:]:
            queue.put_nowait(data)
        results: list[tuple] = []

        async def worker() -> None:
            while not queue.empty():
                data = queue.get_nowait()
                status, took, retries = await post_one(data)
                results.append((json.loads(data)["TransactionId"], status, took, retries))

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        wall = time.perf_counter() - started
        sampler.cancel()
        stop.set()
        stats = await asyncio.to_thread(report.get, True, 60)
    finally:
        stop.set()
        attacker.join(30)
        if attacker.is_alive():
            attacker.kill()
    retried = sum(r[3] for r in results)
    print(f"legitimate callbacks done; hostile connections open {stats['open']}; {retried} posts retried", flush=True)
    return results, stats, wall, (before, peak[0])


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--slow", type=int, default=500, help="connections trickling their heads")
    parser.add_argument("--idle", type=int, default=0, help="connections that send nothing")
    parser.add_argument("--streaming", type=int, default=0, help="connections streaming one endless head")
    parser.add_argument("--settle", type=float, default=2.0, help="seconds of attack before the callbacks start")
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
        results, attackers, wall, (before, peak) = asyncio.run(scenario(url, args, receiver.pid))
    finally:
        stop_process(receiver)

    from messaging_platform_provider.callbacks.store import CallbackStore

    stored = set(CallbackStore(database_url).transaction_ids())
    latencies = [r[2] * 1000 for r in results]
    statuses: dict[int, int] = {}
    for _, status, _, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    checks = {
        "every legitimate callback answered 200": statuses == {200: len(results)} and len(results) == args.posts,
        "every legitimate callback stored": {r[0] for r in results} <= stored,
        "p99 under 100 ms": percentile(latencies, 0.99) < 100,
        "receiver memory growth under 30 MB": (peak - before) * 1.048576 < 30,
    }
    hostile = f"{args.slow} slow, {args.idle} idle, {args.streaming} streaming"
    print(f"hostile connections        {hostile} (closed by the receiver {attackers['closed']:,} times)")
    print(f"head bytes streamed        {attackers['streamed'] / 2**20:>8,.1f} MiB")
    print(f"legitimate callbacks       {len(results):>8,} (concurrency {args.concurrency}), answers {statuses}")
    print(f"stored                     {len(stored) - WARM_UP:>8,} (and {WARM_UP} before the attack)")
    print(
        f"latency p50 / p99 / max    {percentile(latencies, 0.5):.1f} / {percentile(latencies, 0.99):.1f} / "
        f"{max(latencies):.1f} ms"
    )
    print(f"throughput                 {len(results) / wall:>8,.0f} posts/s ({wall:.2f} s wall)")
    print(f"receiver RSS               {before:.1f} MiB before, {peak:.1f} MiB at peak (+{peak - before:.1f} MiB)")
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'FAIL'}  {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
