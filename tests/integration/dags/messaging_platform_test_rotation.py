"""
Test DAG (not an example): the rotation operator on the database connection ``messaging_platform_rotated``, with one
retry and no delay, then a task that uses the rotated connection as any DAG would.
``tests/rotation/test_rotation.py`` runs it against the emulator and a real Airflow API server.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from airflow.sdk import DAG, task

from messaging_platform_provider.operators.rotation import MessagingPlatformRotateApiKeyOperator

with DAG(
    dag_id="messaging_platform_test_rotation",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    max_active_runs=1,
    default_args={"retries": 1, "retry_delay": timedelta(seconds=0)},
    tags=["test"],
):
    rotate = MessagingPlatformRotateApiKeyOperator(
        task_id="rotate",
        target_conn_id="messaging_platform_rotated",
        airflow_api_conn_id="airflow_api_default",
        key_label="Test rotation {{ ds }}",
    )

    @task
    def use_rotated_connection() -> dict[str, Any]:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        hook = MessagingPlatformHook("messaging_platform_rotated")
        works, message = hook.test_connection()
        return {"works": works, "message": message}

    rotate >> use_rotated_connection()
