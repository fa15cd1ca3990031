"""
Deferrable waits at scale: 1,000 ``MessagingPlatformScheduleTrigger``s in ONE asyncio event loop, each waiting on
its own one-time schedule of the emulator, against the same waits done by poke-mode sensors.

The emulator runs in its own process on loopback (``python -m messaging_platform_emulator --port 0``). Its
schedules are created first, in batches whose lifecycle (``POST /_emulator/schedule-behaviour``) is chosen so
that they complete spread over 10-20 s after the triggers start. Then every trigger runs as the triggerer runs
it (created one after the other with a yield in between, its first event taken). Measured in this process:

- RSS growth from just before the triggers are created to the peak while they wait (psutil, every 50 ms);
- the longest event-loop stall (a heartbeat coroutine sleeping 10 ms records its lateness), and how much of it
  was garbage collection (``gc.callbacks``) or waiting for a CPU taken by other processes (Linux schedstat);
- TCP connections the emulator accepted meanwhile (``GET /_emulator/connections``: opened delta, peak open;
  the bench holds no connection of its own during the waits);
- every event delivered and successful; the delay from each schedule's completion to its event, and from the
  last completion to the last event;
- the GET rate the emulator had to serve (one uvicorn process: ~1,000-1,500 GET/s on this kind of host, and the
  bench's httpx client costs ~1 ms of CPU per poll, so poll_interval 2 s, ~500 GET/s, leaves headroom);
- worker slots and slot-seconds that poke-mode sensors would hold for the same waits, checked against a small
  real sample of ``MessagingPlatformScheduleSensor.poke`` loops in threads.

The trigger wait runs twice: first as a triggerer process runs (default garbage collector: a full collection
walks every object Airflow's imports left, ~0.1-0.3 s here), then with that startup heap frozen (``gc.freeze()``,
as Airflow's DAG processor manager does), which leaves only the triggers' own work to stall the loop.

Completion instants are known on this process's clock: the emulator clock runs at scale 1 from
``time.monotonic()`` (system-wide), so a run created by a POST sent at ``s`` and answered at ``r`` completes at
``[s, r] + pending + processing``; the midpoint is used (the largest half-window is printed as the uncertainty).

Exit status 1 when a target is missed in either wait. About one minute in all.

    .venv/bin/python bench/triggers.py [--triggers 1000] [--poll-interval 2.0] [--pokes 20]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import psutil
import requests

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator
from messaging_platform_provider.hooks.names import CONN_TYPE

CONN_ID = "messaging_platform_default"
ACTION_ID = 5001
TRIGGER_PHASE_LIMIT_S = 60.0  # hard bound on one trigger wait (the planned one is ~22 s)
POKE_PHASE_LIMIT_S = 30.0
RSS_SAMPLE_S = 0.05
HEARTBEAT_S = 0.01

TARGET_RSS_MB = 150.0
TARGET_STALL_S = 0.2
TARGET_CONNECTIONS = 20


# -- emulator ---------------------------------------------------------------------------------------------


class Emulator:
    """
    Platform calls (schedule creation) on one kept-alive connection; ``control``, the emulator's control client,
    opens a connection per call and closes it after the answer, so the bench holds no connection of its own while
    the clients under test run (a read of ``control.connections()`` counts its own in ``opened`` and ``open``).
    """

    def __init__(self, uri: str) -> None:
        parts = urlsplit(uri)
        self.extra = uri_extras(uri)  # account_id a number: a text one makes Airflow's masker warn
        self.key, self.secret = unquote(parts.username or ""), unquote(parts.password or "")
        self.base_url = self.extra["base_url"]
        self.account = int(self.extra["account_id"])
        self.control = EmulatorControl(self.base_url.split("/api/", 1)[0])
        self.api_http = requests.Session()
        self.api_http.auth = (self.key, self.secret)

    def airflow_connection(self) -> str:
        return json.dumps({"conn_type": CONN_TYPE, "login": self.key, "password": self.secret, "extra": self.extra})


@dataclass
class Planned:
    """One created schedule and when its run completes, on this process's monotonic clock."""

    schedule_id: int
    done_at: float
    uncertainty: float  # half the POST's send-to-answer window


def create_schedules(emu: Emulator, count: int, first_done: float, spread: float, batch: int) -> list[Planned]:
    """``count`` one-time schedules completing from ``first_done`` to ``first_done + spread`` (monotonic s)."""
    url = f"{emu.base_url}/account/{emu.account}/action/{ACTION_ID}/schedule"
    body = {"ScheduleTypeId": 2, "RunAt": "17:30:00", "StartFrom": "2030-12-01T17:30:00"}
    planned: list[Planned] = []
    batches = max(1, -(-count // batch))
    for b in range(batches):
        target = first_done + (spread * b / (batches - 1) if batches > 1 else 0.0)
        processing = 1.0 + b % 4  # 1-4 s Processing, the rest Pending
        pending = max(0.0, target - time.monotonic() - processing)
        emu.control.set_schedule_behaviour(pending_seconds=pending, processing_seconds=processing)
        for _ in range(min(batch, count - len(planned))):
            sent = time.monotonic()
            response = emu.api_http.post(url, json=body, timeout=10)
            answered = time.monotonic()
            if response.status_code != 201:
                raise SystemExit(f"creating a schedule failed: {response.status_code} {response.text}")
            half = (answered - sent) / 2
            planned.append(Planned(int(response.json()["Id"]), sent + half + pending + processing, half))
    emu.api_http.close()  # no connection of the bench stays open
    return planned


# -- measuring --------------------------------------------------------------------------------------------


class RssSampler(threading.Thread):
    """Peak RSS of this process, sampled every 50 ms on its own thread (not on the event loop)."""

    def __init__(self) -> None:
        super().__init__(name="rss-sampler", daemon=True)
        self.process = psutil.Process()
        self.baseline = self.peak = self.process.memory_info().rss
        self.samples = 0
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(RSS_SAMPLE_S):
            self.peak = max(self.peak, self.process.memory_info().rss)
            self.samples += 1

    def halt(self) -> None:
        self._halt.set()
        self.join()


class GcPauses:
    """Every garbage collection of this process while installed: (generation, start, duration)."""

    def __init__(self) -> None:
        self.pauses: list[tuple[int, float, float]] = []
        self._start = 0.0

    def install(self) -> None:
        gc.callbacks.append(self._callback)

    def remove(self) -> None:
        gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        now = time.monotonic()
        if phase == "start":
            self._start = now
        else:
            self.pauses.append((info["generation"], self._start, now - self._start))

    def longest(self, generation: int) -> float:
        return max((d for g, _, d in self.pauses if g == generation), default=0.0)

    def count(self, generation: int) -> int:
        return sum(g == generation for g, _, _ in self.pauses)

    def within(self, start: float, end: float) -> float:
        """Collection time inside [start, end]."""
        return sum(max(0.0, min(end, s + d) - max(start, s)) for _, s, d in self.pauses)


def run_queue_reader() -> Callable[[], float]:
    """Seconds the calling thread has spent runnable but waiting for a CPU (Linux schedstat; else 0)."""
    try:
        fd = os.open("/proc/thread-self/schedstat", os.O_RDONLY)
    except OSError:
        return lambda: 0.0
    return lambda: int(os.pread(fd, 128, 0).split()[1]) / 1e9


def sched_seconds(pid: int) -> tuple[float, float]:
    """(on-CPU, waiting-for-a-CPU) seconds of every thread of ``pid`` so far (Linux schedstat; else 0)."""
    cpu = wait = 0.0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as stat:
                on_cpu, waiting, _ = stat.read().split()
            cpu, wait = cpu + int(on_cpu) / 1e9, wait + int(waiting) / 1e9
    except OSError:
        pass
    return cpu, wait


@dataclass
class Beat:
    at: float  # when the 10 ms sleep began
    late: float  # how much later than 10 ms it ended
    cpu_wait: float  # of that, time the loop's thread was runnable but had no CPU (other processes ran)


@dataclass
class Heartbeat:
    """Lateness of a 10 ms sleep on the loop: how long the loop was busy with something else (or had no CPU)."""

    beats: list[Beat] = field(default_factory=list)

    async def run(self, stop: asyncio.Event) -> None:
        run_queue = run_queue_reader()
        while not stop.is_set():
            before, queued = time.monotonic(), run_queue()
            await asyncio.sleep(HEARTBEAT_S)
            self.beats.append(Beat(before, time.monotonic() - before - HEARTBEAT_S, run_queue() - queued))

    @property
    def lateness(self) -> list[float]:
        return [beat.late for beat in self.beats]

    def worst(self) -> Beat:
        return max(self.beats, key=lambda beat: beat.late, default=Beat(0.0, 0.0, 0.0))

    def worst_own(self, gcs: GcPauses) -> float:
        """The longest stall once garbage collection and waiting for a CPU are taken out (roughly: they can
        overlap, when the collecting thread loses its CPU)."""
        return max(
            (max(0.0, b.late - b.cpu_wait - gcs.within(b.at, b.at + HEARTBEAT_S + b.late)) for b in self.beats),
            default=0.0,
        )


@dataclass
class CallStats:
    """Every ``AsyncMessagingPlatformClient.call`` the triggers made: (start, duration, failed)."""

    calls: list[tuple[float, float, bool]] = field(default_factory=list)

    def between(self, start: float, end: float) -> list[tuple[float, float, bool]]:
        return [c for c in self.calls if start <= c[0] <= end]


def count_calls(stats: CallStats) -> None:
    """Wrap the async client's ``call`` (bench-side instrumentation; the product is not changed)."""
    from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient

    original = AsyncMessagingPlatformClient.call

    async def counted(self: AsyncMessagingPlatformClient, operation: str, **kwargs: Any) -> Any:
        started, failed = time.monotonic(), True
        try:
            result = await original(self, operation, **kwargs)
            failed = False
            return result
        finally:
            stats.calls.append((started, time.monotonic() - started, failed))

    AsyncMessagingPlatformClient.call = counted  # type: ignore[method-assign]


# -- the trigger wait -------------------------------------------------------------------------------------


@dataclass
class TriggerRun:
    label: str
    planned: list[Planned]
    started: dict[int, float]
    events: dict[int, tuple[float, dict[str, Any]]]
    created_all_s: float
    elapsed_s: float
    heartbeat: Heartbeat
    gcs: GcPauses
    rss: RssSampler
    not_done: int
    clients_open_after: int
    connections_before: dict[str, int] = field(default_factory=dict)
    connections_after: dict[str, int] = field(default_factory=dict)
    bench_sched: tuple[float, float] = (0.0, 0.0)  # (on-CPU, waiting-for-a-CPU) s during the wait
    emulator_sched: tuple[float, float] = (0.0, 0.0)
    load: float = 0.0  # 1-minute load average at the end (CPUs: os.cpu_count())


async def run_triggers(label: str, planned: list[Planned], poll_interval: float) -> TriggerRun:
    from messaging_platform_provider.triggers.pool import clients_open
    from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger

    rss = RssSampler()  # baseline: now, before any trigger exists
    rss.start()
    heartbeat, stop, gcs = Heartbeat(), asyncio.Event(), GcPauses()
    beating = asyncio.create_task(heartbeat.run(stop))
    started: dict[int, float] = {}
    events: dict[int, tuple[float, dict[str, Any]]] = {}

    async def one(trigger: MessagingPlatformScheduleTrigger, schedule_id: int) -> None:
        async for event in trigger.run():  # as the triggerer does: the first event ends the trigger
            events[schedule_id] = (time.monotonic(), event.payload)
            return

    gcs.install()
    begin = time.monotonic()
    tasks = []
    for plan in planned:
        trigger = MessagingPlatformScheduleTrigger(
            conn_id=CONN_ID, action_id=ACTION_ID, schedule_ids=[plan.schedule_id], poll_interval=poll_interval
        )
        started[plan.schedule_id] = time.monotonic()
        tasks.append(asyncio.create_task(one(trigger, plan.schedule_id)))
        await asyncio.sleep(0)  # the triggerer also yields between the triggers it creates
    created_all = time.monotonic() - begin
    _, not_done = await asyncio.wait(tasks, timeout=TRIGGER_PHASE_LIMIT_S)
    for task in not_done:
        task.cancel()
    await asyncio.gather(*not_done, return_exceptions=True)
    elapsed = time.monotonic() - begin
    stop.set()
    await beating
    gcs.remove()
    rss.halt()
    return TriggerRun(
        label, planned, started, events, created_all, elapsed, heartbeat, gcs, rss, len(not_done), clients_open()
    )


def trigger_wait(emu: Emulator, emulator_pid: int, label: str, args: argparse.Namespace) -> TriggerRun:
    # Creating takes ~1-2 ms per schedule: leave that much before the triggers start.
    ready_at = time.monotonic() + 0.3 + args.triggers * 0.0012
    planned = create_schedules(emu, args.triggers, ready_at + args.first_done, args.spread, args.batch)
    before = emu.control.connections()
    sched_before = sched_seconds(os.getpid()), sched_seconds(emulator_pid)
    run = asyncio.run(run_triggers(label, planned, args.poll_interval))
    sched_after = sched_seconds(os.getpid()), sched_seconds(emulator_pid)
    time.sleep(0.5)  # the closes of the shared pool's connections reach the emulator
    run.connections_before, run.connections_after = before, emu.control.connections()
    run.bench_sched, run.emulator_sched = (
        (after[0] - start[0], after[1] - start[1]) for start, after in zip(sched_before, sched_after, strict=True)
    )
    run.load = os.getloadavg()[0]
    return run


# -- the poke sample --------------------------------------------------------------------------------------


@dataclass
class PokeWait:
    schedule_id: int
    done_at: float
    started: float = 0.0
    ended: float = 0.0
    pokes: int = 0
    result: str = ""


def run_pokes(planned: list[Planned], poke_interval: float) -> list[PokeWait]:
    """Each wait in its own thread, as a worker slot would run it: poke, sleep ``poke_interval``, repeat."""
    from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor

    waits = [PokeWait(p.schedule_id, p.done_at) for p in planned]
    go = threading.Barrier(len(waits))

    def wait(item: PokeWait) -> None:
        sensor = MessagingPlatformScheduleSensor(
            task_id=f"wait_{item.schedule_id}",
            action_id=ACTION_ID,
            schedule_id=item.schedule_id,
            messaging_platform_conn_id=CONN_ID,
            poke_interval=poke_interval,
            mode="poke",
            deferrable=False,
        )
        go.wait()
        item.started = time.monotonic()
        deadline = item.started + POKE_PHASE_LIMIT_S
        while True:
            item.pokes += 1
            done = sensor.poke({})  # type: ignore[arg-type]
            if done or time.monotonic() > deadline:
                break
            time.sleep(poke_interval)
        item.ended = time.monotonic()
        item.result = str(getattr(done, "xcom_value", {}).get("ProcessStatus")) if done else "not done"

    threads = [threading.Thread(target=wait, args=(item,), name=f"poke-{item.schedule_id}") for item in waits]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return waits


# -- report -----------------------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


@dataclass
class Verdicts:
    rss: bool
    stall: bool
    connections: bool
    events: bool

    @property
    def all(self) -> bool:
        return self.rss and self.stall and self.connections and self.events


def report_triggers(run: TriggerRun, stats: CallStats, poll_interval: float) -> Verdicts:
    planned, by_id = run.planned, {p.schedule_id: p for p in run.planned}
    start = min(run.started.values())
    outcomes = Counter(str(payload.get("outcome")) for _, payload in run.events.values())
    statuses = Counter(
        str((payload.get("schedules") or {}).get(str(sid), {}).get("ProcessStatus"))
        for sid, (_, payload) in run.events.items()
    )
    delays = [at - by_id[sid].done_at for sid, (at, _) in run.events.items()] or [float("nan")]
    first_done, last_done = min(p.done_at for p in planned), max(p.done_at for p in planned)
    last_event = max((at for at, _ in run.events.values()), default=float("nan"))
    rss_mb = (run.rss.peak - run.rss.baseline) / 2**20
    before, after = run.connections_before, run.connections_after
    opened = after["opened"] - before["opened"] - 1  # less the connection that read ``after``
    calls = stats.between(start, start + run.elapsed_s)
    span = max(c[0] for c in calls) - start
    per_second = Counter(int(c[0] - start) for c in calls)
    durations = [c[1] for c in calls]
    beat = run.heartbeat.worst()
    worst = beat.late
    delivered = len(run.events) == len(planned) and outcomes == Counter({"success": len(planned)})
    verdicts = Verdicts(rss_mb < TARGET_RSS_MB, worst <= TARGET_STALL_S, opened <= TARGET_CONNECTIONS, delivered)

    print(f"== {run.label} ==")
    print(f"{len(planned)} MessagingPlatformScheduleTrigger in one asyncio loop, one schedule each, poll_interval "
          f"{poll_interval:g} s; created in {run.created_all_s:.2f} s; schedules complete "
          f"{first_done - start:.1f}-{last_done - start:.1f} s after the first trigger started "
          f"(+/-{max(p.uncertainty for p in planned) * 1000:.1f} ms); wait {run.elapsed_s:.1f} s, "
          f"{run.not_done} not finished within {TRIGGER_PHASE_LIMIT_S:.0f} s")  # fmt: skip
    print("figure                                    measured         target          verdict")
    print(f"RSS growth (baseline -> peak, 50 ms)      {rss_mb:8.1f} MB      < {TARGET_RSS_MB:.0f} MB        "
          f"{verdict(verdicts.rss)}")  # fmt: skip
    print(f"longest event-loop stall (10 ms beat)     {worst:8.3f} s       <= {TARGET_STALL_S} s        "
          f"{verdict(verdicts.stall)}")  # fmt: skip
    print(f"TCP connections opened (emulator)         {opened:8d}         <= {TARGET_CONNECTIONS}           "
          f"{verdict(verdicts.connections)}")  # fmt: skip
    print(f"events delivered / outcome success        {len(run.events):4d} / {outcomes.get('success', 0):<4d}     "
          f"{len(planned)} / {len(planned)}     {verdict(verdicts.events)}")  # fmt: skip
    print(f"  RSS: baseline {run.rss.baseline / 2**20:.1f} MB, peak {run.rss.peak / 2**20:.1f} MB "
          f"({run.rss.samples} samples)")  # fmt: skip
    gcs = run.gcs
    print(f"  loop: {len(run.heartbeat.beats)} beats, lateness p50 {pct(run.heartbeat.lateness, 0.5) * 1000:.1f} ms, "
          f"p99 {pct(run.heartbeat.lateness, 0.99) * 1000:.1f} ms; {sum(x > 0.05 for x in run.heartbeat.lateness)} "
          f"late by > 50 ms; the longest ({worst * 1000:.0f} ms, at +{beat.at - start:.1f} s) held "
          f"{gcs.within(beat.at, beat.at + HEARTBEAT_S + worst) * 1000:.0f} ms of garbage collection and "
          f"{beat.cpu_wait * 1000:.0f} ms waiting for a CPU; longest stall with those taken out "
          f"{run.heartbeat.worst_own(gcs) * 1000:.0f} ms")  # fmt: skip
    print(f"  garbage collections: gen 2 x{gcs.count(2)} (longest {gcs.longest(2) * 1000:.0f} ms), gen 1 "
          f"x{gcs.count(1)} (longest {gcs.longest(1) * 1000:.0f} ms), gen 0 x{gcs.count(0)}; objects frozen "
          f"{gc.get_freeze_count()}")  # fmt: skip
    print(f"  connections: +{opened} opened during the wait; open: {before['open']} before, {after['open']} "
          f"0.5 s after the pool closed (the reading one included; closes can lag); most open at once since the "
          f"emulator started {after['peak_open']} (the bench held none during the waits); shared clients left "
          f"{run.clients_open_after}")  # fmt: skip
    print(f"  events: outcomes {dict(outcomes)}, ProcessStatus {dict(statuses)}; completion -> event p50 "
          f"{pct(delays, 0.5):.2f} s, p95 {pct(delays, 0.95):.2f} s, max {max(delays):.2f} s; last schedule "
          f"completed -> last event {last_event - last_done:.2f} s")  # fmt: skip
    print(f"  emulator load: {len(calls)} GET schedule in {span:.1f} s = {len(calls) / span:.0f} req/s mean "
          f"({len(planned):,} waiting / {poll_interval:g} s = {len(planned) / poll_interval:.0f} req/s while all "
          f"wait), "
          f"busiest second {max(per_second.values())} req/s; {sum(c[2] for c in calls)} failed calls; call time "
          f"incl. pool queue p50 {pct(durations, 0.5) * 1000:.1f} ms, p99 {pct(durations, 0.99) * 1000:.0f} ms, "
          f"max {max(durations) * 1000:.0f} ms")  # fmt: skip
    print(f"  CPU during the wait: bench {run.bench_sched[0]:.1f} s on CPU, {run.bench_sched[1]:.1f} s runnable "
          f"without one; emulator {run.emulator_sched[0]:.1f} s on CPU, {run.emulator_sched[1]:.1f} s runnable "
          f"without one; host load average {run.load:.1f} on {os.cpu_count()} CPUs")  # fmt: skip
    print()
    return verdicts


def report_pokes(run: TriggerRun, pokes: list[PokeWait], poke_interval: float, opened: int) -> None:
    by_id = {p.schedule_id: p for p in run.planned}
    waits = [at - run.started[sid] for sid, (at, _) in run.events.items()]
    floor = [by_id[sid].done_at - run.started[sid] for sid in run.events]
    n = len(run.planned)
    print("== the same waits as poke-mode sensors ==")
    print(f"worker slots held: {n} (one per poke sensor, for its whole wait) vs 0 deferred (all {n} in one "
          f"triggerer loop)")  # fmt: skip
    print(f"slot-seconds: {sum(waits):.0f} (sum of the measured waits, trigger start -> event: mean "
          f"{statistics.mean(waits):.1f} s); at least {sum(floor):.0f} (start -> completion), plus up to one poke "
          f"interval each")  # fmt: skip
    held = [w.ended - w.started for w in pokes]
    need = [w.done_at - w.started for w in pokes]
    past = [h - d for h, d in zip(held, need, strict=True)]
    estimate = [d + poke_interval / 2 for d in need]
    print(f"real sample: {len(pokes)} MessagingPlatformScheduleSensor.poke loops in threads, poke_interval "
          f"{poke_interval:g} s: {sum(w.result == 'Completed' for w in pokes)}/{len(pokes)} Completed, "
          f"{sum(w.pokes for w in pokes)} pokes, {opened} TCP connections opened "
          f"(a requests session per sensor)")  # fmt: skip
    print(f"  slot-seconds held {sum(held):.1f} (mean {statistics.mean(held):.2f} s); estimate start -> completion "
          f"+ poke_interval/2 = {sum(estimate):.1f}: held/estimate {sum(held) / sum(estimate):.2f}; held past "
          f"completion mean {statistics.mean(past):.2f} s, max {max(past):.2f} s "
          f"(expected 0..{poke_interval:g} s)")  # fmt: skip
    print()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--triggers", type=int, default=1000)
    parser.add_argument("--poll-interval", type=float, default=2.0)
    parser.add_argument("--first-done", type=float, default=10.0, help="s after the triggers start")
    parser.add_argument("--spread", type=float, default=10.0, help="completions spread over this many s")
    parser.add_argument("--batch", type=int, default=20, help="schedules per behaviour batch")
    parser.add_argument("--pokes", type=int, default=20)
    parser.add_argument("--poke-interval", type=float, default=1.0)
    args = parser.parse_args()
    run_started = time.monotonic()

    folder = Path(tempfile.mkdtemp())
    os.environ["AIRFLOW_HOME"] = str(folder)
    proc, uri = spawn_emulator(folder)
    try:
        emu = Emulator(uri)
        os.environ["AIRFLOW_CONN_" + CONN_ID.upper()] = emu.airflow_connection()
        # What a running triggerer has loaded already; imported now so the RSS figure is the triggers' own.
        import airflow.sdk  # noqa: F401
        import airflow.sdk.log  # noqa: F401

        import messaging_platform_provider.triggers.pool  # noqa: F401
        import messaging_platform_provider.triggers.schedule  # noqa: F401

        stats = CallStats()
        count_calls(stats)
        gc.collect()
        as_is = trigger_wait(emu, proc.pid, "1. as a triggerer process runs it (default garbage collector)", args)
        gc.collect()
        gc.freeze()
        frozen = trigger_wait(emu, proc.pid, "2. the same, with the startup heap frozen (gc.freeze())", args)

        # The poke sample: its own schedules, completing 3-8 s after the threads start.
        ready_at = time.monotonic() + 0.3 + args.pokes * 0.01
        poke_planned = create_schedules(emu, args.pokes, ready_at + 3.0, 5.0, 1)
        poke_before = emu.control.connections()
        pokes = run_pokes(poke_planned, args.poke_interval)
        poke_opened = emu.control.connections()["opened"] - poke_before["opened"] - 1
    finally:
        stop_emulator(proc)
        shutil.rmtree(folder, ignore_errors=True)  # the emulator's log and its connection file (the secret)

    results = [report_triggers(run, stats, args.poll_interval) for run in (as_is, frozen)]
    report_pokes(as_is, pokes, args.poke_interval, poke_opened)
    for run, v in zip((as_is, frozen), results, strict=True):
        print(f"targets, {run.label.split(' ', 1)[1]}: RSS {verdict(v.rss)}, stall {verdict(v.stall)}, "
              f"connections {verdict(v.connections)}, events {verdict(v.events)}")  # fmt: skip
    print(f"total run {time.monotonic() - run_started:.0f} s")
    return 0 if all(v.all for v in results) else 1


if __name__ == "__main__":
    sys.exit(main())
