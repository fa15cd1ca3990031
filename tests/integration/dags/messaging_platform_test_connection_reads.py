"""
Test DAG (not an example): one task reads the connection named by the run's ``conn_id`` as every operator does,
through the hook, and makes one call with it. A connection in the metadata database reaches the task through the
execution API, where Airflow's API server writes it as a URI into its cache (the scheme warning's source) and the
task hands its extras to the secrets masker (the short-secret warning's source).
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG, task

with DAG(
    dag_id="messaging_platform_test_connection_reads",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    params={"conn_id": "messaging_platform_default"},
    tags=["test"],
):

    @task
    def read_connection(conn_id: str) -> str:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        works, message = MessagingPlatformHook(conn_id).test_connection()
        if not works:
            raise RuntimeError(message)
        return message

    read_connection("{{ params.conn_id }}")
