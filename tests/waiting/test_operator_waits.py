"""
What a create-and-wait operator (``wait_for_completion=True``) hands to its wait, and what it ends with: the task's
account, statuses, transient error limit, poll interval and timeout, on the worker's path and on the triggerer's;
the task's log for what the wait warns of; the task's return value when it resumes with the deferral's kwargs (as
the triggerer resumes it) and with the event alone (as ``dag.test()`` does). And a deadline that has come ends a wait
after the round that found it. Against the emulator, the trigger rebuilt from ``serialize()`` as the triggerer does.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from structlog.testing import capture_logs

from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)
from messaging_platform_provider.version_compat import AirflowException, TaskDeferred
from messaging_platform_provider.waiting import deadline as deadline_module, sync_loop
from messaging_platform_provider.waiting.deadline import DEFERRAL_BACKSTOP
from messaging_platform_provider.waiting.decision import Outcome, WaitRules, Watch
from tests.support.operator_context import task_context
from tests.support.waiting import ONE_TIME, PARKED, SOON, first_event

ACCOUNT_PATHS = "/api/v2.1/account/1001/"
#: the run of a schedule that a wait in the worker sees end within a second
QUICK = {"pending_seconds": 0.15, "processing_seconds": 0.15}


def schedule_op(**kwargs: Any) -> MessagingPlatformCreateScheduleOperator:
    values: dict[str, Any] = {
        "task_id": "create_and_wait",
        "action_id": 5001,
        **ONE_TIME,
        "wait_for_completion": True,
        "deferrable": False,
        "poll_interval": 0.05,
        "wait_timeout": 30,
    }
    return MessagingPlatformCreateScheduleOperator(**{**values, **kwargs})


def voice_call_op(**kwargs: Any) -> MessagingPlatformCreatePushVoiceCallOperator:
    values: dict[str, Any] = {
        "task_id": "call_and_wait",
        "channels": ["+15125550100"],
        "targets": ["+15555550123"],
        "message": "Operator wait test.",
        "schedules": [ONE_TIME],
        "wait_for_completion": True,
        "deferrable": True,
        "poll_interval": 0.05,
        "wait_timeout": 30,
    }
    return MessagingPlatformCreatePushVoiceCallOperator(**{**values, **kwargs})


def deferral(op: Any, context: dict[str, Any]) -> TaskDeferred:
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    return deferred.value


def triggers_event(deferred: TaskDeferred) -> dict[str, Any]:
    """The trigger rebuilt from what Airflow stores (``serialize()``), run to its first event."""
    classpath, kwargs = deferred.trigger.serialize()
    module, _, name = classpath.rpartition(".")
    trigger = getattr(importlib.import_module(module), name)(**kwargs)
    return asyncio.run(first_event(trigger))


def move_on(platform: Any, deferred: TaskDeferred) -> None:
    """The parked schedules the trigger waits on run to their end now."""
    for schedule_id in deferred.trigger.schedule_ids:
        platform.control.set_one_schedule_behaviour(int(schedule_id), **SOON)


# -- what the wait is given ------------------------------------------------------------------------------------------


def test_under_default_deferrable_a_create_and_wait_defers_unless_told_not_to(platform, monkeypatch):
    """``[operators] default_deferrable = True`` (as Airflow's own operators read it) and no ``deferrable``."""
    monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", "true")
    platform.control.set_schedule_behaviour(**PARKED)
    op = MessagingPlatformCreateScheduleOperator(task_id="t", action_id=5001, **ONE_TIME, wait_for_completion=True)
    assert deferral(op, task_context(op)).method_name == "execute_complete"
    assert schedule_op(deferrable=False).deferrable is False


def test_the_triggerer_waits_with_the_tasks_own_settings(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = schedule_op(
        deferrable=True,
        account_id="1001",
        poll_interval=0.25,
        wait_timeout=45,
        success_statuses=["Completed", "Aborted"],
        failure_statuses=["Failed"],
        max_transient_errors=2,
    )
    before = datetime.now(timezone.utc)
    deferred = deferral(op, task_context(op))
    after = datetime.now(timezone.utc)
    _, stored = deferred.trigger.serialize()
    # the deadline is fixed when the wait starts, wait_timeout from then; Airflow's own timeout is the backstop, a
    # while after it, so that the trigger's event (not Airflow's timeout) ends the wait
    deadline = datetime.fromisoformat(stored.pop("deadline"))
    assert before + timedelta(seconds=45) <= deadline <= after + timedelta(seconds=45)
    assert deferred.timeout is not None
    assert timedelta(seconds=44) + DEFERRAL_BACKSTOP <= deferred.timeout <= timedelta(seconds=45) + DEFERRAL_BACKSTOP
    schedule_ids = stored.pop("schedule_ids")
    assert len(schedule_ids) == 1 and schedule_ids[0].isdigit()
    assert stored == {
        "conn_id": "messaging_platform_default",
        "action_id": 5001,
        "account_id": 1001,
        "success_statuses": ["Completed", "Aborted"],
        "failure_statuses": ["Failed"],
        "max_transient_errors": 2,
        "poll_interval": 0.25,
        "try_number": 1,
        "started_work": {"action_id": "5001", "schedule_ids": schedule_ids},  # what on_kill stops: the schedule
    }


@pytest.mark.parametrize("wait_timeout", [None, ""], ids=["none", "a template rendered empty"])
def test_without_a_wait_timeout_the_triggerer_waits_without_deadline_every_ten_seconds(platform, wait_timeout):
    platform.control.set_schedule_behaviour(**PARKED)
    op = MessagingPlatformCreateScheduleOperator(  # no poll_interval: the operator's default
        task_id="t", action_id=5001, **ONE_TIME, wait_for_completion=True, deferrable=True, wait_timeout=wait_timeout
    )
    deferred = deferral(op, task_context(op))
    _, stored = deferred.trigger.serialize()
    assert (stored["deadline"], deferred.timeout) == (None, None)
    assert stored["poll_interval"] == 10.0


@pytest.mark.parametrize("deferrable", [False, True], ids=["in the worker", "deferred"])
def test_every_read_of_a_wait_goes_to_the_tasks_account(platform, monkeypatch, deferrable):
    # The connection's default account is one the key cannot reach: only the task's account_id reads the schedule.
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(extra={"account_id": 42}))
    platform.control.set_schedule_behaviour(**(PARKED if deferrable else QUICK))
    op = schedule_op(account_id="1001", deferrable=deferrable)
    context = task_context(op)
    if deferrable:
        deferred = deferral(op, context)
        move_on(platform, deferred)
        event = triggers_event(deferred)
        result = op.resume_execution(deferred.method_name, {**(deferred.kwargs or {}), "event": event}, context)
    else:
        result = op.execute(context)
    assert result["ProcessStatus"] == "Completed"
    paths = [r["path"] for r in platform.control.requests()]
    reads = [p for p in paths if p.endswith(f"/schedule/{result['Id']}")]
    assert len(reads) >= 1 + deferrable  # the worker's round before deferring, then the trigger's
    assert all(p.startswith(ACCOUNT_PATHS) for p in paths), paths


def test_the_tasks_statuses_decide_a_wait_in_the_worker(platform):
    """An aborted run that this task counts as success: the wait ends with it, not at the timeout."""
    platform.control.set_schedule_behaviour(**QUICK, outcome="Aborted")
    op = schedule_op(success_statuses=["Completed", "Aborted"], failure_statuses=["Failed"], wait_timeout=5)
    assert op.execute(task_context(op))["ProcessStatus"] == "Aborted"


def test_the_tasks_transient_error_limit_bounds_a_wait_in_the_worker(platform):
    """``max_transient_errors=0``: the first 503 while waiting fails the try (Airflow may retry it)."""
    platform.control.set_schedule_behaviour(**PARKED)
    platform.control.add_fault(kind="status", status=503, count=1, method="GET", path=r"/schedule/\d+$")
    op = schedule_op(max_transient_errors=0, wait_timeout=5)
    with pytest.raises(AirflowException) as raised:
        op.execute(task_context(op))
    assert type(raised.value) is AirflowException
    assert "1 transient errors in a row (limit 0)" in str(raised.value)


class Answers:
    """The API a wait polls, answering the ProcessStatus values given in turn (the emulator never answers one the
    provider does not know)."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers

    def get_schedule(self, action_id: Any, schedule_id: Any, *, account_id: Any = None) -> dict[str, Any]:
        return {"Id": int(schedule_id), "ActionId": int(action_id), "ProcessStatus": self.answers.pop(0)}


@pytest.mark.parametrize("deferrable", [False, True], ids=["in the worker", "before deferring"])
def test_an_unknown_status_is_written_to_the_task_log_and_the_wait_goes_on(platform, monkeypatch, caplog, deferrable):
    answers = ["Queued"] if deferrable else ["Queued", "Completed"]
    monkeypatch.setattr(sync_loop, "polling_hook", lambda conn_id: Answers(answers))
    op = schedule_op(deferrable=deferrable)
    with capture_logs() as events:
        if deferrable:
            deferred = deferral(op, task_context(op))  # still waiting: on in the triggerer
            schedule_id = deferred.trigger.schedule_ids[0]
        else:
            result = op.execute(task_context(op))
            assert result["ProcessStatus"] == "Completed"
            schedule_id = str(result["Id"])
    # the task's logger: structlog's (Airflow 3.1+) or logging's (3.0)
    warnings = [e["event"] for e in events if e.get("log_level") == "warning"]
    warnings += [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    warnings = [w for w in warnings if "ProcessStatus" in w]  # not Airflow's own warnings
    assert warnings == [f"schedule {schedule_id} of action 5001 has an unknown ProcessStatus 'Queued'; still waiting"]


# -- what the task ends with when it resumes -------------------------------------------------------------------------


def test_a_resumed_wait_returns_the_call_as_created_without_reading_it_again(platform):
    """Resumed with the deferral's kwargs, as the triggerer resumes it: what the task returns was read already."""
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op()
    context = task_context(op)
    deferred = deferral(op, context)
    move_on(platform, deferred)
    event = triggers_event(deferred)
    seen = len(platform.control.requests())
    result = op.resume_execution(deferred.method_name, {**(deferred.kwargs or {}), "event": event}, context)
    assert platform.control.requests()[seen:] == []
    assert result["Message"] == "Operator wait test."
    assert [s["ProcessStatus"] for s in result["Schedules"]] == ["Completed"]
    assert context["ti"].pushed == {"Id": result["Id"], "ScheduleIds": [event_id(event)], "ScheduleId": event_id(event)}


def event_id(event: dict[str, Any]) -> int:
    ((schedule_id, schedule),) = event["schedules"].items()
    assert int(schedule_id) == schedule["Id"]
    return int(schedule["Id"])


@pytest.mark.parametrize("make", [schedule_op, voice_call_op], ids=["schedule", "voice_call"])
def test_resumed_with_the_event_alone_the_task_returns_what_it_made_as_last_read(platform, make):
    """``dag.test()`` resumes a deferred task with the event only, without the deferral's kwargs."""
    platform.control.set_schedule_behaviour(**PARKED)
    op = make(deferrable=True)
    context = task_context(op)
    deferred = deferral(op, context)
    move_on(platform, deferred)
    event = triggers_event(deferred)
    result = op.resume_execution(deferred.method_name, {"event": event}, context)
    schedule_id = event_id(event)
    if make is schedule_op:
        assert (result["Id"], result["ActionId"], result["ProcessStatus"]) == (schedule_id, 5001, "Completed")
        assert context["ti"].pushed == {"Id": schedule_id}
    else:
        assert result["Id"] == event["action_id"] and result["Message"] == "Operator wait test."
        assert [(s["Id"], s["ProcessStatus"]) for s in result["Schedules"]] == [(schedule_id, "Completed")]
        assert context["ti"].pushed == {"Id": result["Id"], "ScheduleIds": [schedule_id], "ScheduleId": schedule_id}


# -- the deadline ----------------------------------------------------------------------------------------------------


class TooManyRounds(Exception):
    """The wait polled again after its deadline had come."""


def test_a_wait_ends_with_a_timeout_in_the_round_that_finds_its_deadline_come(monkeypatch):
    """On a clock that stands still at the deadline instant, the wait times out there, without another round."""
    now = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)

    class Frozen(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return now

    monkeypatch.setattr(deadline_module, "datetime", Frozen)
    api = Answers(["Pending"] * 3)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) > 1:
            raise TooManyRounds(f"polled {len(pauses)} times past the deadline")

    step = sync_loop.wait_until_done(
        api,
        Watch(WaitRules(), 5001, [7001]),
        account_id=None,
        poll_interval=10,
        deadline=now.isoformat(),
        log=logging.getLogger(__name__),
        sleep=sleep,
    )
    assert (step.outcome, step.message) == (Outcome.TIMEOUT, "deadline 2026-12-01T09:00:00+00:00 passed while waiting")
    assert (pauses, api.answers) == ([], ["Pending"] * 2)  # one round, no pause
