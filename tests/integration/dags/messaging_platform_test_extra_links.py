"""
Test DAGs (not examples): every operator with a link to the platform's web app, on the connection the run's conf
names (``conn_id``): a campaign, two mapped campaigns, a schedule on the action ``schedule_action``, a push voice
call, and a push voice call that waits for its schedule in the triggerer; and that last task alone.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)

CONN_ID = "{{ dag_run.conf['conn_id'] }}"
ONE_TIME = {"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}
DEFERRED_CALL = {
    "messaging_platform_conn_id": CONN_ID,
    "channels": ["+15125550100"],
    "targets": ["+15555550124"],
    "message": "Linked call, waited for in the triggerer.",
    "schedules": [ONE_TIME],
    "wait_for_completion": True,
    "deferrable": True,
    "poll_interval": 0.05,
    "wait_timeout": 60,
}

with DAG(
    dag_id="messaging_platform_test_extra_links",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    MessagingPlatformCreateCampaignOperator(
        task_id="campaign", messaging_platform_conn_id=CONN_ID, name="Linked campaign", campaign_type="Basic"
    )
    MessagingPlatformCreateCampaignOperator.partial(
        task_id="mapped_campaigns", messaging_platform_conn_id=CONN_ID, campaign_type="Basic"
    ).expand(name=["Linked campaign A", "Linked campaign B"])
    MessagingPlatformCreateScheduleOperator(
        task_id="schedule",
        messaging_platform_conn_id=CONN_ID,
        action_id="{{ dag_run.conf['schedule_action'] }}",
        **ONE_TIME,
    )
    MessagingPlatformCreatePushVoiceCallOperator(
        task_id="voice_call",
        messaging_platform_conn_id=CONN_ID,
        channels=["+15125550100"],
        targets=["+15555550123"],
        message="Linked call.",
    )
    MessagingPlatformCreatePushVoiceCallOperator(task_id="voice_call_deferred", **DEFERRED_CALL)

with DAG(
    dag_id="messaging_platform_test_extra_links_deferred",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    MessagingPlatformCreatePushVoiceCallOperator(task_id="voice_call_deferred", **DEFERRED_CALL)
