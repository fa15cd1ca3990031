"""
System-test DAG (not an example): a deferrable callback sensor waiting for the IncomingMessage of one phone number,
so that scenario 6 (``make system-test``) can feed the triggerer hostile callbacks for that number before the good
one. The sensor's XCom is the callback it took; a downstream task reads it back through XCom.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG, task

from messaging_platform_provider.sensors import MessagingPlatformCallbackSensor

ANSWER_PHONE = "+15550177777"

with DAG(
    dag_id="messaging_platform_system_callback_answer",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    answer = MessagingPlatformCallbackSensor(
        task_id="wait_for_answer",
        callback_type="IncomingMessage",
        phone_number=ANSWER_PHONE,
        deferrable=True,
        poke_interval=1,
        timeout=300,
    )

    @task
    def read_answer(callback: dict) -> str:
        return str(callback["transaction_id"])

    read_answer(answer.output)
