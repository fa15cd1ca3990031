"""
Scheduled voice-call push with a deferrable wait.

1. Create a push voice call action that calls every contact of a contact list from a long code and speaks a
   message. **On a real account this places real calls**, one to each contact of the list.
2. Put a one-time schedule on it, starting now.
3. Wait, deferred to the triggerer, until the schedule's ProcessStatus is Completed (Failed or Aborted fail).
4. Summarise the run.
5. Clean up: unless the calls completed, delete the action, which stops it and all its schedules.

Params (the trigger form, or ``airflow dags test messaging_platform_voice_call_push --conf '{...}'``):

- ``contact_list_id`` (required): the id of one of your account's contact lists; everyone on it is called.
- ``from_long_code`` (required): a voice-capable long code of your account, in E.164 form (``+15125550100``).
- ``message``: the text spoken on the calls.

Created by the DAG: the push voice call action and its schedule. A run whose calls completed keeps them (the
schedule's log is the record of the calls); any other run deletes the action. The clean-up task runs whatever
happened upstream (``trigger_rule="all_done"``); when the action was never created there is nothing to delete.
Uses the connection ``messaging_platform_default``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Param, dag, task

from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor

E164 = r"^\+[1-9][0-9]{6,14}$"


@dag(
    dag_id="messaging_platform_voice_call_push",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "contact_list_id": Param(
            type="integer", minimum=1, description="One of your account's contact lists: everyone on it is called."
        ),
        "from_long_code": Param(
            type="string", pattern=E164, description="A voice-capable long code of your account, e.g. +15125550100."
        ),
        "message": Param("Your order has shipped. Reply STOP to opt out.", type="string", minLength=1),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_voice_call_push() -> None:
    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="create_call",
        channels=["{{ params.from_long_code }}"],
        contact_list_ids=["{{ params.contact_list_id }}"],
        message="{{ params.message }}",
    )
    # run_once_at="now": a OneTime schedule at the moment the task runs, in the platform's time zone. The
    # ``output["Id"]`` arguments pass the ids on and make the edges create_call >> schedule_once >> wait_for_calls.
    schedule = MessagingPlatformCreateScheduleOperator(
        task_id="schedule_once", action_id=call.output["Id"], run_once_at="now"
    )
    wait = MessagingPlatformScheduleSensor(
        task_id="wait_for_calls",
        action_id=call.output["Id"],
        schedule_id=schedule.output["Id"],
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

    @task(trigger_rule="all_done")
    def delete_call_on_failure(created: dict[str, Any] | None, finished: dict[str, Any] | None) -> bool:
        """Runs whatever happened upstream. A task that failed left None: no action made, or calls not completed."""
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        if created is None or finished is not None:
            return False  # nothing was created, or the calls completed: nothing to stop
        return MessagingPlatformHook().delete_push_voice_call(created["Id"])

    summarise(wait.output)  # a leaf: if the wait fails, this is upstream_failed and the run fails
    delete_call_on_failure(call.output, wait.output)


messaging_platform_voice_call_push()
