"""
``MessagingPlatformScheduleTrigger`` run in an event loop against the emulator, as the triggerer runs it:
deadlines, transient errors, a rebuild from ``serialize()`` mid-wait, no blocking call, one pooled client.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import json
import logging
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest
import requests

from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.prefixes import CONTROL_PREFIX
from messaging_platform_provider.client.async_client import DEFAULT_MAX_CONNECTIONS
from messaging_platform_provider.triggers import schedule as schedule_module
from messaging_platform_provider.triggers.pool import clients_open
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
from messaging_platform_provider.waiting.deadline import deadline_after, seconds_left
from tests.support.airflow_versions import serde
from tests.support.waiting import (
    PARKED,
    PATIENCE,
    RUN_LIMIT,
    SOON,
    Lifecycle,
    WhenPolled,
    first_event,
    gets,
    key_of,
    rotate_key,
    schedule_path,
)

CONN_ID = "messaging_platform_default"


def trigger(schedule_ids: list[Any], action_id: Any = 5001, **kwargs: Any) -> MessagingPlatformScheduleTrigger:
    values: dict[str, Any] = {
        "conn_id": CONN_ID,
        "action_id": action_id,
        "schedule_ids": schedule_ids,
        "poll_interval": 0.05,
        "deadline": deadline_after(30),
    }
    values.update(kwargs)
    return MessagingPlatformScheduleTrigger(**values)


def run_trigger(t: MessagingPlatformScheduleTrigger, limit: float = RUN_LIMIT) -> dict[str, Any]:
    return asyncio.run(first_event(t, limit))


async def until(condition: Callable[[], Awaitable[Any]], what: str, timeout: float = PATIENCE) -> Any:
    """Await ``condition()`` every 20 ms until it gives a true value (returned); fail naming ``what`` at the end."""
    deadline = time.monotonic() + timeout
    while True:
        value = await condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"still not the case after {timeout:g} s: {what} (last seen: {value!r})")
        await asyncio.sleep(0.02)


# -- deadlines ------------------------------------------------------------------------------------


def test_a_deadline_already_passed_polls_once_then_reports_timeout(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    event = run_trigger(trigger([schedule["Id"]], deadline=deadline_after(-1)))
    assert event["outcome"] == "timeout" and "deadline" in event["message"]
    assert event["schedules"][str(schedule["Id"])]["ProcessStatus"] == "Pending"  # the one poll's answer
    assert len(gets(platform, 5001, schedule["Id"])) == 1
    assert clients_open() == 0


def test_the_deadline_ends_a_wait_in_progress(platform, monkeypatch):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    # The first poll at once, and the next one due in ten minutes: only the deadline can end the pause between them
    # before the run limit (30 s). The deadline leaves the first poll 3 s, ample on a loaded machine.
    monkeypatch.setattr(schedule_module, "FIRST_POLL_SPREAD", 0.0)
    t = trigger([schedule["Id"]], poll_interval=600, deadline=deadline_after(3))
    event = run_trigger(t, limit=30)
    assert event["outcome"] == "timeout" and "deadline" in event["message"]
    assert datetime.now(timezone.utc) >= datetime.fromisoformat(t.deadline)  # not before it
    reads = gets(platform, 5001, schedule["Id"])
    # The first read (Pending) came before the deadline and the wait went on; the pause was cut at the deadline
    # (a timer may fire a hair early: then one more short pause and read).
    assert len(reads) >= 2, "the first poll came after the deadline: the machine was too slow for this test"
    assert len(reads) <= 4 and {r["status"] for r in reads} == {200}


# -- transient errors -----------------------------------------------------------------------------


def test_a_burst_of_transient_errors_is_survived(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.control.add_fault(kind="status", status=503, count=3, method="GET", path=f"{path}$")
    moves = {path: lambda: platform.control.set_one_schedule_behaviour(schedule["Id"], outcome="Completed", **SOON)}
    with WhenPolled(platform, moves):
        event = run_trigger(trigger([schedule["Id"]], max_transient_errors=5))
    assert event["outcome"] == "success"
    assert event["schedules"][str(schedule["Id"])]["ProcessStatus"] == "Completed"
    statuses = [r["status"] for r in gets(platform, 5001, schedule["Id"])]
    assert statuses[:3] == [503, 503, 503] and set(statuses[3:]) == {200}


def test_more_transient_errors_in_a_row_than_allowed_fail_the_wait(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.control.add_fault(kind="status", status=502, count=2, method="GET", path=f"{path}$")
    platform.control.add_fault(kind="drop", count=2, method="GET", path=f"{path}$")
    platform.control.add_fault(kind="retry_after", retry_after=0, count=10, method="GET", path=f"{path}$")
    event = run_trigger(trigger([schedule["Id"]], max_transient_errors=5))
    assert event["outcome"] == "failure" and event["ended_status"] is None
    assert "6 transient errors in a row (limit 5)" in event["message"]
    assert [r["status"] for r in gets(platform, 5001, schedule["Id"])][-2:] == [429, 429]
    assert len(gets(platform, 5001, schedule["Id"])) == 6


# -- credentials: a key rotated while triggers wait ---------------------------------------------------------


@pytest.mark.parametrize("written", [True, False], ids=["new-key-in-connection", "connection-not-updated"])
def test_a_wait_survives_a_key_rotation_by_re_reading_the_connection_once(platform, monkeypatch, written):
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json())  # restored after
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    rotated: dict[str, Any] = {}

    def rotate_then_complete() -> None:
        rotated.update(rotate_key(platform, write_to_connection=written))
        life.control.set_one_schedule_behaviour(schedule["Id"], outcome="Completed", **SOON)

    with WhenPolled(platform, {path: rotate_then_complete}):
        event = run_trigger(trigger([schedule["Id"]]))
    polls = gets(platform, 5001, schedule["Id"])
    after = [r for r in polls if r["status"] != 200 or key_of(r) != platform.seed.api_key]
    if written:
        assert event["outcome"] == "success", event["message"]
        # The first poll after the revoke was answered 401; the same poll, sent again on the new key, got 200.
        assert [r["status"] for r in after][:2] == [401, 200]
        assert {key_of(r) for r in after[1:]} == {rotated["Key"]}
    else:
        # The connection still holds the revoked key: re-read, nothing new to try, and the wait fails, naming it.
        assert event["outcome"] == "failure" and "401" in event["message"]
        assert [r["status"] for r in after] == [401]
    assert platform.seed.api_secret not in json.dumps(event)


# -- serialisation: a trigger rebuilt mid-wait finishes the same wait -------------------------------------


def test_a_trigger_rebuilt_from_serialize_mid_wait_finishes_it_with_the_same_deadline(platform):
    deserialize, serialize = serde().deserialize, serde().serialize

    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    original = trigger([schedule["Id"]], deadline=deadline_after(60))
    deadline = datetime.fromisoformat(original.deadline)

    async def reads() -> int:
        return len(await asyncio.to_thread(gets, platform, 5001, schedule["Id"]))

    async def scenario() -> tuple[dict[str, Any], MessagingPlatformScheduleTrigger, int]:
        running = asyncio.create_task(first_event(original))
        # Stopped once it has polled twice, its schedule Pending (parked: it cannot end meanwhile).
        await until(lambda: reads_or_end(running, reads), "the first trigger polled its schedule twice")
        assert not running.done() and clients_open() == 1
        running.cancel()  # the triggerer stops it (restart, or the trigger moves to another triggerer)
        with pytest.raises(asyncio.CancelledError):
            await running
        assert clients_open() == 0  # the pooled client closed with its last user
        reads_before = await reads()
        await asyncio.to_thread(
            life.control.set_one_schedule_behaviour, schedule["Id"], outcome="Completed", **SOON
        )  # ends soon from now
        classpath, kwargs = original.serialize()
        kwargs = deserialize(serialize(kwargs))  # as stored in the metadata database and read back
        module, _, name = classpath.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        rebuilt = cls(**kwargs)
        return await first_event(rebuilt), rebuilt, reads_before

    event, rebuilt, reads_before = asyncio.run(scenario())
    assert reads_before >= 2  # the first trigger was really polling (Pending) when it was stopped
    assert event["outcome"] == "success"
    assert event["schedules"][str(schedule["Id"])]["ProcessStatus"] == "Completed"
    assert len(gets(platform, 5001, schedule["Id"])) > reads_before
    assert rebuilt.serialize() == original.serialize()
    assert datetime.fromisoformat(rebuilt.deadline) == deadline  # the same absolute instant, not restarted
    left = seconds_left(rebuilt.deadline, datetime.now(timezone.utc))
    assert left is not None and left < 60


async def reads_or_end(task: asyncio.Task[Any], reads: Callable[[], Awaitable[int]]) -> bool:
    """Whether the schedule was read twice; a trigger that has already ended ends the wait (its error is raised)."""
    if task.done():
        task.result()
        return True
    return await reads() >= 2


# -- the event loop: nothing blocks it, and one connection shares one client -------------------------------


#: A fresh process, as the triggerer is one: Airflow loaded, then our trigger modules imported (which third-party and
#: client modules that brought), then one trigger run; the garbage collector's freeze count before and after it.
TRIGGERER_PROBE = """
import asyncio, gc, json, sys, airflow.triggers.base, airflow.sdk, httpx
before = set(sys.modules)
import messaging_platform_provider.triggers.schedule, messaging_platform_provider.triggers.callback
import messaging_platform_provider.triggers.pool
ours = {'messaging_platform_provider', 'airflow', *sys.stdlib_module_names}
third_party = sorted(m for m in set(sys.modules) - before if m.split('.')[0] not in ours)
client = sorted(m for m in sys.modules if m.startswith('messaging_platform_provider.client.'))
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
frozen_before = gc.get_freeze_count()
t = MessagingPlatformScheduleTrigger(conn_id='messaging_platform_default', action_id=5001,
    schedule_ids=[999999], poll_interval=0.01)
event = asyncio.run(anext(t.run()))
print(json.dumps({'third_party': third_party, 'client': client, 'frozen': [frozen_before, gc.get_freeze_count()],
    'outcome': event.payload['outcome']}))
"""


@pytest.fixture(scope="module")
def triggerer_probes() -> dict[str | None, dict[str, Any]]:
    """The probe's findings by freeze setting, each probe run once: starting Airflow costs 3 s of CPU a process."""
    return {}


@pytest.fixture
def triggerer_probe(platform, triggerer_probes) -> Callable[[str | None], dict[str, Any]]:
    """``probe(setting)``: what ``TRIGGERER_PROBE`` found with ``MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP`` so."""
    import os

    def probe(setting: str | None) -> dict[str, Any]:
        if setting not in triggerer_probes:
            env = {**os.environ, "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT": platform.connection_json()}
            env.pop("MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP", None)
            if setting is not None:
                env["MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP"] = setting
            command = [sys.executable, "-c", TRIGGERER_PROBE]
            out = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
            assert out.returncode == 0, out.stderr[-2000:]
            triggerer_probes[setting] = json.loads(out.stdout.strip().splitlines()[-1])
        return triggerer_probes[setting]

    return probe


@pytest.mark.xdist_group("triggerer_probe")  # one worker runs both tests on the default setting's probe
def test_what_a_trigger_imports_in_the_event_loop_is_light(triggerer_probe):
    """
    The triggerer imports a trigger's module, and our triggers import their client, on its event loop: an import
    of the synchronous client (``requests`` and every API method) there blocked the loop for 0.3 s and made the
    triggerer log "async thread was blocked". In a fresh process, as the triggerer has Airflow loaded.
    """
    found = triggerer_probe(None)
    assert found["third_party"] == []  # no third-party module beyond what Airflow and httpx already brought
    ours = found["client"]
    assert "messaging_platform_provider.client.async_client" in ours  # the probe saw the trigger's own client
    assert "messaging_platform_provider.client.client" not in ours
    assert not [m for m in ours if m.startswith("messaging_platform_provider.client.api")], ours


@pytest.mark.xdist_group("triggerer_probe")
@pytest.mark.parametrize("setting", [None, "false"], ids=["default", "turned-off"])
def test_the_first_trigger_in_a_process_freezes_the_start_up_heap(triggerer_probe, setting):
    """
    A full garbage collection over the triggerer's start-up heap (Airflow's imports: ~280,000 objects) took
    0.22-0.48 s on the event loop and the triggerer logged "async thread was blocked". The first trigger run
    freezes that heap, so collections skip it. In a fresh process, as a triggerer runs the trigger.
    """
    found = triggerer_probe(setting)
    before, after = found["frozen"]
    assert (before, found["outcome"]) == (0, "failure")  # 404: the schedule does not exist, the run ended at once
    if setting is None:
        assert after > 100_000  # Airflow's start-up heap, now skipped by every collection
    else:
        assert after == 0


@pytest.fixture
def own_process_emulator(monkeypatch) -> Iterator[SimpleNamespace]:
    """
    An emulator in a process of its own, with ``messaging_platform_default`` pointing at it. The shared one serves
    from a thread of the test process, whose request handling would hold the GIL against the event loop and
    show up as slow steps that are not the trigger's.
    """
    proc = subprocess.Popen(
        [sys.executable, "-m", "messaging_platform_emulator", "--api-key", "wait-key", "--api-secret", "wait-secret"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Emulator base URL: "), line
        base_url = line.split(": ", 1)[1].strip()
        conn = {
            "conn_type": "messaging_platform",
            "login": "wait-key",
            "password": "wait-secret",
            "extra": {"base_url": base_url, "account_id": 1001},
        }
        monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", json.dumps(conn))
        with EmulatorControl(base_url.removesuffix("/api/v2.1")) as control:
            yield SimpleNamespace(control=control)
    finally:
        proc.terminate()
        proc.wait(10)


#: A turn of the event loop this late means something blocked it: far above what a loaded machine causes.
BLOCKED = 1.0
#: How long the emulator takes over a few polls of the fifty-triggers test: a trigger that waited for an answer
#: synchronously (a blocking HTTP call) would hold the loop this long.
SLOW_ANSWER = 3.0


class LoopWatch:
    """A heartbeat on the event loop: the longest it waited for its turn beyond its own 10 ms sleep."""

    def __init__(self) -> None:
        self.longest = 0.0

    @property
    def blocked(self) -> bool:
        return self.longest >= BLOCKED

    async def run(self) -> None:
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            self.longest = max(self.longest, time.monotonic() - before - 0.01)


@pytest.mark.slow
def test_fifty_triggers_share_one_client_and_never_block_the_loop(own_process_emulator, caplog):
    life = Lifecycle(own_process_emulator)
    # Every schedule starts its 0.8 s run at the same emulator instant, when the clock runs.
    life.control.set_clock(scale=0)
    ids = [life.new_schedule(pending_seconds=0.5, processing_seconds=0.3)["Id"] for _ in range(50)]
    assert {life.status(5001, ids[0]), life.status(5001, ids[-1])} == {"Pending"}
    life.control.clear_requests()
    # The emulator answers three polls after SLOW_ANSWER seconds (in its own process, without blocking the others).
    life.control.add_fault("delay", delay=SLOW_ANSWER, count=3, method="GET", path=r"/schedule/\d+$")
    caplog.set_level(logging.WARNING, logger="asyncio")
    # The control calls made while the triggers run share one keep-alive connection (counted below), not the control
    # client's connection per call.
    control = requests.Session()
    control_url = life.control.url + CONTROL_PREFIX

    def polls_per_schedule() -> Counter[str]:
        """Answered reads per schedule id."""
        records = control.get(f"{control_url}/requests", timeout=10).json()
        return Counter(
            r["path"].rsplit("/", 1)[-1]
            for r in records
            if r["method"] == "GET" and "/schedule/" in r["path"] and r["status"] is not None
        )

    watch = LoopWatch()

    async def main() -> tuple[list[dict[str, Any]], list[int]]:
        # Debug mode logs each step that held the loop that long, naming it (shown if the heartbeat saw a block).
        asyncio.get_running_loop().slow_callback_duration = BLOCKED
        heartbeat = asyncio.create_task(watch.run())
        tasks = [
            asyncio.create_task(first_event(trigger([s], poll_interval=0.1, deadline=deadline_after(300)), 300))
            for s in ids
        ]
        open_counts: list[int] = []

        async def wait_for(condition: Callable[[], Awaitable[bool]], what: str) -> None:
            """Until ``condition``, sampling the open clients; a blocked loop or a trigger that died ends it early."""
            deadline = time.monotonic() + 120
            while not watch.blocked:
                open_counts.append(clients_open())
                for t in tasks:
                    if t.done():
                        t.result()  # a trigger that died: its error is raised
                if await condition():
                    return
                assert time.monotonic() < deadline, f"still not the case after 120 s: {what}"
                await asyncio.sleep(0.02)

        async def all_read() -> bool:
            return len(await asyncio.to_thread(polls_per_schedule)) == len(ids)

        async def all_done() -> bool:
            return all(t.done() for t in tasks)

        try:
            # Every trigger reads its schedule Pending while the emulator's clock stands still, however late a
            # loaded machine starts it or the emulator answers; only then does the clock run, so each one waits
            # through Pending and Processing.
            await wait_for(all_read, "every trigger read its schedule once")
            if watch.blocked:
                return [], open_counts
            await asyncio.to_thread(control.post, f"{control_url}/clock", json={"scale": 1}, timeout=10)
            await wait_for(all_done, "every trigger sent its event")
            return ([] if watch.blocked else [t.result() for t in tasks]), open_counts
        finally:
            heartbeat.cancel()
            for t in tasks:
                t.cancel()
            await asyncio.gather(heartbeat, *tasks, return_exceptions=True)

    # A full collection of this test process's heap (Airflow, the DAG bags of other tests) would stall the loop
    # for a tenth of a second or more (longer on a loaded machine), in whichever trigger ran then.
    gc.collect()
    gc.freeze()
    try:
        before = life.control.connections()
        events, open_counts = asyncio.run(main(), debug=True)
    finally:
        gc.unfreeze()
    polls = polls_per_schedule()
    control.close()
    after = life.control.connections()

    # Debug mode logs "Executing <...> took N seconds" for each step that held the loop BLOCKED seconds or more.
    steps = [r.getMessage() for r in caplog.records if r.name == "asyncio" and "took" in r.getMessage()]
    assert not watch.blocked and steps == [], f"the event loop was held {watch.longest:.2f} s at once: {steps}"
    assert [e["outcome"] for e in events] == ["success"] * 50  # each after waiting through Pending and Processing
    assert {int(s) for e in events for s in e["schedules"]} == set(ids)
    assert set(polls) == {str(i) for i in ids} and min(polls.values()) >= 2  # read waiting, then read ended
    # One client from the first trigger's start to the last one's end (the first samples may come before it opens,
    # the last ones after it closed, while the last trigger's task is still finishing).
    while open_counts and open_counts[-1] == 0:
        open_counts.pop()
    while open_counts and open_counts[0] == 0:
        open_counts.pop(0)
    assert len(open_counts) >= 5 and set(open_counts) == {1}, open_counts
    assert clients_open() == 0
    # At most DEFAULT_MAX_CONNECTIONS connections for 50 triggers, +2: the control session and the GET that read
    # "after"; the control session stays open during the run, so it may add one to the peak.
    assert after["opened"] - before["opened"] <= DEFAULT_MAX_CONNECTIONS + 2
    assert after["peak_open"] <= max(before["peak_open"], before["open"] + DEFAULT_MAX_CONNECTIONS + 1)
