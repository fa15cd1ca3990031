"""
``stop_on_kill`` of the create-and-wait operators (push voice calls, schedules), against the emulator: a task that
Airflow kills stops what it created and nothing else, in the worker (``on_kill``, which Airflow calls on a kill
and when ``execution_timeout`` passes) and while deferred (the trigger's ``on_kill``, and the execution deadline
the trigger watches, since Airflow does not time a deferred task).

The trigger's ``on_kill`` reads the task's state through the triggerer's supervisor, which only a running
triggerer has: here that one lookup (``triggers.task_state.task_state``) answers as the execution API would; the
system test kills deferred and running tasks in a real deployment (scenario 7).
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor
from messaging_platform_provider.triggers import task_state
from messaging_platform_provider.version_compat import (
    AirflowException,
    AirflowTaskTimeout,
    TaskDeferred,
)
from tests.operators.test_wait_for_completion import schedule_op, voice_call_op
from tests.support.operator_context import task_context
from tests.support.waiting import ONE_TIME, PARKED, SOON, Lifecycle, first_event, wait_until


def deletes(platform: Any) -> list[str]:
    return [r["path"] for r in platform.control.requests() if r["method"] == "DELETE"]


def action_exists(action_id: Any) -> bool:
    return any(a["Id"] == action_id for a in MessagingPlatformHook().list_push_voice_calls())


def schedule_ids(action_id: Any) -> set[Any]:
    return {s["Id"] for s in MessagingPlatformHook().list_schedules(action_id)}


def started_at(op: Any) -> dict[str, Any]:
    """A task context whose try started now (``execution_timeout`` counts from the try's start)."""
    context = task_context(op)
    context["ti"].start_date = datetime.now(timezone.utc)
    return context


class RunningTask:
    """``op.execute`` in a thread, as the worker runs it, until the wait has begun; ``kill()`` as Airflow kills."""

    def __init__(self, op: Any) -> None:
        self.op = op
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        wait_until(lambda: op.started is not None, "the create to return")

    def _run(self) -> None:
        try:
            self.op.execute(task_context(self.op))
        except BaseException as exc:  # the wait ends in an error once its work is gone
            self.error = exc

    def kill(self) -> None:
        self.op.on_kill()
        self.thread.join(timeout=30)
        assert not self.thread.is_alive(), "the wait went on after its work was stopped"


def test_a_killed_voice_call_task_deletes_its_action_and_no_other(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    other, _ = Lifecycle(platform).new_voice_call()  # not this task's
    task = RunningTask(voice_call_op())
    action_id = task.op.started.action_id
    assert action_exists(int(action_id))
    task.kill()
    assert not action_exists(int(action_id))
    assert action_exists(other)
    assert deletes(platform) == [f"/api/v2.1/account/1001/action-pushvoicecall/{action_id}"]
    assert isinstance(task.error, AirflowException)  # the wait then read a 404: the task fails, as killed


def test_a_killed_schedule_task_deletes_its_schedule_and_nothing_else_of_the_action(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    before = schedule_ids(5001)
    task = RunningTask(schedule_op())
    (created,) = task.op.started.schedule_ids
    task.kill()
    assert schedule_ids(5001) == before  # the schedules that were there stay; the task's one is gone
    assert deletes(platform) == [f"/api/v2.1/account/1001/action/5001/schedule/{created}"]


def test_a_schedule_adopted_by_its_definition_is_not_the_tasks_and_is_left_alone(platform):
    """A retry-safe schedule create adopts an existing schedule of the same definition: it may be anyone's."""
    platform.control.set_schedule_behaviour(**PARKED)
    theirs = Lifecycle(platform).new_schedule()  # the definition schedule_op sends, made by someone else
    op = schedule_op(wait_timeout=1)
    with pytest.raises(AirflowException):  # the wait ends at its wait_timeout
        op.execute(task_context(op))
    assert op.started is None
    op.on_kill()
    assert deletes(platform) == []
    assert theirs["Id"] in schedule_ids(5001)


def test_work_that_has_ended_is_not_stopped(platform):
    """A kill that comes after the call ran its course deletes nothing (it would remove a finished call)."""
    platform.control.set_schedule_behaviour(**SOON)
    op = voice_call_op(schedules=[ONE_TIME])
    op.execute(task_context(op))  # waits until the schedule is Completed
    op.on_kill()
    assert deletes(platform) == []
    assert action_exists(int(op.started.action_id))


def test_stop_on_kill_false_leaves_the_work_running(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    task = RunningTask(voice_call_op(stop_on_kill=False, wait_timeout=1))
    task.kill()  # the wait ends at its own wait_timeout
    assert deletes(platform) == []
    assert action_exists(int(task.op.started.action_id))


def deferred_trigger(op: Any, context: dict[str, Any]) -> tuple[Any, TaskDeferred]:
    """Defer, then rebuild the trigger from ``serialize()``, as the triggerer does."""
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    classpath, kwargs = deferred.value.trigger.serialize()
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)(**kwargs), deferred.value


def kill_deferred(trigger: Any, context: dict[str, Any], monkeypatch: Any, state: str | None) -> None:
    """The triggerer's user-action cancel: ``on_kill`` with the task now in ``state``."""

    async def state_now(task_instance: Any) -> str | None:
        assert task_instance is context["ti"]
        return state

    monkeypatch.setattr(task_state, "task_state", state_now)
    trigger.task_instance = context["ti"]
    asyncio.run(trigger.on_kill())


@pytest.mark.parametrize("state", ["failed", "success", None])
def test_a_deferred_voice_call_killed_by_a_user_deletes_its_action(platform, monkeypatch, state):
    platform.control.set_schedule_behaviour(**PARKED)
    other, _ = Lifecycle(platform).new_voice_call()
    op = voice_call_op(deferrable=True)
    context = task_context(op)
    trigger, _ = deferred_trigger(op, context)
    kill_deferred(trigger, context, monkeypatch, state)  # marked failed, marked success, cleared
    assert not action_exists(int(op.started.action_id))
    assert action_exists(other)


def test_a_deferred_schedule_killed_by_a_user_deletes_only_its_schedule(platform, monkeypatch):
    platform.control.set_schedule_behaviour(**PARKED)
    before = schedule_ids(5001)
    op = schedule_op(deferrable=True)
    context = task_context(op)
    trigger, _ = deferred_trigger(op, context)
    kill_deferred(trigger, context, monkeypatch, "failed")
    assert schedule_ids(5001) == before
    assert len(deletes(platform)) == 1


def test_a_trigger_moved_to_another_triggerer_stops_nothing(platform, monkeypatch):
    """apache/airflow#73454: Airflow 3.3 calls on_kill on the triggerer that lost the trigger; the task still waits."""
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True)
    context = task_context(op)
    trigger, _ = deferred_trigger(op, context)
    kill_deferred(trigger, context, monkeypatch, "deferred")
    assert deletes(platform) == []
    assert action_exists(int(op.started.action_id))


def test_a_trigger_cancelled_after_its_wait_ended_stops_nothing(platform, monkeypatch):
    """
    apache/airflow#73454 after the fact: the trigger moved, its new triggerer saw the call end and the task
    succeeded; the old triggerer's late on_kill reads "success" and must not delete the finished call.
    """
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, schedules=[ONE_TIME])
    context = task_context(op)
    trigger, _ = deferred_trigger(op, context)
    (schedule_id,) = trigger.schedule_ids
    platform.control.set_one_schedule_behaviour(int(schedule_id), **SOON)
    lifecycle = Lifecycle(platform)
    wait_until(lambda: lifecycle.status(op.started.action_id, schedule_id) == "Completed", "the call to end")
    kill_deferred(trigger, context, monkeypatch, "success")
    assert deletes(platform) == []


def test_a_task_state_that_cannot_be_read_stops_nothing(platform):
    """Outside a triggerer the lookup fails: the work is never stopped on a guess."""
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True)
    context = task_context(op)
    trigger, _ = deferred_trigger(op, context)
    trigger.task_instance = context["ti"]
    asyncio.run(trigger.on_kill())
    assert deletes(platform) == []


def test_a_deferred_task_with_stop_on_kill_false_hands_its_trigger_nothing_to_stop(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, stop_on_kill=False)
    trigger, _ = deferred_trigger(op, task_context(op))
    assert trigger.started_work is None


def resume(op: Any, context: dict[str, Any]) -> Any:
    """Defer, run the rebuilt trigger to its event, resume as the triggerer resumes the task."""
    trigger, deferred = deferred_trigger(op, context)
    next_kwargs = {**(deferred.kwargs or {}), "event": asyncio.run(first_event(trigger))}
    return op.resume_execution(deferred.method_name, next_kwargs, context)


def test_a_deferred_wait_past_execution_timeout_fails_as_timed_out_and_stops_its_work(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, wait_timeout=600, execution_timeout=timedelta(seconds=1))
    context = started_at(op)
    trigger, deferred = deferred_trigger(op, context)
    # the trigger watches the execution deadline, the earlier of the two
    assert datetime.fromisoformat(trigger.deadline) <= context["ti"].start_date + timedelta(seconds=1)
    next_kwargs = {**(deferred.kwargs or {}), "event": asyncio.run(first_event(trigger))}
    with pytest.raises(AirflowTaskTimeout, match="execution_timeout"):
        op.resume_execution(deferred.method_name, next_kwargs, context)
    assert not action_exists(int(op.started.action_id))


def test_execution_timeout_with_stop_on_kill_false_fails_and_leaves_the_work(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, stop_on_kill=False, execution_timeout=timedelta(seconds=1))
    with pytest.raises(AirflowTaskTimeout):
        resume(op, started_at(op))
    assert deletes(platform) == []


def test_a_wait_timeout_before_the_execution_timeout_is_the_ordinary_timeout(platform):
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, wait_timeout=0.5, execution_timeout=timedelta(minutes=10))
    with pytest.raises(AirflowException) as failed:
        resume(op, started_at(op))
    assert not isinstance(failed.value, AirflowTaskTimeout)
    assert deletes(platform) == []  # a wait_timeout stops the waiting, not the call


def test_a_wait_timeout_that_fired_is_not_taken_for_the_execution_timeout_when_the_resume_comes_late(platform):
    """Which deadline fired comes with the deferral, not from the clock: a resume queued past execution_timeout."""
    platform.control.set_schedule_behaviour(**PARKED)
    op = voice_call_op(deferrable=True, wait_timeout=0.3, execution_timeout=timedelta(seconds=1))
    context = started_at(op)
    trigger, deferred = deferred_trigger(op, context)
    assert deferred.kwargs["timed_by"] == "wait"
    event = asyncio.run(first_event(trigger))
    wait_until(lambda: datetime.now(timezone.utc) > context["ti"].start_date + timedelta(seconds=1.2), "a late resume")
    with pytest.raises(AirflowException) as failed:
        op.resume_execution(deferred.method_name, {**deferred.kwargs, "event": event}, context)
    assert not isinstance(failed.value, AirflowTaskTimeout)
    assert deletes(platform) == []


def test_a_deferred_sensor_past_execution_timeout_fails_as_timed_out(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    op = MessagingPlatformScheduleSensor(
        task_id="wait",
        action_id=5001,
        schedule_id=schedule["Id"],
        deferrable=True,
        poke_interval=0.05,
        timeout=600,
        execution_timeout=timedelta(seconds=1),
    )
    with pytest.raises(AirflowTaskTimeout, match="execution_timeout"):
        resume(op, started_at(op))
