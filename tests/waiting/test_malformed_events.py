"""
A trigger event the task cannot read (not a mapping, no outcome, an outcome it does not know) fails the task with an
ordinary, retried failure that names what is wrong: it never counts as success, however much of a successful event
it carries. For every place a task resumes from an event: the create-and-wait operators, both sensors, and
``waiting.outcome.conclude`` which the schedule waits share. No network: the event is handed to the task directly.
Well-formed events, for contrast; and what ``deferrable=None`` means, for the sensors and the create-and-wait
operators.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)
from messaging_platform_provider.sensors import MessagingPlatformCallbackSensor, MessagingPlatformScheduleSensor
from messaging_platform_provider.version_compat import AirflowException, AirflowFailException, AirflowSensorTimeout
from messaging_platform_provider.waiting.outcome import conclude, default_deferrable

COMPLETED = {"7001": {"Id": 7001, "ActionId": 5001, "ProcessStatus": "Completed"}}
CALLBACK = {"seq": 1, "transaction_id": "t-1", "callback_type": 3, "account_id": 1001, "payload": {"Answer": "Yes"}}

#: event -> the words that must name the problem in the task's error
MALFORMED: list[Any] = [
    pytest.param({}, "the trigger's event has no outcome: {}", id="empty"),
    pytest.param(
        {"message": "schedule 7001 ended Completed", "schedules": COMPLETED, "callback": CALLBACK, "try_number": 1},
        "the trigger's event has no outcome",
        id="no outcome, all else of a success",
    ),
    pytest.param(
        {"outcome": None, "schedules": COMPLETED, "callback": CALLBACK}, "the trigger's event has no outcome", id="None"
    ),
    pytest.param(
        {"outcome": "done", "schedules": COMPLETED, "callback": CALLBACK},
        "the trigger's event has an unknown outcome 'done'",
        id="unknown outcome",
    ),
    pytest.param(
        {"outcome": "SUCCESS", "schedules": COMPLETED, "callback": CALLBACK},
        "the trigger's event has an unknown outcome 'SUCCESS'",
        id="outcome in capitals",
    ),
    pytest.param(["success", COMPLETED], "the trigger's event is not a mapping: ['success'", id="a list"),
    pytest.param("success", "the trigger's event is not a mapping: 'success'", id="a string"),
    pytest.param(None, "the trigger's event is not a mapping: None", id="None event"),
]


def context() -> dict[str, Any]:
    ti = SimpleNamespace(dag_id="d", task_id="t", run_id="r1", map_index=-1, try_number=1, xcom_push=lambda **_: None)
    return {"ti": ti, "task_state_store": None}


def fails_naming(resume: Any, problem: str) -> None:
    """``resume()`` raised the ordinary (retried) task failure, naming ``problem``; it returned nothing."""
    with pytest.raises(AirflowException) as raised:
        result = resume()
        pytest.fail(f"a malformed event ended the task with success: {result!r}")
    assert type(raised.value) is AirflowException, raised.value  # not a timeout, not a failure without retry
    assert problem in str(raised.value)


@pytest.mark.parametrize(("event", "problem"), MALFORMED)
def test_conclude_fails_a_malformed_event(event, problem):
    fails_naming(lambda: conclude(event), problem)
    fails_naming(lambda: conclude(event, sensor=True), problem)


@pytest.mark.parametrize(("event", "problem"), MALFORMED)
def test_a_create_and_wait_operator_resumed_with_a_malformed_event_fails(event, problem):
    schedule = MessagingPlatformCreateScheduleOperator(
        task_id="t", action_id=5001, run_once_at="2026-12-01T09:00:00", wait_for_completion=True, deferrable=True
    )
    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="t", channels=["+15125550100"], targets=["+15125550111"], message="Hi", wait_for_completion=True
    )
    result = {"Id": 7001, "ActionId": 5001, "ProcessStatus": "Pending"}
    fails_naming(lambda: schedule.execute_complete(context(), event, result=result), problem)
    fails_naming(lambda: schedule.execute_complete(context(), event), problem)  # resumed without the kwargs
    fails_naming(lambda: call.execute_complete(context(), event, result={"Id": 5002, "Schedules": []}), problem)


@pytest.mark.parametrize(("event", "problem"), MALFORMED)
def test_the_schedule_sensor_resumed_with_a_malformed_event_fails(event, problem):
    sensor = MessagingPlatformScheduleSensor(task_id="t", action_id=5001, schedule_id=7001, deferrable=True)
    fails_naming(lambda: sensor.execute_complete(context(), event), problem)


@pytest.mark.parametrize(
    ("event", "problem"),
    [
        *MALFORMED,
        # the callback sensor's trigger never fails a wait: it finds the callback or times out
        pytest.param(
            {"outcome": "failure", "callback": CALLBACK},
            "the trigger's event has an unknown outcome 'failure' (not one of success, timeout)",
            id="failure",
        ),
    ],
)
def test_the_callback_sensor_resumed_with_a_malformed_event_fails(event, problem):
    sensor = MessagingPlatformCallbackSensor(task_id="t", callback_type="Dialog", deferrable=True)
    fails_naming(lambda: sensor.execute_complete(context(), event), problem)


def test_well_formed_events_still_end_the_task_as_before():
    """The contrast: the same readers with the outcomes they know."""
    assert conclude({"outcome": "success", "schedules": COMPLETED}) == COMPLETED
    with pytest.raises(AirflowSensorTimeout, match=r"^deadline 2026-12-01T09:00:00\+00:00 passed while waiting$"):
        conclude(
            {"outcome": "timeout", "message": "deadline 2026-12-01T09:00:00+00:00 passed while waiting"}, sensor=True
        )
    with pytest.raises(AirflowException) as raised:  # a failure without a message still says what ended the wait
        conclude({"outcome": "failure", "schedules": {}})
    assert type(raised.value) is AirflowException
    assert str(raised.value) == "the wait failed: {'outcome': 'failure', 'schedules': {}}"
    with pytest.raises(AirflowFailException, match="^schedule 7001 ended Failed$"):
        conclude({"outcome": "failure", "message": "schedule 7001 ended Failed", "ended_status": "Failed"})
    sensor = MessagingPlatformCallbackSensor(task_id="t", callback_type="Dialog", deferrable=True)
    assert sensor.execute_complete(context(), {"outcome": "success", "callback": CALLBACK}) == CALLBACK
    schedule_sensor = MessagingPlatformScheduleSensor(task_id="t", action_id=5001, schedule_id=7001, deferrable=True)
    assert schedule_sensor.execute_complete(context(), {"outcome": "success", "schedules": COMPLETED}) == {
        "Id": 7001,
        "ActionId": 5001,
        "ProcessStatus": "Completed",
    }


@pytest.mark.parametrize(("setting", "expected"), [(None, False), ("true", True), ("false", False)])
def test_deferrable_none_follows_airflows_default_deferrable(monkeypatch, setting, expected):
    """``deferrable=None``: ``[operators] default_deferrable``, as for Airflow's own operators (False when unset)."""
    if setting is None:
        monkeypatch.delenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", raising=False)
    else:
        monkeypatch.setenv("AIRFLOW__OPERATORS__DEFAULT_DEFERRABLE", setting)
    assert default_deferrable() is expected
    assert MessagingPlatformScheduleSensor(task_id="t", action_id=5001, schedule_id=7001).deferrable is expected
    # and the create-and-wait operators, built without ``deferrable``
    schedule = MessagingPlatformCreateScheduleOperator(
        task_id="t", action_id=5001, run_once_at="2026-12-01T09:00:00", wait_for_completion=True
    )
    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="t", channels=["+15125550100"], targets=["+15125550111"], message="Hi", wait_for_completion=True
    )
    assert (schedule.deferrable, call.deferrable) == (expected, expected)
