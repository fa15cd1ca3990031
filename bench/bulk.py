"""
Bulk work at the platform's limit, against the emulator with internet-like conditions: every platform request waits
``--latency`` (default 50 ms) and each account may make ``--rate-limit`` requests a second (default 200; 429 with
``Retry-After`` beyond it).

Coupon-code deletes: an external coupon list of ``--deletes`` (default 10,000) codes plus a few hundred more is
made; ``--sequential`` (default 300) of them are deleted one call after another (``hook.delete_external_coupon_code``,
the baseline), then the 10,000 with ``hook.call_many`` (bounded in flight, paced by the 429s). From the emulator's
request record and the outcomes: calls a second as a share of the limit, 429 answers as a share of the calls, failed
items, codes deleted twice (a duplicate) or left on the list, and the ratio to the baseline's calls a second.

With ``--workers N``, only the deletes, by several workers of one account at once: N processes, each with its own
hook and ``call_many`` and an equal share of the ``--deletes`` codes (``bulk_workers.py``), as N Airflow workers
would run them. Per worker and in all: calls a second as a share of the limit, 429 share, failed items, duplicates,
codes left; and Jain's fairness index over the workers' calls a second.

The emulator runs in its own process (``python -m messaging_platform_emulator``); this process (or the N workers) is
the client. Exit status 1 when a target is missed: >= 90 % of the limit, < 5 % answered 429, no failed item, no
duplicate (with ``--workers``: in all, and Jain's index >= 0.9).

    .venv/bin/python bench/bulk.py [--deletes 10000] [--sequential 300] [--latency 0.05] [--rate-limit 200]
    .venv/bin/python bench/bulk.py --workers 4 [--deletes 10000]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
from bulk_workers import WorkerRun, calls_by_worker, jain_index, run_workers
from request_record import Record

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator
from messaging_platform_provider.client.operations import Operations

CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"


class PeakRss:
    """The highest RSS of this process while the block runs, sampled every 20 ms."""

    def __init__(self) -> None:
        self.process = psutil.Process()
        self.start = self.peak = self.process.memory_info().rss
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, self.process.memory_info().rss)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.process.memory_info().rss)

    @property
    def growth_mb(self) -> float:
        return float(self.peak - self.start) / 2**20


def print_table(rows: Sequence[tuple[str, ...]]) -> None:
    """The first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  " + "  ".join(cell.rjust(widths[i]) if i else cell.ljust(widths[i]) for i, cell in enumerate(row)))


def report(checks: dict[str, bool]) -> bool:
    for name, ok in checks.items():
        print(f"  {'ok  ' if ok else 'MISS'} {name}")
    return all(checks.values())


def deletes(control: EmulatorControl, args: argparse.Namespace) -> bool:
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

    hook = MessagingPlatformHook()
    codes = [f"BULK{i:06d}" for i in range(args.deletes + args.sequential)]
    created = hook.create_external_coupon_list("Bulk bench", coupon_codes=codes)
    list_id = created["Id"]
    baseline, bulk_codes = codes[: args.sequential], codes[args.sequential :]

    with Record(control, "/code/") as sequential:
        started = time.monotonic()
        for code in baseline:
            hook.delete_external_coupon_code(list_id, code)
        sequential_s = time.monotonic() - started

    calls = [{"coupon_list_id": list_id, "coupon_code": code} for code in bulk_codes]
    with Record(control, "/code/") as bulk, PeakRss() as rss:
        started = time.monotonic()
        outcomes = hook.call_many(
            Operations.delete_external_coupon_code, calls, max_in_flight=args.in_flight, start_rate=args.start_rate
        )
        bulk_s = time.monotonic() - started
    left = hook.list_external_coupon_codes(list_id)
    hook.delete_external_coupon_list(list_id)

    failed = sum(not o.ok for o in outcomes)
    sequential_rate = len(baseline) / sequential_s
    bulk_rate = (len(bulk_codes) - failed) / bulk_s
    limited = bulk.statuses.get(429, 0)
    share_of_limit = bulk_rate / args.rate_limit
    limited_share = limited / max(1, len(bulk.rows))
    duplicates = bulk.duplicates + sequential.duplicates
    print(f"Coupon-code deletes at {args.latency * 1000:.0f} ms latency and a limit of {args.rate_limit:.0f}/s:")
    rows = [
        ("", "items", "seconds", "calls", "calls/s", "of limit", "429s", "429 share", "failed", "dup", "RSS +MB"),
        (
            "sequential",
            str(len(baseline)),
            f"{sequential_s:.1f}",
            str(len(sequential.rows)),
            f"{sequential_rate:.1f}",
            f"{sequential_rate / args.rate_limit:.1%}",
            str(sequential.statuses.get(429, 0)),
            "-",
            "0",
            str(sequential.duplicates),
            "-",
        ),
        (
            f"call_many ({args.in_flight} in flight)",
            str(len(bulk_codes)),
            f"{bulk_s:.1f}",
            str(len(bulk.rows)),
            f"{bulk_rate:.1f}",
            f"{share_of_limit:.1%}",
            str(limited),
            f"{limited_share:.2%}",
            str(failed),
            str(bulk.duplicates),
            f"{rss.growth_mb:.1f}",
        ),
    ]
    print_table(rows)
    print(f"  ratio to sequential: {bulk_rate / sequential_rate:.1f}x; codes left on the list: {len(left)}")
    checks = {
        ">= 90 % of the limit": share_of_limit >= 0.9,
        "< 5 % answered 429": limited_share < 0.05,
        "no failed item": failed == 0,
        "no duplicate": duplicates == 0,
        "every code deleted": not left,
    }
    return report(checks)


def several_workers(control: EmulatorControl, args: argparse.Namespace) -> bool:
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

    hook = MessagingPlatformHook()
    codes = [f"BULK{i:06d}" for i in range(args.deletes)]
    list_id = hook.create_external_coupon_list("Bulk bench, several workers", coupon_codes=codes)["Id"]
    shares = [codes[w :: args.workers] for w in range(args.workers)]
    with Record(control, "/code/") as record:
        runs = run_workers(list_id, shares, args.in_flight, args.start_rate)
    left = {code["CouponCode"] for code in hook.list_external_coupon_codes(list_id)}
    hook.delete_external_coupon_list(list_id)
    owner = {code: w for w, share in enumerate(shares) for code in share}
    calls = calls_by_worker(record.rows, owner, left, args.workers)

    def row(name: str, runs: list[WorkerRun], seconds: float) -> tuple[str, ...]:
        done = sum(run.items - run.failed for run in runs)
        mine = [calls[run.index] for run in runs]
        made, limited = sum(c.calls for c in mine), sum(c.limited for c in mine)
        return (
            name,
            str(sum(run.items for run in runs)),
            f"{seconds:.1f}",
            str(made),
            f"{done / seconds:.1f}",
            f"{done / seconds / args.rate_limit:.1%}",
            str(limited),
            f"{limited / max(1, made):.2%}",
            str(sum(run.failed for run in runs)),
            str(sum(c.duplicates for c in mine)),
            str(sum(c.left for c in mine)),
        )

    wall = max(run.ended for run in runs) - min(run.started for run in runs)
    print(
        f"Coupon-code deletes by {args.workers} worker processes at once, one account, {args.in_flight} in flight and "
        f"start_rate {args.start_rate:g} each, {args.latency * 1000:.0f} ms latency, limit {args.rate_limit:.0f}/s:"
    )
    header = ("", "items", "seconds", "calls", "calls/s", "of limit", "429s", "429 share", "failed", "dup", "left")
    rows = [header, *(row(f"worker {run.index + 1}", [run], run.seconds) for run in runs), row("all", runs, wall)]
    print_table(rows)
    fairness = jain_index([run.done_per_second for run in runs])
    starts = max(run.started for run in runs) - min(run.started for run in runs)
    print(f"  Jain's index over the workers' calls a second: {fairness:.3f}; starts within {starts * 1000:.0f} ms")
    done = sum(run.items - run.failed for run in runs)
    made, limited = sum(c.calls for c in calls), sum(c.limited for c in calls)
    checks = {
        ">= 90 % of the limit in all": done / wall / args.rate_limit >= 0.9,
        "< 5 % answered 429": limited / max(1, made) < 0.05,
        "no failed item": sum(run.failed for run in runs) == 0,
        "no duplicate": sum(c.duplicates for c in calls) == 0 and record.duplicates == 0,
        "every code deleted": not left,
        "Jain's index >= 0.9": fairness >= 0.9,
    }
    return report(checks)


def export(control: EmulatorControl, args: argparse.Namespace) -> bool:
    import json

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

    hook = MessagingPlatformHook()
    total = control.add_contacts(args.contacts)["total"]  # with those the emulator seeded

    def write(contacts: Any, target: Path) -> tuple[int, float]:
        started, rows = time.monotonic(), 0
        with target.open("w") as out:
            for contact in contacts:
                out.write(json.dumps(contact, separators=(",", ":")) + "\n")
                rows += 1
        return rows, time.monotonic() - started

    folder = Path(tempfile.mkdtemp(prefix="bulk-export-"))
    with PeakRss() as sequential_rss:
        sequential_rows, sequential_s = write(hook.iter_contacts(page_size=args.page_size), folder / "a.jsonl")
    with PeakRss() as stream_rss:
        contacts = hook.stream_contacts(page_size=args.page_size, lookahead=args.lookahead)
        stream_rows, stream_s = write(contacts, folder / "b.jsonl")
    same = (folder / "a.jsonl").read_bytes() == (folder / "b.jsonl").read_bytes()
    size_mb = (folder / "b.jsonl").stat().st_size / 2**20
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()
    print(f"\nContacts export of {total:,} contacts in pages of {args.page_size} ({size_mb:.0f} MB of JSON Lines):")
    rows = [
        ("", "rows", "seconds", "rows/s", "peak RSS +MB"),
        (
            "page by page (iter_contacts)",
            str(sequential_rows),
            f"{sequential_s:.1f}",
            f"{sequential_rows / sequential_s:,.0f}",
            f"{sequential_rss.growth_mb:.1f}",
        ),
        (
            f"{args.lookahead} pages ahead (stream_contacts)",
            str(stream_rows),
            f"{stream_s:.1f}",
            f"{stream_rows / stream_s:,.0f}",
            f"{stream_rss.growth_mb:.1f}",
        ),
    ]
    print_table(rows)
    print(f"  ratio to page by page: {sequential_s / stream_s:.1f}x; the same file both ways: {same}")
    checks = {
        "every contact exported": stream_rows == sequential_rows == total,
        "the same rows in the same order": same,
        "peak RSS growth under 100 MB": stream_rss.growth_mb < 100,
    }
    return report(checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deletes", type=int, default=10_000)
    parser.add_argument("--sequential", type=int, default=300)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--rate-limit", type=float, default=200.0)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--start-rate", type=float, default=50.0, help="call_many's start_rate (in each worker)")
    parser.add_argument("--contacts", type=int, default=200_000, help="contacts added to the seeded account")
    parser.add_argument("--page-size", type=int, default=500)
    parser.add_argument("--lookahead", type=int, default=4)
    parser.add_argument("--workers", type=int, help="only the deletes, by this many processes at once")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bulk-bench-"))
    proc, uri = spawn_emulator(folder)  # a failed start stops the emulator itself
    try:
        os.environ[CONN_ENV] = uri
        root = uri_extras(uri)["base_url"].removesuffix("/api/v2.1")
        with EmulatorControl(root) as control:
            control.set_conditions(latency=args.latency, rate_limit=args.rate_limit)
            if args.workers:
                ok = several_workers(control, args)
            else:
                ok = deletes(control, args)
                ok = export(control, args) and ok
    finally:
        stop_emulator(proc)
        shutil.rmtree(folder, ignore_errors=True)  # the emulator's log and its connection file (the secret)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
