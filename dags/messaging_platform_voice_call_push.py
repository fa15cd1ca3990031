"""
Scheduled voice-call push with a deferrable wait.

1. Create a push voice call action that calls contact list 4001 from a long code and speaks a message.
2. Put a one-time schedule on it, starting now.
3. Wait, deferred to the triggerer, until the schedule's ProcessStatus is Completed (Failed or Aborted fail).
4. Summarise the run.
5. If anything failed, delete the action, which stops it and all its schedules.

Uses the connection ``messaging_platform_default``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Param, dag, task

from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeletePushVoiceCallOperator,
)
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor

ACTION_ID = "{{ ti.xcom_pull(task_ids='create_call')['Id'] }}"


@dag(
    dag_id="messaging_platform_voice_call_push",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "contact_list_id": Param(4001, type="integer"),
        "from_long_code": Param("+15125550100", type="string"),
        "message": Param("Your order has shipped. Reply STOP to opt out.", type="string"),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_voice_call_push() -> None:
    @task(multiple_outputs=True)
    def start_now() -> dict[str, str]:
        now = datetime.now(timezone.utc)
        return {"run_at": now.strftime("%H:%M:%S"), "start_from": now.isoformat()}

    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="create_call",
        channels=["{{ params.from_long_code }}"],
        contact_list_ids=["{{ params.contact_list_id }}"],
        message="{{ params.message }}",
    )
    when = start_now()
    schedule = MessagingPlatformCreateScheduleOperator(
        task_id="schedule_once",
        action_id=ACTION_ID,
        schedule_type="OneTime",
        run_at=when["run_at"],
        start_from=when["start_from"],
    )
    wait = MessagingPlatformScheduleSensor(
        task_id="wait_for_calls",
        action_id=ACTION_ID,
        schedule_id="{{ ti.xcom_pull(task_ids='schedule_once')['Id'] }}",
        deferrable=True,
        poke_interval=1,
        timeout=600,
    )

    @task
    def summarise(finished: dict[str, Any]) -> dict[str, Any]:
        return {
            "ActionId": finished["ActionId"],
            "ScheduleId": finished["Id"],
            "ProcessStatus": finished["ProcessStatus"],
            "Log": [entry.get("Message") for entry in finished.get("Logs") or []],
        }

    cleanup = MessagingPlatformDeletePushVoiceCallOperator(
        task_id="delete_call_on_failure", action_id=ACTION_ID, trigger_rule="one_failed"
    )
    call >> schedule >> wait
    summarise(wait.output)  # a leaf: if the wait fails, this is upstream_failed and the run fails
    [schedule, wait] >> cleanup


messaging_platform_voice_call_push()
