"""
``wait_for_completion`` on ``MessagingPlatformCreateScheduleOperator`` and
``MessagingPlatformCreatePushVoiceCallOperator``: in the worker, deferred, and across a retry of a waiting task.

The sync path runs each operator as the task runner calls it (``op.execute(context)``); the deferred path and the
retry run through real Airflow, the test DAG ``messaging_platform_test_wait_operators`` under ``dag.test()``.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from datetime import timedelta
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)
from messaging_platform_provider.version_compat import (
    AirflowException,
    AirflowFailException,
    AirflowSensorTimeout,
    TaskDeferred,
)
from messaging_platform_provider.waiting.deadline import DEFERRAL_BACKSTOP
from tests.support.operator_context import TaskInstanceStandIn, task_context
from tests.support.platform import module_platform
from tests.support.waiting import ONE_TIME, PARKED, Lifecycle, run_dag

DAG_ID = "messaging_platform_test_wait_operators"
SCHEDULES_5001 = "/api/v2.1/account/1001/action/5001/schedule"
VOICE_CALLS = "/api/v2.1/account/1001/action-pushvoicecall"
#: long enough for a wait to read Pending and Processing, short enough for a quick suite
QUICK = {"pending_seconds": 0.15, "processing_seconds": 0.15}
#: A run that ends a minute after it starts: long after any wait timeout a test gives, long before pytest's limit.
ENDS_IN_A_MINUTE = {"pending_seconds": 60, "processing_seconds": 0.05}
#: for the deferred waits: Pending when the worker reads once before deferring (it reads right after the create)
DEFERRED = {"pending_seconds": 1.0, "processing_seconds": 0.15}


def schedule_op(**kwargs: Any) -> MessagingPlatformCreateScheduleOperator:
    values: dict[str, Any] = {
        "task_id": "create_and_wait",
        "action_id": 5001,
        "schedule_type": "OneTime",
        "run_at": "09:00:00",
        "start_from": "2026-12-01T00:00:00",
        "wait_for_completion": True,
        "deferrable": False,
        "poll_interval": 0.05,
        "wait_timeout": 30,
    }
    values.update(kwargs)
    return MessagingPlatformCreateScheduleOperator(**values)


def voice_call_op(**kwargs: Any) -> MessagingPlatformCreatePushVoiceCallOperator:
    values: dict[str, Any] = {
        "task_id": "call_and_wait",
        "channels": ["+15125550100"],
        "targets": ["+15555550123"],
        "message": "Wait test.",
        "schedules": [ONE_TIME, {**ONE_TIME, "run_at": "10:00:00"}],
        "wait_for_completion": True,
        "deferrable": False,
        "poll_interval": 0.05,
        "wait_timeout": 30,
    }
    values.update(kwargs)
    return MessagingPlatformCreatePushVoiceCallOperator(**values)


def posts(records: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    return [r for r in records if r["method"] == "POST" and r["path"] == path]


# -- in the worker ---------------------------------------------------------------------------------------------


def test_create_schedule_waits_in_the_worker_and_returns_the_schedule_as_last_read(platform):
    platform.control.set_schedule_behaviour(**QUICK)
    op = schedule_op()
    result = op.execute(task_context(op))
    assert result["ProcessStatus"] == "Completed" and result["ActionId"] == 5001
    records = platform.control.requests()
    assert len(posts(records, SCHEDULES_5001)) == 1
    reads = [r for r in records if r["method"] == "GET" and r["path"] == f"{SCHEDULES_5001}/{result['Id']}"]
    # The create answered Pending (a run starts Pending): the Completed schedule returned is a read after it. How
    # many reads that took depends on the machine's speed; the statuses in between are the wait tests' business.
    assert reads and records.index(reads[-1]) > records.index(posts(records, SCHEDULES_5001)[0])


def test_create_voice_call_waits_for_every_schedule_of_the_new_action(platform):
    platform.control.set_schedule_behaviour(**QUICK)
    op = voice_call_op()
    result = op.execute(task_context(op))
    assert [s["ProcessStatus"] for s in result["Schedules"]] == ["Completed", "Completed"]
    assert [s["RunAt"] for s in result["Schedules"]] == ["09:00:00", "10:00:00"]
    assert len(posts(platform.control.requests(), VOICE_CALLS)) == 1
    assert result["Message"] == "Wait test."


@pytest.mark.parametrize("make", [schedule_op, voice_call_op], ids=["schedule", "voice_call"])
def test_a_failed_run_fails_the_create_and_wait_without_retry(platform, make):
    platform.control.set_schedule_behaviour(**QUICK, outcome="Failed")
    op = make()
    with pytest.raises(AirflowFailException, match="ended Failed"):
        op.execute(task_context(op))


@pytest.mark.parametrize("make", [schedule_op, voice_call_op], ids=["schedule", "voice_call"])
def test_the_wait_timeout_is_an_ordinary_failure(platform, make):
    # The run ends after a minute: a wait that did not keep its timeout would end in success then, not in a failure.
    platform.control.set_schedule_behaviour(**ENDS_IN_A_MINUTE)
    op = make(wait_timeout=0.3)
    started = time.monotonic()
    with pytest.raises(AirflowException, match="deadline") as raised:
        op.execute(task_context(op))
    assert not isinstance(raised.value, (AirflowFailException, AirflowSensorTimeout))  # Airflow may retry it
    assert time.monotonic() - started >= 0.3  # not before the timeout (a busy machine can only make it later)


class TooManyRounds(Exception):
    """Raised by ``BoundedSleep``: the wait went on far past its deadline."""


class BoundedSleep:
    """
    The worker's sleep between rounds, each pause cut to 50 ms, that stops a wait after ``rounds`` rounds: far more
    than its deadline leaves time for, so a wait that ignores its deadline fails the test instead of hanging it.
    """

    def __init__(self, rounds: int = 100) -> None:
        self.rounds = rounds
        self.pauses: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.pauses.append(seconds)
        if len(self.pauses) >= self.rounds:
            raise TooManyRounds(f"still waiting after {len(self.pauses)} rounds: the deadline was not kept")
        time.sleep(min(seconds, 0.05))


@pytest.mark.parametrize("make", [schedule_op, voice_call_op], ids=["schedule", "voice_call"])
def test_a_wait_in_the_worker_on_a_run_that_never_ends_gives_up_at_the_wait_timeout(platform, make, monkeypatch):
    from messaging_platform_provider.waiting import sync_loop

    platform.control.set_schedule_behaviour(**PARKED)  # Pending for an hour: only the wait_timeout can end the wait
    sleep = BoundedSleep()
    real_wait = sync_loop.wait_until_done
    monkeypatch.setattr(sync_loop, "wait_until_done", lambda *args, **kwargs: real_wait(*args, **kwargs, sleep=sleep))
    op = make(wait_timeout=1.5, poll_interval=0.05)
    with pytest.raises(AirflowException) as raised:
        op.execute(task_context(op))
    assert type(raised.value) is AirflowException  # an ordinary failure: Airflow retries it
    assert "deadline" in str(raised.value) and "passed while waiting" in str(raised.value)
    assert len(sleep.pauses) >= 1  # it did wait in rounds before giving up
    records = platform.control.requests()
    assert len([r for r in records if r["method"] == "POST"]) == 1
    reads = [r for r in records if r["method"] == "GET" and "/schedule/" in r["path"]]
    assert reads and {r["status"] for r in reads} == {200}


def test_without_wait_for_completion_the_create_returns_at_once(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = schedule_op(wait_for_completion=False)
    assert op.execute(task_context(op))["ProcessStatus"] == "Pending"
    assert [r["method"] for r in platform.control.requests()] == ["GET", "POST"]  # the retry-safe lookup, the create


# -- deferred, resumed the way Airflow's triggerer resumes a task ------------------------------------------------


def _resume_like_the_triggerer(op: Any, context: dict[str, Any]) -> tuple[Any, TaskDeferred]:
    """
    Defer, store and rebuild the trigger from ``serialize()``, run it, then resume the task with the stored
    ``next_kwargs`` plus ``event`` (``airflow.models.trigger``: ``next_kwargs["event"] = event.payload``).
    """
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    classpath, kwargs = deferred.value.trigger.serialize()
    module, _, name = classpath.rpartition(".")
    trigger = getattr(importlib.import_module(module), name)(**kwargs)

    async def first() -> dict[str, Any]:
        events = trigger.run()
        try:
            payload: dict[str, Any] = (await anext(events)).payload
        finally:
            await events.aclose()
        return payload

    next_kwargs = dict(deferred.value.kwargs or {})
    next_kwargs["event"] = asyncio.run(first())
    return op.resume_execution(deferred.value.method_name, next_kwargs, context), deferred.value


def test_deferred_create_schedule_resumes_with_the_schedule_as_last_read(platform):
    platform.control.set_schedule_behaviour(**DEFERRED)
    op = schedule_op(deferrable=True, wait_timeout=20)
    result, deferred = _resume_like_the_triggerer(op, task_context(op))
    assert result["ProcessStatus"] == "Completed" and result["ActionId"] == 5001
    assert deferred.method_name == "execute_complete"
    assert deferred.timeout is not None  # Airflow's timeout: the backstop after the trigger's own deadline
    assert timedelta(seconds=19) + DEFERRAL_BACKSTOP <= deferred.timeout <= timedelta(seconds=20) + DEFERRAL_BACKSTOP
    assert len(posts(platform.control.requests(), SCHEDULES_5001)) == 1


def test_deferred_create_voice_call_resumes_with_every_schedule_as_last_read(platform):
    platform.control.set_schedule_behaviour(**DEFERRED)
    op = voice_call_op(deferrable=True)
    result, deferred = _resume_like_the_triggerer(op, task_context(op))
    assert [s["ProcessStatus"] for s in result["Schedules"]] == ["Completed", "Completed"]
    assert sorted(deferred.trigger.schedule_ids) == sorted(str(s["Id"]) for s in result["Schedules"])
    assert deferred.trigger.action_id == result["Id"]


def test_deferrable_create_and_wait_returns_schedules_that_already_ended_without_deferring(platform):
    """One round in the worker before deferring: nothing left to wait for, so no trigger (apache/airflow#72716)."""
    platform.control.set_schedule_behaviour(pending_seconds=0, processing_seconds=0)
    op = voice_call_op(deferrable=True)
    result = op.execute(task_context(op))  # a TaskDeferred would fail the test
    assert [s["ProcessStatus"] for s in result["Schedules"]] == ["Completed", "Completed"]


def test_deferrable_create_and_wait_fails_on_a_schedule_that_already_failed_without_retry(platform):
    platform.control.set_schedule_behaviour(pending_seconds=0, processing_seconds=0, outcome="Failed")
    op = schedule_op(deferrable=True)
    with pytest.raises(AirflowFailException, match="ended Failed"):
        op.execute(task_context(op))


def test_a_retry_resumed_with_an_earlier_tries_event_adopts_the_call_and_waits_again(platform):
    """Airflow 3.0 resumes a retry with the event that ended the earlier try (apache/airflow#56704)."""
    platform.control.set_schedule_behaviour(**DEFERRED)
    op = voice_call_op(deferrable=True)
    context = task_context(op)
    with pytest.raises(TaskDeferred) as first:
        op.execute(context)
    stale = {"outcome": "failure", "message": "try 1 failed", "schedules": {}, "try_number": 1}
    retry = {**context, "ti": TaskInstanceStandIn(**{**vars(context["ti"]), "try_number": 2})}
    with pytest.raises(TaskDeferred) as again:
        op.resume_execution("execute_complete", {**(first.value.kwargs or {}), "event": stale}, retry)
    assert again.value.trigger.action_id == first.value.trigger.action_id  # adopted, not created again
    assert (first.value.trigger.try_number, again.value.trigger.try_number) == (1, 2)
    assert len(posts(platform.control.requests(), VOICE_CALLS)) == 1


# -- through Airflow: deferred under dag.test(), and a retry of a waiting task --------------------------------


@pytest.fixture(scope="module")
def operators_dag(emulator_server, dag_runs) -> SimpleNamespace:
    """
    Run the operators DAG once; every schedule takes 3.15 s (the ``*_retry`` tasks' first tries wait 0.15 s). The
    margin is wide on purpose: a first try whose trigger first polls after the schedule already ended succeeds in
    one try, and on a loaded machine ``dag.test()`` can start a trigger more than half a second late.
    """
    with module_platform(emulator_server) as platform:
        life = Lifecycle(platform)
        holder = MessagingPlatformHook().create_push_voice_call(
            ["+15125550100"], targets=["+15555550100"], message="Holds the retried schedule."
        )
        life.control.set_schedule_behaviour(pending_seconds=3.0, processing_seconds=0.15)
        outcome = run_dag(DAG_ID, {"schedule_action": 5001, "retry_action": holder["Id"]})
        hook = MessagingPlatformHook()
        calls = hook.list_push_voice_calls()
        return SimpleNamespace(
            outcome=outcome,
            records=platform.control.requests(),
            holder=holder["Id"],
            holder_schedules=hook.list_schedules(holder["Id"]),
            retried_calls=[c for c in calls if c["Message"].startswith("Wait test, retried.")],
        )


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_create_and_wait_in_the_worker_succeeds_under_airflow(operators_dag):
    outcome = operators_dag.outcome
    assert outcome.tries["schedule_sync"] == ("success", 1)
    assert outcome.tries["voice_call_sync"] == ("success", 1)
    assert outcome.xcoms["schedule_sync"]["ProcessStatus"] == "Completed"
    assert [s["ProcessStatus"] for s in outcome.xcoms["voice_call_sync"]["Schedules"]] == ["Completed"]


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("task_id", ["schedule_deferred", "voice_call_deferred"])
def test_deferred_create_and_wait_succeeds_under_dag_test(operators_dag, task_id):
    outcome = operators_dag.outcome
    assert outcome.tries[task_id] == ("success", 1)
    xcom = outcome.xcoms[task_id]
    schedules = [xcom] if task_id.startswith("schedule") else xcom["Schedules"]
    assert [s["ProcessStatus"] for s in schedules] == ["Completed"]


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_a_retried_waiting_schedule_task_waits_on_the_schedule_it_created(operators_dag):
    """First try: create, then the wait times out (0.15 s); the retry finds that schedule and waits it out."""
    assert operators_dag.outcome.tries["schedule_retry"] == ("success", 2)
    path = f"/api/v2.1/account/1001/action/{operators_dag.holder}/schedule"
    assert len(posts(operators_dag.records, path)) == 1  # the retry did not create another
    assert len(operators_dag.holder_schedules) == 1
    (schedule,) = operators_dag.holder_schedules
    assert operators_dag.outcome.xcoms["schedule_retry"]["Id"] == schedule["Id"]
    assert operators_dag.outcome.xcoms["schedule_retry"]["ProcessStatus"] == "Completed"
    reads = [r for r in operators_dag.records if r["method"] == "GET" and r["path"] == f"{path}/{schedule['Id']}"]
    assert len(reads) >= 2  # both tries waited on it


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_a_retried_deferred_voice_call_task_waits_on_the_action_it_created(operators_dag):
    retried = [p for p in posts(operators_dag.records, VOICE_CALLS) if p["json"]["Message"] == "Wait test, retried."]
    assert len(retried) == 1 and len(operators_dag.retried_calls) == 1  # the retry did not create another
    (call,) = operators_dag.retried_calls
    assert operators_dag.outcome.tries["voice_call_retry"] == ("success", 2)
    assert operators_dag.outcome.xcoms["voice_call_retry"]["Id"] == call["Id"]
    assert [s["ProcessStatus"] for s in operators_dag.outcome.xcoms["voice_call_retry"]["Schedules"]] == ["Completed"]
    # Before Airflow 3.3 the retry found the call through a Variable; the task's success deleted it again.
    assert operators_dag.outcome.new_task_state_variables == set()


@pytest.mark.xdist_group("dag_runs")
def test_the_variable_backed_task_state_outlives_a_failed_try_and_is_cleared(emulator_server, dag_runs):
    """What retry-safe creates keep between tries before Airflow 3.3, exercised on every version."""
    outcome = run_dag("messaging_platform_test_task_state", {})
    assert outcome.tries["remember"] == ("success", 2)
    assert outcome.xcoms["remember"] == {"earlier": [1], "after_clear": None}
    assert outcome.new_task_state_variables == set()


def test_a_deferring_create_and_wait_pushes_its_ids_before_it_defers(platform):
    """What the web app link (``operators/links.py``) reads while the task is deferred."""
    platform.control.set_schedule_behaviour(**DEFERRED)
    op = voice_call_op(deferrable=True, schedules=[ONE_TIME])
    context = task_context(op)
    with pytest.raises(TaskDeferred):
        op.execute(context)
    pushed = context["ti"].pushed
    assert str(pushed["Id"]) == op.started.action_id
    assert pushed["ScheduleId"] == pushed["ScheduleIds"][0]
