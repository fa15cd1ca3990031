"""
Several worker processes deleting the codes of one account's list at once (``bulk.py --workers N``), as N Airflow
workers running bulk tasks for one account would: each a fresh interpreter (spawned, not forked) with its own hook,
its own share of the codes and its own ``call_many``, paced on its own 429s and knowing nothing of the others. They
start together (a barrier, once each has imported the hook), and each reports when it started and ended and how many
of its items failed. The figures per worker are counted from the emulator's request record by the codes each owns.
"""

from __future__ import annotations

import multiprocessing
import queue
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

#: seconds the workers may take to import the hook and reach the start (interpreters importing Airflow at once)
START_TIMEOUT = 300.0


@dataclass(frozen=True)
class WorkerRun:
    """What one worker process reports: its items, how many failed, and when its ``call_many`` started and ended."""

    index: int
    items: int
    failed: int
    started: float  # time.monotonic(): one clock for every process of the machine
    ended: float

    @property
    def seconds(self) -> float:
        return self.ended - self.started

    @property
    def done_per_second(self) -> float:
        return (self.items - self.failed) / self.seconds


@dataclass(frozen=True)
class WorkerCalls:
    """One worker's share of the emulator's request record, and its codes still on the list afterwards."""

    calls: int
    limited: int  # answered 429
    duplicates: int  # DELETEs answered 2xx beyond the first for the same code
    left: int


def delete_share(
    index: int,
    list_id: int,
    codes: list[str],
    pacing: tuple[int, float],
    start: Any,
    runs: multiprocessing.Queue[WorkerRun],
) -> None:
    """A worker process: builds its hook, waits for the others, then deletes its share of codes with ``call_many``."""
    from messaging_platform_provider.client.operations import Operations
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

    hook = MessagingPlatformHook()  # the connection from the environment the bench set before it spawned us
    calls = [{"coupon_list_id": list_id, "coupon_code": code} for code in codes]
    start.wait(START_TIMEOUT)
    started = time.monotonic()
    in_flight, start_rate = pacing
    outcomes = hook.call_many(
        Operations.delete_external_coupon_code, calls, max_in_flight=in_flight, start_rate=start_rate
    )
    ended = time.monotonic()
    runs.put(WorkerRun(index, len(codes), sum(not outcome.ok for outcome in outcomes), started, ended))


def run_workers(list_id: int, shares: list[list[str]], in_flight: int, start_rate: float) -> list[WorkerRun]:
    """One worker process per share of codes, all started at once; their runs in worker order. Every process this
    starts has ended when it returns or raises."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(len(shares) + 1)
    runs: multiprocessing.Queue[WorkerRun] = context.Queue()
    processes = [
        context.Process(target=delete_share, args=(index, list_id, codes, (in_flight, start_rate), start, runs))
        for index, codes in enumerate(shares)
    ]
    results: list[WorkerRun] = []
    try:
        for process in processes:
            process.start()
        start.wait(START_TIMEOUT)  # every worker has its hook and its calls: go
        while len(results) < len(processes):
            try:
                results.append(runs.get(timeout=1.0))
            except queue.Empty:
                if any(process.exitcode not in (None, 0) for process in processes):
                    raise RuntimeError("a worker process failed (its error is printed above)") from None
        for process in processes:
            process.join(30)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
                process.join()
    return sorted(results, key=lambda run: run.index)


def calls_by_worker(
    rows: list[tuple[str, str, int | None]], owner: dict[str, int], left: set[str], workers: int
) -> list[WorkerCalls]:
    """Each worker's calls, 429s and duplicates in the request record (by the code in each path), and its codes left."""
    calls, limited, deleted = Counter[int](), Counter[int](), Counter[str]()
    for method, path, status in rows:
        code = path.rsplit("/", 1)[1]
        if method != "DELETE" or code not in owner:
            continue
        calls[owner[code]] += 1
        if status == 429:
            limited[owner[code]] += 1
        elif status is not None and 200 <= status < 300:
            deleted[code] += 1
    duplicates = Counter[int]()
    for code, times in deleted.items():
        duplicates[owner[code]] += times - 1
    left_by = Counter(owner[code] for code in left if code in owner)
    return [WorkerCalls(calls[w], limited[w], duplicates[w], left_by[w]) for w in range(workers)]


def jain_index(rates: list[float]) -> float:
    """Jain's fairness index: 1.0 when every worker went as fast, 1/n when one had it all."""
    return sum(rates) ** 2 / (len(rates) * sum(rate * rate for rate in rates))
