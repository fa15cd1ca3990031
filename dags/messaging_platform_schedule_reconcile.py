"""
Schedule management as code: the recurring schedules declared in ``data/schedules.yaml`` are reconciled against
one action's schedules on the platform. Missing ones are created, ones whose time or dates differ are updated,
recurring schedules no longer declared are deleted; one-time schedules (runs) are left alone. A second run
changes nothing.

A schedule is identified by its type and days (Weekly MON,THU; Monthly 1,15). Every entry is checked before any
request, so a typo in the file fails the first task with the field named.

Params (the trigger form, or ``airflow dags test messaging_platform_schedule_reconcile --conf '{...}'``):

- ``action_id`` (required): the id of the action whose schedules the file declares, for example a push voice
  call action of your account. **The action then runs on every declared day**: a push voice call action places
  its calls each time.

The DAG creates no action: the file declares the schedules of an action you already have, and the DAG creates,
updates and deletes only that action's recurring schedules. It has no time schedule of its own (Airflow only
allows one when every param has a default, and an action id has none that fits every account): trigger it after
each change to the file, for example from the deployment that ships the file. Uses ``messaging_platform_default``.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from airflow.sdk import Param, dag, task

SCHEDULES_FILE = Path(__file__).parent / "data" / "schedules.yaml"


@dag(
    dag_id="messaging_platform_schedule_reconcile",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    params={
        "action_id": Param(
            type="integer", minimum=1, description="The action whose recurring schedules data/schedules.yaml declares."
        ),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_schedule_reconcile() -> None:
    @task
    def load_declared() -> list[dict[str, Any]]:
        import yaml

        from messaging_platform_provider.client.schedules import schedule_body

        spec = yaml.safe_load(SCHEDULES_FILE.read_text())
        return [
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

    @task
    def reconcile(declared: list[dict[str, Any]], params: dict[str, Any] | None = None) -> dict[str, int]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
        from messaging_platform_provider.schedule_plan import plan_schedules

        hook = MessagingPlatformHook()
        action_id = int((params or {})["action_id"])
        plan = plan_schedules(declared, hook.list_schedules(action_id))
        for body in plan.create:
            hook.call("create_schedule", action_id=action_id, body=body)
        for schedule_id, body in plan.update:
            hook.call("update_schedule", action_id=action_id, schedule_id=schedule_id, body=body)
        for schedule_id in plan.delete:
            hook.delete_schedule(action_id, schedule_id)
        return plan.summary()

    reconcile(load_declared())


messaging_platform_schedule_reconcile()
