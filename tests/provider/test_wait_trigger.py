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
from collections.abc import Iterator
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest
import requests
from test_wait_helpers import PARKED, SOON, Lifecycle, WhenPolled, gets, key_of, rotate_key, schedule_path

from airflow_versions import serde
from messaging_platform_provider.client.async_client import DEFAULT_MAX_CONNECTIONS
from messaging_platform_provider.triggers.pool import clients_open
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
from messaging_platform_provider.waiting import deadline_after, seconds_left

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


async def first_event(t: MessagingPlatformScheduleTrigger) -> dict[str, Any]:
    """The trigger's first event (as the triggerer takes it), then the generator is closed."""
    events = t.run()
    try:
        event = await anext(events)
    finally:
        await events.aclose()
    payload: dict[str, Any] = event.payload
    return payload


def run_trigger(t: MessagingPlatformScheduleTrigger) -> dict[str, Any]:
    return asyncio.run(first_event(t))


# -- deadlines ------------------------------------------------------------------------------------


def test_a_deadline_already_passed_polls_once_then_reports_timeout(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    event = run_trigger(trigger([schedule["Id"]], deadline=deadline_after(-1)))
    assert event["outcome"] == "timeout" and "deadline" in event["message"]
    assert event["schedules"][str(schedule["Id"])]["ProcessStatus"] == "Pending"  # the one poll's answer
    assert len(gets(platform, 5001, schedule["Id"])) == 1
    assert clients_open() == 0


def test_the_deadline_ends_a_wait_in_progress(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    started = time.monotonic()
    event = run_trigger(trigger([schedule["Id"]], deadline=deadline_after(0.4)))
    assert event["outcome"] == "timeout"
    assert 0.35 <= time.monotonic() - started < 3
    assert len(gets(platform, 5001, schedule["Id"])) >= 3


# -- transient errors -----------------------------------------------------------------------------


def test_a_burst_of_transient_errors_is_survived(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.fault(kind="status", status=503, count=3, method="GET", path=f"{path}$")
    with WhenPolled(platform, {path: lambda: life.behave(schedule["Id"], outcome="Completed", **SOON)}):
        event = run_trigger(trigger([schedule["Id"]], max_transient_errors=5))
    assert event["outcome"] == "success"
    assert event["schedules"][str(schedule["Id"])]["ProcessStatus"] == "Completed"
    statuses = [r["status"] for r in gets(platform, 5001, schedule["Id"])]
    assert statuses[:3] == [503, 503, 503] and set(statuses[3:]) == {200}


def test_more_transient_errors_in_a_row_than_allowed_fail_the_wait(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.fault(kind="status", status=502, count=2, method="GET", path=f"{path}$")
    platform.fault(kind="drop", count=2, method="GET", path=f"{path}$")
    platform.fault(kind="retry_after", retry_after=0, count=10, method="GET", path=f"{path}$")
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
        life.behave(schedule["Id"], outcome="Completed", **SOON)

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

    schedule = Lifecycle(platform).new_schedule(pending_seconds=1.0, processing_seconds=0.1, outcome="Completed")
    original = trigger([schedule["Id"]], deadline=deadline_after(20))
    deadline = datetime.fromisoformat(original.deadline)

    async def scenario() -> tuple[dict[str, Any], MessagingPlatformScheduleTrigger, int]:
        running = asyncio.create_task(first_event(original))
        await asyncio.sleep(0.4)
        assert not running.done() and clients_open() == 1
        running.cancel()  # the triggerer stops it (restart, or the trigger moves to another triggerer)
        with pytest.raises(asyncio.CancelledError):
            await running
        assert clients_open() == 0  # the pooled client closed with its last user
        reads_before = len(gets(platform, 5001, schedule["Id"]))
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
    assert left is not None and left < 20 - 0.4


# -- the event loop: nothing blocks it, and one connection shares one client -------------------------------


def test_what_a_trigger_imports_in_the_event_loop_is_light():
    """
    The triggerer imports a trigger's module, and our triggers import their client, on its event loop: an import
    of the synchronous client (``requests`` and every API method) there blocked the loop for 0.3 s and made the
    triggerer log "async thread was blocked". In a fresh process, as the triggerer has Airflow loaded.
    """
    probe = (
        "import sys, airflow.triggers.base, airflow.sdk, httpx\n"
        "before = set(sys.modules)\n"
        "import messaging_platform_provider.triggers.schedule, messaging_platform_provider.triggers.callback\n"
        "import messaging_platform_provider.triggers.pool\n"
        "ours = {'messaging_platform_provider', 'airflow', *sys.stdlib_module_names}\n"
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] not in ours))\n"
        "print(sorted(m for m in sys.modules if m.startswith('messaging_platform_provider.client.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    third_party, ours = (eval(line) for line in out.stdout.strip().splitlines()[-2:])
    assert third_party == [], third_party  # no third-party module beyond what Airflow and httpx already brought
    assert "messaging_platform_provider.client.client" not in ours
    assert not [m for m in ours if m.startswith("messaging_platform_provider.client.api")], ours


@pytest.mark.parametrize("setting", [None, "false"], ids=["default", "turned-off"])
def test_the_first_trigger_in_a_process_freezes_the_start_up_heap(platform, setting):
    """
    A full garbage collection over the triggerer's start-up heap (Airflow's imports: ~280,000 objects) took
    0.22-0.48 s on the event loop and the triggerer logged "async thread was blocked". The first trigger run
    freezes that heap, so collections skip it. In a fresh process, as a triggerer runs the trigger.
    """
    import os

    probe = (
        "import asyncio, gc, airflow.triggers.base, airflow.sdk, httpx\n"
        "from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger\n"
        "before = gc.get_freeze_count()\n"
        "t = MessagingPlatformScheduleTrigger(conn_id='messaging_platform_default', action_id=5001,\n"
        "    schedule_ids=[999999], poll_interval=0.01)\n"
        "event = asyncio.run(anext(t.run()))\n"
        "print(before, gc.get_freeze_count(), event.payload['outcome'])\n"
    )
    env = {**os.environ, "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT": platform.connection_json()}
    env.pop("MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP", None)
    if setting is not None:
        env["MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP"] = setting
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    before, after, outcome = out.stdout.split()[-3:]
    assert (int(before), outcome) == (0, "failure")  # 404: the schedule does not exist, the run ended at once
    if setting is None:
        assert int(after) > 100_000  # Airflow's start-up heap, now skipped by every collection
    else:
        assert int(after) == 0


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
        yield SimpleNamespace(control=base_url.removesuffix("/api/v2.1") + "/_emulator")
    finally:
        proc.terminate()
        proc.wait(10)


def test_fifty_triggers_share_one_client_and_never_block_the_loop(own_process_emulator, caplog):
    life = Lifecycle(own_process_emulator)
    life.clock(scale=0)  # every schedule starts its 0.8 s run at the same emulator instant, when the clock runs
    ids = [life.new_schedule(pending_seconds=0.5, processing_seconds=0.3)["Id"] for _ in range(50)]
    assert {life.status(5001, ids[0]), life.status(5001, ids[-1])} == {"Pending"}
    requests.delete(f"{own_process_emulator.control}/requests", timeout=10).raise_for_status()
    caplog.set_level(logging.WARNING, logger="asyncio")
    # The control reads made while the triggers run share one keep-alive connection (counted below).
    control = requests.Session()

    def polls_per_schedule() -> Counter[str]:
        records = control.get(f"{own_process_emulator.control}/requests", timeout=10).json()
        return Counter(
            r["path"].rsplit("/", 1)[-1] for r in records if r["method"] == "GET" and "/schedule/" in r["path"]
        )

    async def main() -> tuple[list[dict[str, Any]], list[int]]:
        loop = asyncio.get_running_loop()
        # The pooled client is built once per connection and loop (httpx loads the CA bundle, ~30 ms here):
        # that one step is left out; every poll, backoff and event of the 50 triggers is judged.
        loop.slow_callback_duration = 60.0
        first = asyncio.create_task(first_event(trigger([ids[0]], poll_interval=0.1)))
        while clients_open() == 0 and not first.done():  # a trigger that died ends the wait: its error is raised
            await asyncio.sleep(0.002)
        loop.slow_callback_duration = 0.05
        tasks = [first] + [asyncio.create_task(first_event(trigger([s], poll_interval=0.1))) for s in ids[1:]]
        open_counts = []
        # Every trigger reads its schedule Pending while the emulator's clock stands still, however late a loaded
        # machine starts it; only then does the clock run, so each one waits through Pending and Processing.
        while len(await asyncio.to_thread(polls_per_schedule)) < len(ids):
            await asyncio.sleep(0.05)
        await asyncio.to_thread(control.post, f"{own_process_emulator.control}/clock", json={"scale": 1}, timeout=10)
        while not all(t.done() for t in tasks):
            await asyncio.sleep(0.02)
            open_counts.append(clients_open())
        return [t.result() for t in tasks], open_counts

    # A full collection of this test process's heap (Airflow, the DAG bags of other tests) would stall the loop
    # for a tenth of a second or more and be reported as a slow step of whichever trigger ran then.
    gc.collect()
    gc.freeze()
    try:
        before = life.connections()
        events, open_counts = asyncio.run(asyncio.wait_for(main(), timeout=120), debug=True)
    finally:
        gc.unfreeze()
    polls = polls_per_schedule()
    control.close()
    after = life.connections()

    slow = [r.getMessage() for r in caplog.records if r.name == "asyncio" and "took" in r.getMessage()]
    assert slow == [], slow  # debug mode logs "Executing <...> took N seconds" for each blocking step
    assert [e["outcome"] for e in events] == ["success"] * 50  # each after waiting through Pending and Processing
    assert {int(s) for e in events for s in e["schedules"]} == set(ids)
    assert set(polls) == {str(i) for i in ids} and min(polls.values()) >= 2  # read waiting, then read ended
    # One client from the first trigger's start to the last one's end (the last samples may follow its close,
    # while the last trigger's task is still finishing).
    while open_counts and open_counts[-1] == 0:
        open_counts.pop()
    assert len(open_counts) >= 5 and set(open_counts) == {1}
    assert clients_open() == 0
    # At most DEFAULT_MAX_CONNECTIONS connections for 50 triggers, +2: the control session and the GET that read
    # "after"; the control session stays open during the run, so it may add one to the peak.
    assert after["opened"] - before["opened"] <= DEFAULT_MAX_CONNECTIONS + 2
    assert after["peak_open"] <= max(before["peak_open"], before["open"] + DEFAULT_MAX_CONNECTIONS + 1)
