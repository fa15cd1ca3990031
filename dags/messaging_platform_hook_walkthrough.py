"""
Walk through the hook against the platform (or the emulator): create a campaign, rename it, put a one-time
schedule on an action, wait until the schedule's ProcessStatus is terminal, then clean up.

Uses the connection ``messaging_platform_default``; the action to schedule comes from the ``action_id``
param (5001 is the action the emulator seeds). The cleanup task runs whatever happened upstream, and its
deletes succeed when a resource is already gone, so a retried run cleans up too.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Param, dag, task

TERMINAL = {"Completed", "Failed", "Aborted"}


@dag(
    dag_id="messaging_platform_hook_walkthrough",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={"action_id": Param(5001, type="integer", minimum=1)},
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_hook_walkthrough() -> None:
    @task
    def create_campaign(run_id: str | None = None) -> int:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        campaign = MessagingPlatformHook().create_campaign(
            name="Walkthrough campaign", campaign_type="Basic", user_data=f"airflow:{run_id}"
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
    def schedule_once(params: dict[str, Any] | None = None) -> dict[str, Any]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        action_id = int((params or {})["action_id"])
        start = datetime.now(timezone.utc)
        schedule = MessagingPlatformHook().create_schedule(
            action_id, "OneTime", run_at=start.strftime("%H:%M:%S"), start_from=start
        )
        return {"ActionId": action_id, "ScheduleId": schedule["Id"], "ProcessStatus": schedule["ProcessStatus"]}

    @task
    def wait_for_schedule(schedule: dict[str, Any], timeout_seconds: float = 120.0) -> str:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        deadline = time.monotonic() + timeout_seconds
        while True:
            status = hook.get_schedule(schedule["ActionId"], schedule["ScheduleId"])["ProcessStatus"]
            if status in TERMINAL:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"schedule {schedule['ScheduleId']} still {status} after {timeout_seconds} s")
            time.sleep(0.2)
        if status != "Completed":
            raise RuntimeError(f"schedule {schedule['ScheduleId']} ended {status}")
        return status

    @task(trigger_rule="all_done")
    def clean_up(campaign_id: int, schedule: dict[str, Any]) -> dict[str, bool]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook()
        return {
            "schedule_deleted": hook.delete_schedule(schedule["ActionId"], schedule["ScheduleId"]),
            "campaign_deleted": hook.delete_campaign(campaign_id),
        }

    campaign_id = create_campaign()
    schedule = schedule_once()
    waited = wait_for_schedule(schedule)
    renamed = rename_campaign(campaign_id)
    [waited, renamed] >> clean_up(campaign_id, schedule)


messaging_platform_hook_walkthrough()
