"""
What the wait tests share: schedules made on the emulator with a lifecycle of the test's choosing, a helper that
moves a schedule on once a waiter has seen it waiting, a key rotated mid-wait, and running a test DAG and reading
its outcome back. ``tests/waiting/test_helpers.py`` checks that they do what the wait tests assume of them.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.airflow_versions import dag_bag
from tests.support.paths import TEST_DAGS

if TYPE_CHECKING:
    from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger

ACCOUNT = "/api/v2.1/account/1001"
ONE_TIME = {"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}
#: A schedule that stays Pending until a test moves it on.
PARKED = {"pending_seconds": 3600, "processing_seconds": 0.05}
#: Ends soon after it is told to.
SOON = {"pending_seconds": 0.05, "processing_seconds": 0.1}
#: How long a test waits for something that takes milliseconds on an idle machine: generous for a loaded one.
PATIENCE = 30.0
#: A trigger run here that has sent no event after this long is stuck (its own deadline is 30 s unless told).
RUN_LIMIT = 60.0

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
    """
    Schedules and push voice calls made through the hook, their run moved on with the emulator's schedule lifecycle
    controls (``control``: ``set_schedule_behaviour``, ``set_one_schedule_behaviour``, ``set_clock``, ...;
    ``docs/emulator.md``).
    """

    def __init__(self, platform: Any) -> None:
        self.control: EmulatorControl = platform.control

    def new_schedule(self, action_id: int = 5001, **behaviour: Any) -> dict[str, Any]:
        """A one-time schedule on ``action_id``; with ``behaviour``, its timeline restarts with it."""
        schedule = MessagingPlatformHook().create_schedule(
            action_id, ONE_TIME["schedule_type"], ONE_TIME["run_at"], ONE_TIME["start_from"]
        )
        if behaviour:
            schedule = self.control.set_one_schedule_behaviour(schedule["Id"], **behaviour)
        return schedule

    def new_voice_call(self, **behaviour: Any) -> tuple[int, int]:
        """A push voice call action with one one-time schedule: (action id, schedule id)."""
        action = MessagingPlatformHook().create_push_voice_call(
            ["+15125550100"], targets=["+15555550123"], message="Wait test.", schedules=[ONE_TIME]
        )
        schedule_id = action["Schedules"][0]["Id"]
        if behaviour:
            self.control.set_one_schedule_behaviour(schedule_id, **behaviour)
        return action["Id"], schedule_id

    def status(self, action_id: Any, schedule_id: Any) -> str:
        return str(MessagingPlatformHook().get_schedule(action_id, schedule_id)["ProcessStatus"])


async def first_event(t: MessagingPlatformScheduleTrigger, limit: float = RUN_LIMIT) -> dict[str, Any]:
    """The trigger's first event (as the triggerer takes it), then the generator is closed."""
    events = t.run()
    try:
        event = await asyncio.wait_for(anext(events), limit)
    except asyncio.TimeoutError:
        raise AssertionError(f"the trigger sent no event within {limit:g} s") from None
    finally:
        await events.aclose()
    payload: dict[str, Any] = event.payload
    return payload


@contextmanager
def frozen_clock(lifecycle: Lifecycle) -> Iterator[None]:
    """The emulator's clock stands still inside (moved on only by ``set_clock(advance_seconds=...)``), then runs on."""
    lifecycle.control.set_clock(scale=0)
    try:
        yield
    finally:
        lifecycle.control.set_clock(scale=1)


def gets(platform: Any, action_id: Any, schedule_id: Any) -> list[dict[str, Any]]:
    """The recorded GETs of one schedule, oldest first."""
    path = schedule_path(action_id, schedule_id)
    return [r for r in platform.control.requests() if r["method"] == "GET" and r["path"] == path]


class WhenPolled:
    """
    Moves schedules on once a waiter has seen them waiting: the first GET of a schedule's path that the emulator
    answered 200 (so the waiter read a non-terminal status) fires that schedule's move, once. ``reads`` asks for
    more such GETs of a path first: 2 for a deferrable wait, whose worker reads once before it defers, so that the
    move comes while its trigger waits.
    """

    def __init__(self, platform: Any, moves: dict[str, Callable[[], Any]], reads: dict[str, int] | None = None) -> None:
        self.platform = platform
        self.moves = dict(moves)
        self.reads_before_move = dict(reads or {})
        self.reads: dict[str, int] = {}
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
                for record in self.platform.control.requests(since=self.since):
                    if record["status"] is None and record["fault"] not in ("drop", "commit_then_drop"):
                        break  # still being answered (recorded on arrival): read it again next round
                    self.since = max(self.since, record["seq"])
                    path = record["path"]
                    if record["method"] == "GET" and record["status"] == 200 and path in self.moves:
                        self.reads[path] = self.reads.get(path, 0) + 1
                        if path not in self.fired and self.reads[path] >= self.reads_before_move.get(path, 1):
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
    before = lifecycle.control.schedule_behaviour()
    lifecycle.control.set_schedule_behaviour(**PARKED)
    try:
        yield
    finally:
        lifecycle.control.set_schedule_behaviour(**before)


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
    """
    Run a test DAG from ``tests/integration/dags`` with ``dag.test()`` (triggers run in-process, reschedules are
    honoured).
    """
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
