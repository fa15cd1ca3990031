"""
``MessagingPlatformScheduleTrigger`` run in an event loop against the emulator, as the triggerer runs it:
deadlines, transient errors, a rebuild from ``serialize()`` mid-wait, what a trigger imports (fifty triggers sharing
one client: ``test_fifty_triggers.py``).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.triggers import schedule as schedule_module
from messaging_platform_provider.triggers.pool import clients_open
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
from messaging_platform_provider.waiting import async_loop
from messaging_platform_provider.waiting.deadline import deadline_after, seconds_left
from messaging_platform_provider.waiting.decision import WaitRules
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
CONN_ENV = f"AIRFLOW_CONN_{CONN_ID.upper()}"


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
    # before the run limit (30 s).
    monkeypatch.setattr(schedule_module, "FIRST_POLL_SPREAD", 0.0)
    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded_sleep(seconds: float) -> None:
        pauses.append(seconds)
        await real_sleep(seconds)

    monkeypatch.setattr(async_loop, "asyncio", SimpleNamespace(sleep=recorded_sleep))
    t = trigger([schedule["Id"]], poll_interval=600, deadline=deadline_after(3))
    event = run_trigger(t, limit=30)
    assert event["outcome"] == "timeout" and "deadline" in event["message"]
    assert datetime.now(timezone.utc) >= datetime.fromisoformat(t.deadline)  # not before it
    # Each pause between polls ended by the deadline, never after the poll interval (no pause at all when a loaded
    # machine took the 3 s over the first read); a timer may fire a hair early: then one more short pause and read.
    assert all(0 <= p <= 3.0 for p in pauses), pauses
    reads = gets(platform, 5001, schedule["Id"])
    assert len(reads) == len(pauses) + 1 and {r["status"] for r in reads} == {200}  # a read after each pause


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
    written = deadline_after(60)
    original = trigger([schedule["Id"]], deadline=written)
    deadline = datetime.fromisoformat(written)

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
    assert rebuilt.serialize() == (  # every argument as the test gave it (defaults for the rest), not re-derived
        SCHEDULE_TRIGGER,
        {
            "conn_id": CONN_ID,
            "action_id": 5001,
            "schedule_ids": [str(schedule["Id"])],
            "account_id": None,
            "success_statuses": ["Completed"],
            "failure_statuses": ["Failed", "Aborted"],
            "max_transient_errors": 5,
            "poll_interval": 0.05,
            "deadline": written,
            "try_number": None,
            "started_work": None,
        },
    )
    assert datetime.fromisoformat(rebuilt.deadline) == deadline  # the same absolute instant, not restarted
    left = seconds_left(rebuilt.deadline, datetime.now(timezone.utc))
    assert left is not None and left < 60


SCHEDULE_TRIGGER = "messaging_platform_provider.triggers.schedule.MessagingPlatformScheduleTrigger"


def stored_and_rebuilt(t: Any) -> Any:
    """The trigger as the triggerer gets it back: ``serialize()``, through Airflow's serde (the trigger row), built."""
    classpath, kwargs = t.serialize()
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)(**serde().deserialize(serde().serialize(kwargs)))


def test_serialize_gives_every_argument_as_given_and_a_rebuilt_trigger_decides_alike():
    """
    The wait rules above all: a trigger rebuilt without them would decide with the defaults (Completed, Failed and
    Aborted, 5 transient errors), so a deferred wait would end where a poked one goes on, and the other way round.
    """
    given = MessagingPlatformScheduleTrigger(
        conn_id="mp_other",
        action_id="5002",
        schedule_ids=[7001, "7002"],
        account_id=1002,
        success_statuses=["Completed", "Aborted"],
        failure_statuses=["Failed"],
        max_transient_errors=0,
        poll_interval=3,
        deadline="2026-12-01T09:00:00+00:00",
        try_number=2,
        started_work={"action_id": "5002", "schedule_ids": ["7002"]},
    )
    expected = {
        "conn_id": "mp_other",
        "action_id": "5002",
        "schedule_ids": ["7001", "7002"],
        "account_id": 1002,
        "success_statuses": ["Completed", "Aborted"],
        "failure_statuses": ["Failed"],
        "max_transient_errors": 0,
        "poll_interval": 3.0,
        "deadline": "2026-12-01T09:00:00+00:00",
        "try_number": 2,
        "started_work": {"action_id": "5002", "schedule_ids": ["7002"]},
    }
    assert given.serialize() == (SCHEDULE_TRIGGER, expected)
    rebuilt = stored_and_rebuilt(given)
    assert rebuilt.serialize() == (SCHEDULE_TRIGGER, expected)
    assert rebuilt.rules == WaitRules(("Completed", "Aborted"), ("Failed",), 0)


def test_serialize_of_a_trigger_given_only_what_it_needs_writes_out_the_defaults():
    given = MessagingPlatformScheduleTrigger(conn_id=CONN_ID, action_id=5001, schedule_ids=[7001])
    expected = {
        "conn_id": CONN_ID,
        "action_id": 5001,
        "schedule_ids": ["7001"],
        "account_id": None,
        "success_statuses": ["Completed"],
        "failure_statuses": ["Failed", "Aborted"],
        "max_transient_errors": 5,
        "poll_interval": 10.0,
        "deadline": None,
        "try_number": None,
        "started_work": None,
    }
    assert given.serialize() == (SCHEDULE_TRIGGER, expected)
    assert stored_and_rebuilt(given).serialize() == (SCHEDULE_TRIGGER, expected)


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


#: ``[messaging_platform] freeze_triggerer_heap`` as the triggerer's environment sets it
FREEZE_SETTING_ENV = "AIRFLOW__MESSAGING_PLATFORM__FREEZE_TRIGGERER_HEAP"


@pytest.fixture
def triggerer_probe(platform, triggerer_probes) -> Callable[[str | None], dict[str, Any]]:
    """``probe(setting)``: what ``TRIGGERER_PROBE`` found with ``[messaging_platform] freeze_triggerer_heap`` so."""
    import os

    def probe(setting: str | None) -> dict[str, Any]:
        if setting not in triggerer_probes:
            env = {**os.environ, "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT": platform.connection_json()}
            env.pop(FREEZE_SETTING_ENV, None)
            if setting is not None:
                env[FREEZE_SETTING_ENV] = setting
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
@pytest.mark.parametrize("setting", [None, "True"], ids=["default", "turned-on"])
def test_the_first_trigger_in_a_process_freezes_the_start_up_heap(triggerer_probe, setting):
    """
    A full garbage collection over the triggerer's start-up heap (Airflow's imports: ~280,000 objects) took
    0.22-0.48 s on the event loop and the triggerer logged "async thread was blocked". With
    ``[messaging_platform] freeze_triggerer_heap`` turned on, the first trigger run freezes that heap, so
    collections skip it; by default the collector is left alone. In a fresh process, as a triggerer runs the trigger.
    """
    found = triggerer_probe(setting)
    before, after = found["frozen"]
    assert (before, found["outcome"]) == (0, "failure")  # 404: the schedule does not exist, the run ended at once
    if setting is None:
        assert after == 0
    else:
        assert after > 100_000  # Airflow's start-up heap, now skipped by every collection


# -- the first poll, the account, the log ---------------------------------------------------------------


def test_a_trigger_past_its_deadline_polls_at_once_without_spreading_its_first_poll(platform, monkeypatch):
    """
    Triggers restored together spread their first poll over up to 2 s, but never past the deadline: one whose
    deadline has passed polls at once (the spread drawn at its longest here) and reports the timeout.
    """
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    pauses: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded_sleep(seconds: float) -> None:
        pauses.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(schedule_module, "random", SimpleNamespace(uniform=lambda low, high: high))
    monkeypatch.setattr(schedule_module, "asyncio", SimpleNamespace(sleep=recorded_sleep))
    event = run_trigger(trigger([schedule["Id"]], poll_interval=600, deadline=deadline_after(-1)))
    assert event["outcome"] == "timeout"
    assert pauses == [0.0]


def test_the_schedules_are_read_in_the_account_the_trigger_names(platform):
    """Not the connection's (where the schedule has completed): an account that does not exist answers 404."""
    schedule = Lifecycle(platform).new_schedule(pending_seconds=0, processing_seconds=0, outcome="Completed")
    other = platform.seed.account_id + 7
    before = len(platform.control.requests())
    event = run_trigger(trigger([schedule["Id"]], account_id=other))
    assert event["outcome"] == "failure" and event["fatal"] is True
    path = f"/account/{other}/action/5001/schedule/{schedule['Id']}"
    assert f"GET {path} failed with HTTP 404" in event["message"]
    assert [r["path"] for r in platform.control.requests()[before:]] == [f"/api/v2.1{path}"]


def test_an_unknown_status_is_logged_once_and_the_wait_goes_on(monkeypatch, caplog):
    """The emulator never answers a ProcessStatus outside the five, so the connection's hook is a stand-in."""
    from contextlib import asynccontextmanager

    import structlog.testing

    from messaging_platform_provider.triggers import pool

    class QueuedThenCompleted:
        def __init__(self) -> None:
            self.answers = ["Queued", "Queued", "Completed"]

        async def call(self, operation: Any, **kwargs: Any) -> dict[str, Any]:
            status = self.answers.pop(0)
            return {"Id": int(kwargs["schedule_id"]), "ActionId": int(kwargs["action_id"]), "ProcessStatus": status}

    @asynccontextmanager
    async def stand_in(conn_id: str) -> Any:
        yield QueuedThenCompleted()

    monkeypatch.setattr(pool, "shared_hook", stand_in)
    monkeypatch.setattr(schedule_module, "FIRST_POLL_SPREAD", 0.0)
    with structlog.testing.capture_logs() as logs, caplog.at_level(logging.INFO):
        event = run_trigger(trigger([7001], poll_interval=0.01))
    assert event["outcome"] == "success" and event["ended_status"] == "Completed"
    # the trigger's logger: structlog's (Airflow 3.1+) or logging's (3.0)
    lines = [(entry["log_level"], entry["event"]) for entry in logs if entry["log_level"] != "debug"]
    lines += [(r.levelname.lower(), r.getMessage()) for r in caplog.records if "ProcessStatus" in r.getMessage()]
    assert lines == [("warning", "schedule 7001 of action 5001 has an unknown ProcessStatus 'Queued'; still waiting")]


# -- the start-up heap ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "setting, freezes",
    [(None, False), ("True", True), ("true", True), ("1", True), ("False", False), ("0", False), ("maybe", False)],
)
def test_the_first_trigger_of_a_process_freezes_the_heap_once_when_turned_on(monkeypatch, setting, freezes):
    """
    In-process (the fresh-process probe above cannot see a mutant): when ``[messaging_platform]
    freeze_triggerer_heap`` is true, the first call freezes what is alive then; unset, false or not a boolean, it
    freezes nothing. No later trigger of the process freezes again (that would keep the garbage of the moment for
    good, each time a trigger starts).
    """
    import gc

    from messaging_platform_provider.triggers import heap

    def collected(thing: object) -> bool:
        """Whether the garbage collector's collections still walk ``thing`` (a frozen object is left out)."""
        return any(tracked is thing for tracked in gc.get_objects())

    monkeypatch.setattr(heap, "_done", False)  # no trigger has started in this "process" yet
    if setting is None:
        monkeypatch.delenv(FREEZE_SETTING_ENV, raising=False)
    else:
        monkeypatch.setenv(FREEZE_SETTING_ENV, setting)
    start_up: list[Any] = []  # alive when the first trigger starts
    heap.freeze_startup_heap()
    later: list[Any] = []  # made afterwards, by the triggers
    heap.freeze_startup_heap()  # the next trigger
    assert collected(start_up) is not freezes
    assert collected(later)
