"""
Test DAG (not an example): creates an API key, changes its secret, and reads the key back in a task, so that the
platform hands out secrets three times. The test scans everything the run left behind for them.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from airflow.sdk import DAG, task

from messaging_platform_provider.operators import (
    MessagingPlatformChangeApiKeySecretOperator,
    MessagingPlatformCreateApiKeyOperator,
)

with DAG(
    dag_id="messaging_platform_test_secret_masking",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    created = MessagingPlatformCreateApiKeyOperator(task_id="create_key", key_label="Masking probe")
    rotated = MessagingPlatformChangeApiKeySecretOperator(
        task_id="change_secret", key_id="{{ ti.xcom_pull(task_ids='create_key')['Id'] }}"
    )

    @task
    def read_back(key: dict[str, Any]) -> int:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        return len(MessagingPlatformHook().get_api_key(key["Id"])["Secret"])

    created >> rotated
    read_back(rotated.output)
