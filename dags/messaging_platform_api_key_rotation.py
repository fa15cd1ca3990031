"""
Weekly rotation of the API key a deployment's DAGs use, without ever leaving them on a broken credential.

What it shows: ``MessagingPlatformRotateApiKeyOperator`` creates a new key, verifies it with a real call, writes it
into the connection ``messaging_platform_rotated`` through Airflow's REST API, reads the connection back the way
workers read it and verifies it again, and only then revokes the old key. Any failure on the way leaves the old key in
place (or rolls back to it); a retry of the task finishes the same rotation instead of starting another. A second
task then uses the rotated connection, as every other DAG would. Nothing secret reaches the logs or XCom: the task
returns the old and new key ids and the new key's label. See ``docs/rotation.md``.

Connections:

- ``messaging_platform_default``: manages the keys (list, create, revoke) and gives the base URL and account.
  It may also be the rotated connection itself (leave out ``target_conn_id``).
- ``messaging_platform_rotated``: type ``messagingplatform``, the connection whose key (login) and secret (password)
  are rotated. It must live in the metadata database (UI, CLI or REST API): an ``AIRFLOW_CONN_`` variable or a
  secrets backend would shadow what the rotation writes (the rotation checks before it makes a key, and fails).
- ``airflow_api_default``: Airflow's REST API. Host: the API server's URL (``http://localhost:8080``); login and
  password of a user allowed to create, edit and delete connections (the rotation's lease is a connection
  ``messaging_platform_rotated.rotation-lease.<n>``), or none with the simple auth manager in all-admins mode.

Two rotations of the connection never overlap, whatever starts them: the second finds the lease held and fails
without retries. ``max_active_runs=1`` keeps this DAG from trying; ``catchup=False`` skips missed weeks.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from airflow.sdk import dag, task

from messaging_platform_provider.operators.rotation import MessagingPlatformRotateApiKeyOperator

ROTATED_CONN_ID = "messaging_platform_rotated"


@dag(
    dag_id="messaging_platform_api_key_rotation",
    schedule="@weekly",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    max_active_runs=1,
    default_args={"retries": 2, "retry_delay": timedelta(minutes=1)},
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_api_key_rotation() -> None:
    rotate = MessagingPlatformRotateApiKeyOperator(
        task_id="rotate_api_key",
        messaging_platform_conn_id="messaging_platform_default",
        target_conn_id=ROTATED_CONN_ID,
        airflow_api_conn_id="airflow_api_default",
        key_label="Airflow weekly rotation {{ dag_run.run_after | ds }}",  # run_after: also set without a logical date
    )

    @task
    def use_rotated_connection() -> dict[str, Any]:
        """What every other DAG does next: use the connection, now holding the new key."""
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        works, message = MessagingPlatformHook(ROTATED_CONN_ID).test_connection()
        if not works:
            raise RuntimeError(f"the rotated connection does not work: {message}")
        return {"works": works, "message": message}

    rotate >> use_rotated_connection()


messaging_platform_api_key_rotation()
