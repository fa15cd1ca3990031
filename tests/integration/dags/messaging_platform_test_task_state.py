"""
Test DAG (not an example): the Variable-backed task state (what retry-safe creates use before Airflow 3.3) kept
across two tries of one task instance, on whichever Airflow runs it.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from airflow.sdk import DAG, get_current_context, task

from messaging_platform_provider.tasks.state import VariableTaskState, once_for_task

with DAG(
    dag_id="messaging_platform_test_task_state",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    # One XCom (Airflow 3.0 would push each key of a returned dict, and cannot push a None)
    @task(retries=1, retry_delay=timedelta(seconds=0), multiple_outputs=False)
    def remember() -> dict[str, Any]:
        context = get_current_context()
        store = VariableTaskState(once_for_task(context).token)
        earlier = store.get("tries", [])
        store.set("tries", [*earlier, context["ti"].try_number])
        if context["ti"].try_number == 1:
            raise RuntimeError("the first try fails after writing its state")
        store.clear()
        return {"earlier": earlier, "after_clear": store.get("tries")}

    remember()
