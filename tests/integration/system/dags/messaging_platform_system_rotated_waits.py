"""
System-test DAG (not an example): deferred waits on the connection that the key-rotation example rotates.

Each task creates a push voice call action with one schedule on ``messaging_platform_rotated`` and waits for it
deferred, polling every 2 s, so that a rotation can revoke the key the triggerer first read while the waits are in
flight (``make system-test``, scenario 3).
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import MessagingPlatformCreatePushVoiceCallOperator

WAITS = 3

with DAG(
    dag_id="messaging_platform_system_rotated_waits",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    for n in range(WAITS):
        MessagingPlatformCreatePushVoiceCallOperator(
            task_id=f"call_and_wait_{n}",
            messaging_platform_conn_id="messaging_platform_rotated",
            channels=["+15125550100"],
            targets=[f"+1555030000{n}"],
            message=f"System test {{{{ run_id }}}}, wait {n}.",
            schedules=[{"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}],
            wait_for_completion=True,
            deferrable=True,
            poll_interval=2,
            wait_timeout=600,
        )
