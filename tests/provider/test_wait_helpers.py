"""
What the wait tests share: the emulator's schedule lifecycle controls, a helper that moves a schedule on once a
waiter has seen it waiting, and reading a DAG run's outcome back. The tests here check that the controls do what
the other ``test_wait_*`` modules assume of them.
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import requests

from airflow_versions import dag_bag
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

TEST_DAGS = Path(__file__).resolve().parents[1] / "dags"
ACCOUNT = "/api/v2.1/account/1001"
ONE_TIME = {"ScheduleTypeId": 2, "RunAt": "09:00:00", "StartFrom": "2026-12-01T00:00:00"}
#: A schedule that stays Pending until a test moves it on.
PARKED = {"pending_seconds": 3600, "processing_seconds": 0.05}
#: Ends soon after it is told to.
SOON = {"pending_seconds": 0.05, "processing_seconds": 0.1}
#: How long a test waits for something that takes milliseconds on an idle machine: generous for a loaded one.
PATIENCE = 30.0

T = TypeVar("T")


def wait_until(condition: Callable[[], T], what: str, timeout: float = PATIENCE, interval: float = 0.02) -> T:
    """Poll ``condition`` until it returns a true value, and return that; fail naming ``what`` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"still not the case after {timeout:g} s: {what} (last seen: {value!r})")
        time.sleep(interval)


def schedule_path(action_id: Any, schedule_id: Any) -> str:
    return f"{ACCOUNT}/action/{action_id}/schedule/{schedule_id}"


class Lifecycle:
    """The emulator's schedule lifecycle controls (``docs/emulator.md``)."""

    def __init__(self, platform: Any) -> None:
        self.platform = platform
        self.control = platform.control

    def default(self, **behaviour: Any) -> dict[str, Any]:
        response = requests.post(f"{self.control}/schedule-behaviour", json=behaviour, timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def behave(self, schedule_id: Any, **behaviour: Any) -> dict[str, Any]:
        response = requests.post(f"{self.control}/schedules/{schedule_id}/behaviour", json=behaviour, timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def abort(self, schedule_id: Any) -> dict[str, Any]:
        response = requests.post(f"{self.control}/schedules/{schedule_id}/abort", timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def clock(self, **settings: Any) -> dict[str, Any]:
        """``scale`` (0 freezes the emulator clock) and/or ``advance_seconds``."""
        response = requests.post(f"{self.control}/clock", json=settings, timeout=10)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result

    def connections(self) -> dict[str, int]:
        response = requests.get(f"{self.control}/connections", timeout=10)
        response.raise_for_status()
        result: dict[str, int] = response.json()
        return result

    def new_schedule(self, action_id: int = 5001, **behaviour: Any) -> dict[str, Any]:
        """A one-time schedule on ``action_id``; with ``behaviour``, its timeline restarts with it."""
        schedule = MessagingPlatformHook().create_schedule(
            action_id, ONE_TIME["ScheduleTypeId"], ONE_TIME["RunAt"], ONE_TIME["StartFrom"]
        )
        if behaviour:
            schedule = self.behave(schedule["Id"], **behaviour)
        return schedule

    def new_voice_call(self, **behaviour: Any) -> tuple[int, int]:
        """A push voice call action with one one-time schedule: (action id, schedule id)."""
        action = MessagingPlatformHook().create_push_voice_call(
            ["+15125550100"], targets=["+15555550123"], message="Wait test.", schedules=[ONE_TIME]
        )
        schedule_id = action["Schedules"][0]["Id"]
        if behaviour:
            self.behave(schedule_id, **behaviour)
        return action["Id"], schedule_id

    def status(self, action_id: Any, schedule_id: Any) -> str:
        return str(MessagingPlatformHook().get_schedule(action_id, schedule_id)["ProcessStatus"])


@contextmanager
def frozen_clock(lifecycle: Lifecycle) -> Iterator[None]:
    """The emulator's clock stands still inside (moved on only by ``clock(advance_seconds=...)``), then runs again."""
    lifecycle.clock(scale=0)
    try:
        yield
    finally:
        lifecycle.clock(scale=1)


def gets(platform: Any, action_id: Any, schedule_id: Any) -> list[dict[str, Any]]:
    """The recorded GETs of one schedule, oldest first."""
    path = schedule_path(action_id, schedule_id)
    return [r for r in platform.requests() if r["method"] == "GET" and r["path"] == path]


class WhenPolled:
    """
    Moves schedules on once a waiter has seen them waiting: the first GET of a schedule's path that the emulator
    answered 200 (so the waiter read a non-terminal status) fires that schedule's move, once.
    """

    def __init__(self, platform: Any, moves: dict[str, Callable[[], Any]]) -> None:
        self.platform = platform
        self.moves = dict(moves)
        self.fired: dict[str, float] = {}
        #: pooled trigger clients open in this process when the move fired: 1 while a trigger is waiting on it
        self.clients_open_at_fire: dict[str, int] = {}
        self.errors: list[BaseException] = []
        #: scans of the request record done so far, and the last request ``seq`` they covered
        self.rounds = 0
        self.since = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="when-polled", daemon=True)

    def _run(self) -> None:
        from messaging_platform_provider.triggers.pool import clients_open

        while not self._stop.is_set() and len(self.fired) < len(self.moves):
            try:
                response = requests.get(f"{self.platform.control}/requests", params={"since": self.since}, timeout=10)
                response.raise_for_status()
                for record in response.json():
                    if record["status"] is None and record["fault"] not in ("drop", "commit_then_drop"):
                        break  # still being answered (recorded on arrival): read it again next round
                    self.since = max(self.since, record["seq"])
                    path = record["path"]
                    if record["method"] == "GET" and record["status"] == 200 and path in self.moves:
                        if path not in self.fired:
                            self.clients_open_at_fire[path] = clients_open()
                            self.moves[path]()
                            self.fired[path] = time.monotonic()
                self.rounds += 1
            except BaseException as exc:  # reported by __exit__, in the test's thread
                self.errors.append(exc)
                return
            self._stop.wait(0.02)

    @property
    def watching(self) -> bool:
        """Whether the mover still scans the record (it stops once every move has fired)."""
        return self._thread.is_alive()

    def __enter__(self) -> WhenPolled:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self._stop.set()
        self._thread.join(10)
        if self.errors:
            raise self.errors[0]


@contextmanager
def parked_by_default(lifecycle: Lifecycle) -> Iterator[None]:
    """Schedules created inside stay Pending (until moved on); the emulator's defaults come back afterwards."""
    before = lifecycle.default()
    lifecycle.default(**PARKED)
    try:
        yield
    finally:
        lifecycle.default(**before)


class ModulePlatform:
    """The ``platform`` fixture's view of the emulator, for a module-scoped fixture (that one is per test)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.seed = server.seed
        self.base_url = server.base_url
        self.control = server.url + "/_emulator"

    def fault(self, **rule: Any) -> None:
        requests.post(f"{self.control}/faults", json=rule, timeout=10).raise_for_status()

    def requests(self) -> list[dict[str, Any]]:
        response = requests.get(f"{self.control}/requests", timeout=10)
        response.raise_for_status()
        records: list[dict[str, Any]] = response.json()
        return records


@contextmanager
def module_platform(server: Any) -> Iterator[ModulePlatform]:
    """A reset emulator with ``messaging_platform_default`` pointing at it, as the ``platform`` fixture makes."""
    import pytest

    handle = ModulePlatform(server)
    requests.post(f"{handle.control}/reset", timeout=10).raise_for_status()
    conn = {
        "conn_type": "messaging_platform",
        "login": handle.seed.api_key,
        "password": handle.seed.api_secret,
        "extra": {"base_url": handle.base_url, "account_id": handle.seed.account_id},
    }
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", json.dumps(conn))
        yield handle


@dataclass
class DagOutcome:
    """
    What a ``dag.test()`` run left: per task its (state, try_number), XCom and number of reschedules, and the
    task-state Variables it added (the state store's stand-in before Airflow 3.3, deleted when a task succeeds).
    """

    tries: dict[str, tuple[str, int]]
    xcoms: dict[str, Any]
    reschedules: dict[str, int]
    seconds: float
    new_task_state_variables: set[str]


def task_state_variables() -> set[str]:
    from airflow.models.variable import Variable
    from airflow.utils.session import create_session
    from sqlalchemy import select

    with create_session() as session:
        keys = session.scalars(select(Variable.key).where(Variable.key.startswith("messaging_platform_task_state_")))
        return set(keys)


def run_dag(dag_id: str, conf: dict[str, Any]) -> DagOutcome:
    """Run a test DAG from ``tests/dags`` with ``dag.test()`` (triggers run in-process, reschedules are honoured)."""
    from airflow.models.taskreschedule import TaskReschedule
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session
    from sqlalchemy import func, select

    dag = dag_bag(str(TEST_DAGS)).get_dag(dag_id)
    assert dag is not None, dag_id
    variables_before = task_state_variables()
    started = time.monotonic()
    run = dag.test(run_conf=conf)
    seconds = time.monotonic() - started
    tis = run.get_task_instances()
    with create_session() as session:
        rows = session.execute(XComModel.get_many(run_id=run.run_id, dag_ids=dag_id, key="return_value")).scalars()
        xcoms = {row.task_id: XComModel.deserialize_value(row) for row in rows}
        reschedules = {
            ti.task_id: session.scalar(select(func.count()).where(TaskReschedule.ti_id == ti.id)) or 0 for ti in tis
        }
    tries = {ti.task_id: (ti.state, ti.try_number) for ti in tis}
    return DagOutcome(tries, xcoms, reschedules, seconds, task_state_variables() - variables_before)


# -- the controls behave as the wait tests assume ------------------------------------------------------


def test_a_one_time_schedule_goes_pending_processing_then_its_outcome(platform):
    life = Lifecycle(platform)
    # On a clock that only the test moves, every status is seen, however slowly the machine answers.
    with frozen_clock(life):
        schedule = life.new_schedule(pending_seconds=0.15, processing_seconds=0.15, outcome="Failed")
        seen = [life.status(5001, schedule["Id"])]
        for seconds in (0.1, 0.1, 0.2):  # 0.1 s: still Pending; 0.2 s: Processing; 0.4 s: ended
            life.clock(advance_seconds=seconds)
            seen.append(life.status(5001, schedule["Id"]))
    assert seen == ["Pending", "Pending", "Processing", "Failed"]
    # On the running clock (as the wait tests use it) the run moves on by itself, through the same statuses.
    order = ["Pending", "Processing", "Failed"]
    schedule = life.new_schedule(pending_seconds=0.05, processing_seconds=0.05, outcome="Failed")
    seen = [schedule["ProcessStatus"]]

    def ended() -> bool:
        seen.append(life.status(5001, schedule["Id"]))
        return seen[-1] == "Failed"

    wait_until(ended, "the schedule's run ended Failed on the running clock")
    assert seen[0] == "Pending" and set(seen) <= set(order) and seen == sorted(seen, key=order.index), seen


def test_a_parked_schedule_stays_pending_until_moved_on_or_aborted(platform):
    life = Lifecycle(platform)
    with frozen_clock(life):
        with parked_by_default(life):
            first = life.new_schedule()
            second = life.new_schedule()
        assert life.default()["pending_seconds"] != PARKED["pending_seconds"]  # the defaults came back
        life.clock(advance_seconds=3000)  # 50 emulator minutes: the defaults would have ended a run in a second
        assert life.status(5001, first["Id"]) == life.status(5001, second["Id"]) == "Pending"
        life.behave(first["Id"], pending_seconds=0, processing_seconds=0, outcome="Completed")
        assert life.abort(second["Id"])["ProcessStatus"] == "Aborted"
        assert life.status(5001, first["Id"]) == "Completed"
        assert life.status(5001, second["Id"]) == "Aborted"


def test_deleting_a_voice_call_makes_its_schedule_routes_answer_404(platform):
    from messaging_platform_provider.client import MessagingPlatformApiError

    life = Lifecycle(platform)
    action_id, schedule_id = life.new_voice_call(**PARKED)
    assert life.status(action_id, schedule_id) == "Pending"
    MessagingPlatformHook().delete_push_voice_call(action_id)
    try:
        life.status(action_id, schedule_id)
    except MessagingPlatformApiError as exc:
        assert exc.status == 404
    else:
        raise AssertionError("the schedule of a deleted action is still readable")


def test_when_polled_fires_each_move_once_after_the_first_answered_read(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    calls: list[int] = []
    # The mover thread may be slow to run on a loaded machine: every wait on it is a minute long.
    with WhenPolled(platform, {path: lambda: calls.append(life.behave(schedule["Id"], **SOON)["Id"])}) as mover:
        wait_until(lambda: mover.rounds >= 1 or mover.errors, "the mover scanned the request record", 60)
        assert calls == []  # it has seen every request made so far, and nobody read the schedule yet
        assert life.status(5001, schedule["Id"]) == "Pending"  # the first read
        wait_until(lambda: calls or mover.errors, "the mover fired after the first read", 60)
        life.status(5001, schedule["Id"])  # a second read, which must not fire the move again
        second = gets(platform, 5001, schedule["Id"])[-1]["seq"]
        wait_until(lambda: not mover.watching or mover.since >= second, "the mover saw the second read", 60)
    assert calls == [schedule["Id"]] and list(mover.fired) == [path]
    wait_until(lambda: life.status(5001, schedule["Id"]) == "Completed", "the moved schedule ended Completed")


def rotate_key(platform: Any, *, write_to_connection: bool) -> dict[str, Any]:
    """What the rotation operator does, in short: a new key, written into the connection, the old key revoked."""
    hook = MessagingPlatformHook()
    old = next(k for k in hook.list_api_keys() if k["Key"] == platform.seed.api_key)
    new = hook.create_api_key(key_label="rotated mid-wait")
    if write_to_connection:
        conn = json.loads(platform.connection_json())
        conn.update(login=new["Key"], password=new["Secret"])
        os.environ["AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"] = json.dumps(conn)
    hook.revoke_api_key(old["Id"])
    return new


def key_of(record: dict[str, Any]) -> str:
    """The API key a recorded request was sent with (HTTP Basic user name)."""
    scheme, _, value = record["headers"]["authorization"].partition(" ")
    assert scheme == "Basic"
    return base64.b64decode(value).decode().partition(":")[0]
