"""
Callback receiver under load: 10,000 callbacks POSTed concurrently over loopback to ``messaging-platform-callbacks
serve`` (its own process, SQLite file store with ``synchronous=FULL``), of which 10% are resends of another
callback in the run (same TransactionId, sent concurrently with the original) and 5% carry a wrong token.

Checks afterwards, from the store itself: every valid unique callback stored exactly once, no duplicate stored,
every wrong token refused with 401 and nothing of it stored, nothing lost. Prints the figures; exits 1 if a check
fails. The client is a minimal keep-alive HTTP/1.1 client on asyncio streams (one request in flight per
connection), so the two cores are spent on the receiver rather than on the client.

    .venv/bin/python bench/callbacks.py [--posts 10000] [--concurrency 64]
    .venv/bin/python bench/callbacks.py --database-url postgresql+psycopg2://... --receivers 2

With ``--receivers N`` (``--database-url`` shared by all), N receiver processes serve one store: each post goes to
one of them in turn, and each resend to another receiver than its original's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from messaging_platform_emulator.process import stop as stop_process

TOKEN = str(uuid.uuid4())
TYPES = {
    1: {"ChannelId": 22, "ContactId": 6001, "Keyword": "JOIN", "KeywordId": 8001, "PhoneNumber": "+15550100000"},
    3: {"Answer": "Yes", "QuestionText": "Coming?", "ChannelId": 22, "ContactId": 6002, "PhoneNumber": "+15550100001"},
    6: {"ChannelId": 22, "ContactId": 6003, "PhoneNumber": "+15550100002", "SubscriptionId": 1},
    11: {"Message": "hello", "ChannelId": 22, "ContactId": 6004, "PhoneNumber": "+15550100003"},
}


def body(n: int, token: str) -> dict[str, object]:
    callback_type = list(TYPES)[n % len(TYPES)]
    return {
        "AccountId": 1001,
        "CallbackTimestamp": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S"),
        "CallbackToken": token,
        "CallbackType": callback_type,
        "CallbackURL": "http://127.0.0.1/callbacks",
        "TransactionId": str(uuid.uuid4()),
        **TYPES[callback_type],
    }


def plan(posts: int, seed: int) -> tuple[list[tuple[str, bytes]], set[str], set[str]]:
    """(kind, encoded body) in sending order; the valid unique TransactionIds; the bad-token ones."""
    rng = random.Random(seed)
    resends = posts // 10
    bad = posts // 20
    unique = posts - resends - bad
    valid = [body(n, TOKEN) for n in range(unique)]
    wrong = [body(n, str(uuid.uuid4())) for n in range(bad)]
    sends = [("valid", v) for v in valid] + [("bad", w) for w in wrong]
    sends += [("resend", v) for v in rng.sample(valid, resends)]
    rng.shuffle(sends)  # a resend may even arrive before its original
    encoded = [(kind, json.dumps(b).encode()) for kind, b in sends]
    return encoded, {str(v["TransactionId"]) for v in valid}, {str(w["TransactionId"]) for w in wrong}


def targets(sends: list[tuple[str, bytes]], receivers: int) -> list[int]:
    """Which receiver each post goes to: originals in turn, each resend to the receiver after its original's."""
    ids = [json.loads(data)["TransactionId"] for _, data in sends]
    original = {ids[i]: i % receivers for i, (kind, _) in enumerate(sends) if kind != "resend"}
    return [
        (original[ids[i]] + 1) % receivers if kind == "resend" else i % receivers for i, (kind, _) in enumerate(sends)
    ]


class Connection:
    def __init__(self, host: str, port: int, path: str) -> None:
        self.host, self.port, self.path = host, port, path
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, data: bytes) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = (
            f"POST {self.path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        self.writer.write(head + data)
        status_line = await self.reader.readline()
        length, close = 0, False
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.lower() == "content-length":
                length = int(value)
            elif name.lower() == "connection" and value.strip().lower() == "close":
                close = True
        payload = await self.reader.readexactly(length)
        if close:
            await self.close()
        return int(status_line.split()[1]), payload

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None


async def load(
    urls: list[str], sends: list[tuple[str, bytes]], to: list[int], concurrency: int, deadline: float
) -> list[tuple]:
    queue: asyncio.Queue[tuple[int, str, bytes]] = asyncio.Queue()
    for index, (kind, data) in enumerate(sends):
        queue.put_nowait((index, kind, data))
    results: list[tuple] = []

    async def worker() -> None:
        conns = []
        for url in urls:
            parts = urlsplit(url)
            conns.append(Connection(parts.hostname or "127.0.0.1", parts.port or 80, parts.path))
        while not queue.empty() and time.monotonic() < deadline:
            index, kind, data = queue.get_nowait()
            conn = conns[to[index]]
            start = time.perf_counter()
            try:
                status, answer = await asyncio.wait_for(conn.post(data), 30)
                outcome = json.loads(answer).get("status") if status == 200 else None
            except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
                status, outcome = 0, type(exc).__name__
                await conn.close()
            results.append((index, kind, status, outcome, time.perf_counter() - start))
        for conn in conns:
            await conn.close()

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return results


def start_receiver(folder: Path, database_url: str) -> tuple[subprocess.Popen[str], str, str]:
    env = {**os.environ, "MESSAGING_PLATFORM_CALLBACK_TOKENS": f"1001:{TOKEN}", "AIRFLOW_HOME": str(folder)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "messaging_platform_provider.callbacks.cli", "serve", "--port", "0"]
        + ["--database-url", database_url],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:  # a receiver that does not start (or an interrupt meanwhile) is stopped before the error is raised
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Receiving callbacks at "):
                return proc, line.split(" at ", 1)[1].strip(), database_url
        raise SystemExit("the receiver did not start")
    except BaseException:
        stop_process(proc)
        raise


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--database-url", default=None, help="the store (default: a new SQLite file)")
    parser.add_argument("--receivers", type=int, default=1, help="receiver processes sharing the store")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-callbacks-") as folder:  # the store and the receivers' home
        return run(args, Path(folder))


def run(args: argparse.Namespace, folder: Path) -> int:
    database_url = args.database_url or f"sqlite:///{folder / 'callbacks.db'}"
    sends, valid_ids, bad_ids = plan(args.posts, args.seed)
    to = targets(sends, args.receivers)

    from messaging_platform_provider.callbacks.store import CallbackStore

    store = CallbackStore(database_url)
    before = set(store.transaction_ids())  # a shared database may hold earlier runs
    receivers: list[subprocess.Popen[str]] = []
    try:
        urls = []
        for _ in range(args.receivers):
            receiver, url, _ = start_receiver(folder, database_url)
            receivers.append(receiver)
            urls.append(url)
        started = time.perf_counter()
        results = asyncio.run(load(urls, sends, to, args.concurrency, time.monotonic() + args.max_seconds))
        wall = time.perf_counter() - started
    finally:
        for receiver in receivers:
            receiver.terminate()
        for receiver in receivers:
            stop_process(receiver)

    stored_ids = [t for t in store.transaction_ids() if t not in before]
    stored = Counter(stored_ids)
    per_receiver = Counter(to)
    by_kind = Counter((kind, status, outcome) for _, kind, status, outcome, _ in results)
    latencies = [r[4] * 1000 for r in results]
    acknowledged = {json.loads(sends[i][1])["TransactionId"] for i, kind, status, _, _ in results if status == 200}
    lost = sorted(valid_ids - set(stored))
    lost_after_ack = sorted(acknowledged - set(stored))
    duplicates_stored = sum(n - 1 for n in stored.values() if n > 1)
    extra_stored = sorted(set(stored) - valid_ids)
    bad_refused = sum(n for (kind, status, _), n in by_kind.items() if kind == "bad" and status == 401)
    resends = sum(1 for s in sends if s[0] == "resend")
    checks = {
        "every valid unique callback stored exactly once": not lost and duplicates_stored == 0,
        "every bad token refused (401) and none stored": bad_refused == len(bad_ids) and not (set(stored) & bad_ids),
        "nothing lost (also none acknowledged and then missing)": not lost and not lost_after_ack,
        "nothing else stored": not extra_stored,
        "every request answered": len(results) == len(sends),
    }
    print(f"posts sent                 {len(results):>8,} of {len(sends):,} (concurrency {args.concurrency})")
    print(f"receivers                  {args.receivers:>8} ({dict(sorted(per_receiver.items()))} posts each)")
    ids = [json.loads(data)["TransactionId"] for _, data in sends]
    original_at = {ids[i]: to[i] for i, (kind, _) in enumerate(sends) if kind == "valid"}
    resent_elsewhere = sum(1 for i, (kind, _) in enumerate(sends) if kind == "resend" and to[i] != original_at[ids[i]])
    if args.receivers > 1:
        print(f"  resends to another receiver than their original: {resent_elsewhere:,}")
    print(f"  valid unique             {len(valid_ids):>8,}")
    print(f"  resends (same id)        {resends:>8,}")
    print(f"  wrong token              {len(bad_ids):>8,}")
    print(f"answers                    {dict(sorted(Counter((s, o) for _, _, s, o, _ in results).items()))}")
    print(f"events stored              {len(stored_ids):>8,}")
    print(f"events lost                {len(lost):>8,}")
    print(f"duplicates stored          {duplicates_stored:>8,}")
    print(f"bad tokens refused (401)   {bad_refused:>8,}")
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
