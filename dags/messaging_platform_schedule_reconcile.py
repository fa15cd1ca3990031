"""
Schedule management as code: recurring schedules declared in ``data/schedules.yaml`` are reconciled against the
platform. Missing ones are created, ones whose time or dates differ are updated, recurring schedules no longer
declared are deleted; one-time schedules (runs) are left alone. A second run changes nothing.

A schedule is identified by its type and days (Weekly MON,THU; Monthly 1,15). Every entry is checked before any
request, so a typo in the file fails the first task with the field named. Uses ``messaging_platform_default``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airflow.sdk import dag, task

SCHEDULES_FILE = Path(__file__).parent / "data" / "schedules.yaml"


@dag(
    dag_id="messaging_platform_schedule_reconcile",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_schedule_reconcile() -> None:
    @task
    def load_declared() -> dict[str, Any]:
        import yaml

        from messaging_platform_provider.client.schedules import schedule_body

        spec = yaml.safe_load(SCHEDULES_FILE.read_text())
        bodies = [
            schedule_body(
                entry["type"],
                entry["run_at"],
                entry["start_from"],
                end_after=entry.get("end_after"),
                week_day=entry.get("week_day"),
                month_day=entry.get("month_day"),
            )
            for entry in spec["schedules"]
        ]
        return {"action_id": int(spec["action_id"]), "schedules": bodies}

    @task
    def reconcile(declared: dict[str, Any]) -> dict[str, int]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
        from messaging_platform_provider.schedule_plan import plan_schedules

        hook = MessagingPlatformHook()
        action_id = declared["action_id"]
        plan = plan_schedules(declared["schedules"], hook.list_schedules(action_id))
        for body in plan.create:
            hook.call("create_schedule", action_id=action_id, body=body)
        for schedule_id, body in plan.update:
            hook.call("update_schedule", action_id=action_id, schedule_id=schedule_id, body=body)
        for schedule_id in plan.delete:
            hook.delete_schedule(action_id, schedule_id)
        return plan.summary()

    reconcile(load_declared())


messaging_platform_schedule_reconcile()
