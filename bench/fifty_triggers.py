"""
Fifty ``MessagingPlatformScheduleTrigger``s of one connection in one event loop while the platform answers three
polls slowly: how long a turn of the event loop waited at worst, and how many TCP connections the triggers opened.

This was the timing half of a unit test (``test_fifty_triggers_share_one_client_and_never_block_the_loop``); its
bounds failed on a machine busy with other work (a turn waited 1.16 s; 13 connections opened for a bound of 12),
so the figures are measured here, in one run, and printed with their targets. The behaviour they stand for (one
client shared by the fifty triggers, a slow answer holding up no other trigger) is tested deterministically by
``tests/triggers/test_fifty_triggers.py``.

The emulator runs in its own process (the one in a thread of this process would hold the GIL against the event
loop). Every schedule is read Pending while the emulator's clock stands still; then the clock runs and each one
ends after 0.5 s Pending and 0.3 s Processing. Three polls are answered after ``--slow-answer`` seconds: a trigger
that waited for its answer synchronously would hold the loop that long. Measured:

- the longest lateness of a heartbeat on the loop (a 10 ms sleep), and asyncio debug mode's slow steps;
- TCP connections the emulator accepted during the run (its ``/_emulator/connections``: opened, peak open);
- the shared clients open, sampled every 20 ms (one from the first trigger's start to the last one's end).

    .venv/bin/python bench/fifty_triggers.py [--triggers 50] [--slow-answer 3.0]

Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import logging
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import unquote, urlsplit

import requests

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.prefixes import CONTROL_PREFIX
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator
from messaging_platform_provider.hooks.names import CONN_TYPE

#: A turn of the event loop that waited this long means something blocked it (a loaded machine alone stays below).
TARGET_STALL_S = 1.0
ACTION_ID = 5001


class LoopWatch:
    """A heartbeat on the event loop: the longest it waited for its turn beyond its own 10 ms sleep."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            self.longest = max(self.longest, time.monotonic() - before - 0.01)


async def run_triggers(control_url: str, ids: list[int], watch: LoopWatch) -> tuple[list[str], list[int]]:
    """
    Every trigger to its first event; their outcomes, and the shared clients open sampled meanwhile. The control
    calls made meanwhile share one kept-alive connection (``control_url``: the emulator's control routes).
    """
    from messaging_platform_provider.triggers.pool import clients_open
    from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
    from messaging_platform_provider.waiting.deadline import deadline_after  # imported before the loop runs

    async def first(schedule_id: int) -> str:
        t = MessagingPlatformScheduleTrigger(
            conn_id="messaging_platform_default",
            action_id=ACTION_ID,
            schedule_ids=[schedule_id],
            poll_interval=0.1,
            deadline=deadline_after(300),
        )
        events = t.run()
        try:
            return str((await anext(events)).payload["outcome"])
        finally:
            await events.aclose()

    asyncio.get_running_loop().slow_callback_duration = TARGET_STALL_S  # debug mode names such steps
    heartbeat = asyncio.create_task(watch.run())
    tasks = [asyncio.create_task(first(s)) for s in ids]
    open_counts: list[int] = []

    async def until(condition: Callable[[], Awaitable[bool]]) -> None:
        while not await condition():
            open_counts.append(clients_open())
            await asyncio.sleep(0.02)

    session = requests.Session()

    async def all_read() -> bool:
        answer = await asyncio.to_thread(session.get, f"{control_url}/requests", timeout=30)
        read = {r["path"] for r in answer.json() if r["status"] == 200 and "/schedule/" in r["path"]}
        return len(read) == len(ids)

    async def all_done() -> bool:
        return all(t.done() for t in tasks)

    try:
        await until(all_read)  # every schedule read Pending, the emulator's clock standing still
        await asyncio.to_thread(session.post, f"{control_url}/clock", json={"scale": 1}, timeout=30)
        await until(all_done)
        return [t.result() for t in tasks], open_counts
    finally:
        heartbeat.cancel()
        for t in tasks:
            t.cancel()
        await asyncio.gather(heartbeat, *tasks, return_exceptions=True)
        session.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--triggers", type=int, default=50)
    parser.add_argument("--slow-answer", type=float, default=3.0, help="s the emulator takes over three polls")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-fifty-triggers-"))
    os.environ["AIRFLOW_HOME"] = str(folder)
    proc, uri = spawn_emulator(folder)  # a failed start stops the emulator itself
    try:
        parts = urlsplit(uri)
        extra = uri_extras(uri)  # account_id a number: a text one makes Airflow's masker warn
        login, password = unquote(parts.username or ""), unquote(parts.password or "")
        os.environ["AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"] = json.dumps(
            {"conn_type": CONN_TYPE, "login": login, "password": password, "extra": extra}
        )
        # What a running triggerer has loaded already: imported now, so that no import is timed on the loop.
        import messaging_platform_provider.triggers.schedule  # noqa: F401
        import messaging_platform_provider.waiting.deadline  # noqa: F401
        from messaging_platform_provider.client.async_client import DEFAULT_POOL_CONNECTIONS

        with EmulatorControl(extra["base_url"].removesuffix("/api/v2.1")) as control, requests.Session() as api:
            control.set_clock(scale=0)
            api.auth = (login, password)
            url = f"{extra['base_url']}/account/{extra['account_id']}/action/{ACTION_ID}/schedule"
            ids = []
            for _ in range(args.triggers):
                body = {"ScheduleTypeId": 2, "RunAt": "17:30:00", "StartFrom": "2030-12-01T17:30:00"}
                schedule_id = int(api.post(url, json=body, timeout=30).json()["Id"])
                control.set_one_schedule_behaviour(schedule_id, pending_seconds=0.5, processing_seconds=0.3)
                ids.append(schedule_id)
            control.clear_requests()
            control.add_fault("delay", delay=args.slow_answer, count=3, method="GET", path=r"/schedule/\d+$")
            slow_steps: list[str] = []
            handler = logging.Handler()
            handler.emit = lambda record: slow_steps.append(record.getMessage())  # type: ignore[method-assign]
            logging.getLogger("asyncio").addHandler(handler)
            logging.getLogger("asyncio").setLevel(logging.WARNING)
            watch = LoopWatch()
            gc.collect()
            gc.freeze()  # as a triggerer with [messaging_platform] freeze_triggerer_heap does with its start-up heap
            before = control.connections()
            started = time.monotonic()
            control_url = control.url + CONTROL_PREFIX
            outcomes, open_counts = asyncio.run(run_triggers(control_url, ids, watch), debug=True)
            took = time.monotonic() - started
            after = control.connections()
    finally:
        stop_emulator(proc)
        shutil.rmtree(folder, ignore_errors=True)  # the emulator's log and its connection file (the secret)

    # Not the triggers': the run's control session, and the call that read "after".
    opened = after["opened"] - before["opened"] - 2
    while open_counts and open_counts[-1] == 0:
        open_counts.pop()
    while open_counts and open_counts[0] == 0:
        open_counts.pop(0)
    steps = [m for m in slow_steps if "took" in m]
    checks = {
        f"longest wait of a turn of the event loop under {TARGET_STALL_S} s": watch.longest < TARGET_STALL_S,
        "no step of the event loop logged as slow by asyncio debug mode": not steps,
        "every trigger succeeded": outcomes == ["success"] * len(ids),
        "one shared client open from the first trigger's start to the last one's end": set(open_counts) == {1},
        f"at most {DEFAULT_POOL_CONNECTIONS} TCP connections opened by the triggers (their pool's bound)":
            opened <= DEFAULT_POOL_CONNECTIONS,
        f"peak open connections at most {DEFAULT_POOL_CONNECTIONS} (the pool) + the control session + the reading":
            after["peak_open"] <= max(before["peak_open"], before["open"] + DEFAULT_POOL_CONNECTIONS + 1),
    }  # fmt: skip
    print(f"triggers                      {len(ids)} (three polls answered after {args.slow_answer:g} s), {took:.1f} s")
    print(f"longest wait of a loop turn   {watch.longest:.3f} s (target < {TARGET_STALL_S} s)")
    print(f"asyncio slow steps            {len(steps)} {steps[:3]}")
    print(f"shared clients open (samples) {sorted(set(open_counts))} over {len(open_counts)} samples (target: {{1}})")
    print(
        f"TCP connections               {opened} opened by the triggers, peak {after['peak_open']} open "
        f"(target: at most {DEFAULT_POOL_CONNECTIONS}, the pool's bound)"
    )
    print(f"load average (1 min)          {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    for name, ok in checks.items():
        print(f"{'PASS' if ok else 'MISS'}  {name}")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
