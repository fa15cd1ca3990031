"""
Schedule management as code: the recurring schedules declared in ``data/schedules.yaml`` are reconciled against
one action's schedules on the platform. Missing ones are created, ones whose time or dates differ are updated,
recurring schedules no longer declared are deleted; one-time schedules (runs) are left alone. A second run
changes nothing.

1. Read the action's schedules (``MessagingPlatformListSchedulesOperator``).
2. Read the file and plan (``schedule_plan.plan_schedules``): every entry is checked before any change, so a typo
   in the file fails this task with the entry and the field named (``schedules[1].week_day``).
3. Create, update and delete with the schedule operators, mapped with ``.expand_kwargs`` over the plan's lists:
   one task instance per schedule, named after it in the UI, each retried on its own. A list with nothing to do
   leaves its mapped task skipped.

A schedule is identified by its type and days (Weekly MON,THU; Monthly 1,15).

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

from messaging_platform_provider.operators import (
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeleteScheduleOperator,
    MessagingPlatformListSchedulesOperator,
    MessagingPlatformUpdateScheduleOperator,
)

SCHEDULES_FILE = Path(__file__).parent / "data" / "schedules.yaml"
ACTION_ID = "{{ params.action_id }}"


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
    existing = MessagingPlatformListSchedulesOperator(task_id="list_schedules", action_id=ACTION_ID)

    @task
    def plan(existing: list[dict[str, Any]]) -> dict[str, Any]:
        """The plan: operator keyword arguments to create, update and delete with, and the ids left unchanged."""
        import yaml

        from messaging_platform_provider.client.schedule_plan import plan_schedules

        declared = yaml.safe_load(SCHEDULES_FILE.read_text())["schedules"]
        return plan_schedules(declared, existing).to_dict()

    @task
    def changes(planned: dict[str, Any], kind: str) -> list[dict[str, Any]]:
        """One of the plan's lists as a return value: Airflow maps only over a task's return value."""
        return planned[kind]

    planned = plan(existing.output)
    MessagingPlatformCreateScheduleOperator.partial(task_id="create_schedule", action_id=ACTION_ID).expand_kwargs(
        changes.override(task_id="to_create")(planned, "create")
    )
    MessagingPlatformUpdateScheduleOperator.partial(task_id="update_schedule", action_id=ACTION_ID).expand_kwargs(
        changes.override(task_id="to_update")(planned, "update")
    )
    MessagingPlatformDeleteScheduleOperator.partial(task_id="delete_schedule", action_id=ACTION_ID).expand_kwargs(
        changes.override(task_id="to_delete")(planned, "delete")
    )


messaging_platform_schedule_reconcile()
