"""
The notifier in each place Airflow takes one, built and serialized as the DAG processor does: task and DAG
callbacks, a Deadline Alert's callback (Airflow 3.1+), a human-in-the-loop operator's ``notifiers=`` (3.1+).
Running them: test_notifier_in_dag_runs.py (task callbacks) and test_voice_call_notifier.py (a DAG callback's
call, the Deadline Alert's through Airflow's callback trigger).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from airflow.sdk import DAG, task

from messaging_platform_provider.notifications import MessagingPlatformVoiceCallNotifier
from tests.support.airflow_versions import AIRFLOW_VERSION, providers_listing

AIRFLOW_3_1_PLUS = AIRFLOW_VERSION.release[:2] >= (3, 1)
NOTIFIER_PATH = "messaging_platform_provider.notifications.voice_call.MessagingPlatformVoiceCallNotifier"
CALL = {"channels": "+15125550100", "targets": ["+15550100007"]}


def serialized_round_trip(dag: DAG) -> tuple[dict[str, Any], Any]:
    """The DAG as the DAG processor stores it (JSON), and as the scheduler reads it back."""
    from airflow.serialization import serialized_objects

    serializer = getattr(serialized_objects, "DagSerialization", None) or serialized_objects.SerializedDAG
    data = json.loads(json.dumps(serializer.to_dict(dag)))
    return data, serializer.from_dict(data)


def new_dag(**kwargs: Any) -> DAG:
    return DAG("on_call", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), **kwargs)


def test_task_and_dag_failure_callbacks_take_it():
    on_call = MessagingPlatformVoiceCallNotifier(**CALL)
    with new_dag(on_failure_callback=on_call, default_args={"on_failure_callback": on_call}) as dag:

        @task
        def load() -> None: ...

        load()
    data, back = serialized_round_trip(dag)
    assert dag.task_dict["load"].on_failure_callback == [on_call]
    assert data["dag"]["has_on_failure_callback"] is True
    assert list(back.task_dict) == ["load"]


@pytest.mark.skipif(not AIRFLOW_3_1_PLUS, reason=f"Airflow {AIRFLOW_VERSION} has no Deadline Alerts (3.1+)")
def test_a_deadline_alert_takes_it_as_an_async_callback_that_survives_serialization():
    from airflow.sdk.definitions.deadline import AsyncCallback, DeadlineAlert, DeadlineReference

    callback = AsyncCallback(MessagingPlatformVoiceCallNotifier, kwargs=CALL)  # checks that it can be awaited
    alert = DeadlineAlert(
        reference=DeadlineReference.DAGRUN_QUEUED_AT, interval=timedelta(minutes=30), callback=callback
    )
    data, _ = serialized_round_trip(new_dag(deadline=alert))
    (stored,) = data["dag"]["deadline"]
    stored = stored.get("__var", stored)  # Airflow 3.1 wraps it
    data = stored["callback"]["__data__"]  # what the triggerer imports (3.4 adds the callback's queue)
    assert (data["path"], data["kwargs"]) == (NOTIFIER_PATH, CALL)


@pytest.mark.skipif(not AIRFLOW_3_1_PLUS, reason=f"Airflow {AIRFLOW_VERSION} has no human-in-the-loop operators (3.1+)")
def test_a_human_in_the_loop_operator_takes_it_in_notifiers():
    from airflow.providers.standard.operators.hitl import ApprovalOperator

    on_call = MessagingPlatformVoiceCallNotifier(**CALL, message="{{ task.subject }}: your approval is needed.")
    with new_dag() as dag:
        ApprovalOperator(task_id="approve", subject="Ship the nightly load", notifiers=on_call)
    data, back = serialized_round_trip(dag)
    assert dag.task_dict["approve"].notifiers == [on_call]
    assert back.task_dict["approve"].task_type == "ApprovalOperator"


def test_airflow_providers_notifications_lists_ours(tmp_path):
    """``airflow providers notifications``, as a user runs it, in an Airflow home of its own."""
    listed = providers_listing("notifications", tmp_path)
    assert "messaging_platform_provider.notifications.voice_call.MessagingPlatformVoiceCallNotifier" in listed
