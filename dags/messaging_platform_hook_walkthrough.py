"""
Walk through the hook, one TaskFlow task per step: create a campaign and rename it; create a push voice call
action, put a one-time schedule on it and wait until the schedule's ProcessStatus is terminal; then delete what
the run created.

**On a real account this places one real voice call**, from ``from_long_code`` to ``call_to``, when the schedule
runs: give a number you own.

Params (the trigger form, or ``airflow dags test messaging_platform_hook_walkthrough --conf '{...}'``):

- ``from_long_code`` (required): a voice-capable long code of your account, in E.164 form (``+15125550100``);
  the call is placed from it.
- ``call_to`` (required): the phone number, in E.164 form, that the one call goes to.
- ``message``: the text spoken on the call.
- ``wait_timeout_seconds``: how long to wait for the schedule to end (default 300).

Created and deleted by the DAG: the campaign and the push voice call action (deleting the action stops it and
removes its schedule). Nothing that existed before the run is changed.

``clean_up`` runs whatever happened upstream (``trigger_rule="all_done"``). A task that failed leaves ``None``
where its result would be, so ``clean_up`` deletes only what was created, and a delete of something already
gone succeeds: a retried ``clean_up`` succeeds too. ``report`` comes last and runs only when every step
succeeded, so a failed step fails the run even though ``clean_up`` succeeded.
Uses the connection ``messaging_platform_default``.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Param, dag, task

TERMINAL = {"Completed", "Failed", "Aborted"}
E164 = r"^\+[1-9][0-9]{6,14}$"


@dag(
    dag_id="messaging_platform_hook_walkthrough",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "from_long_code": Param(
            type="string", pattern=E164, description="A voice-capable long code of your account, e.g. +15125550100."
        ),
        "call_to": Param(
            type="string", pattern=E164, description="The phone number the one test call goes to: one you own."
        ),
        "message": Param("This is a test call from Airflow. Goodbye.", type="string", minLength=1),
        "wait_timeout_seconds": Param(300, type="integer", minimum=1),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_hook_walkthrough() -> None:
    def this_task() -> Any:
        """The running task instance's retry-safety token, for the hook's creates (docs/retry-safe-creates.md)."""
        from airflow.sdk import get_current_context

        from messaging_platform_provider.tasks.state import once_for_task

        return once_for_task(get_current_context())

    @task
    def create_campaign(run_id: str | None = None) -> int:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        # once=: a retry of this task finds the campaign an earlier try made instead of making a second one.
        campaign = MessagingPlatformHook().create_campaign(
            name="Walkthrough campaign", campaign_type="Basic", user_data=f"airflow:{run_id}", once=this_task()
        )
        return int(campaign["Id"])

    @task
    def rename_campaign(campaign_id: int) -> dict[str, Any]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        hook.update_campaign(campaign_id, name="Walkthrough campaign (renamed)")
        campaign = hook.get_campaign(campaign_id)
        return {"Id": campaign["Id"], "Name": campaign["Name"], "StatusId": campaign["StatusId"]}

    @task
    def create_call_action(params: dict[str, Any] | None = None) -> int:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        params = params or {}
        action = MessagingPlatformHook().create_push_voice_call(
            channels=[params["from_long_code"]],
            targets=[params["call_to"]],
            message=params["message"],
            once=this_task(),
        )
        return int(action["Id"])

    @task
    def schedule_once(action_id: int) -> dict[str, Any]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        # A OneTime schedule at the moment this runs, in the platform's time zone.
        schedule = hook.create_schedule(action_id, run_once_at="now", once=this_task())
        return {"ActionId": action_id, "ScheduleId": schedule["Id"], "ProcessStatus": schedule["ProcessStatus"]}

    @task
    def wait_for_schedule(schedule: dict[str, Any], params: dict[str, Any] | None = None) -> str:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        timeout_seconds = int((params or {})["wait_timeout_seconds"])
        deadline = time.monotonic() + timeout_seconds
        while True:
            status = hook.get_schedule(schedule["ActionId"], schedule["ScheduleId"])["ProcessStatus"]
            if status in TERMINAL:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"schedule {schedule['ScheduleId']} still {status} after {timeout_seconds} s")
            time.sleep(1)
        if status != "Completed":
            raise RuntimeError(f"schedule {schedule['ScheduleId']} ended {status}")
        return str(status)

    @task(trigger_rule="all_done")
    def clean_up(campaign_id: int | None, action_id: int | None) -> dict[str, bool]:
        """Delete what this run created; an upstream task that failed left None instead of an id."""
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        deleted = {}
        if action_id is not None:
            deleted["action_deleted"] = hook.delete_push_voice_call(action_id)  # and its schedule
        if campaign_id is not None:
            deleted["campaign_deleted"] = hook.delete_campaign(campaign_id)
        return deleted

    @task
    def report(renamed: dict[str, Any], status: str, deleted: dict[str, bool]) -> dict[str, Any]:
        return {"Campaign": renamed, "ScheduleStatus": status, "Deleted": deleted}

    campaign_id = create_campaign()
    renamed = rename_campaign(campaign_id)
    action_id = create_call_action()
    status = wait_for_schedule(schedule_once(action_id))
    deleted = clean_up(campaign_id, action_id)
    [renamed, status] >> deleted
    report(renamed, status, deleted)


messaging_platform_hook_walkthrough()
