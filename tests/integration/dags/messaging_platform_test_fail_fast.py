"""
Test DAG (not an example): failures that a retry cannot change end the task on its first try; a transient one is
retried. Every task may retry twice with no delay. The test that runs it injects the refused and the transient
answers (``tests/operators/test_fail_fast.py``).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformGetCampaignOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformListPushVoiceCallsOperator,
)

with DAG(
    dag_id="messaging_platform_test_fail_fast",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 2, "retry_delay": timedelta(seconds=0)},
    params={"week_day": "WEDS"},
    tags=["test"],
):
    MessagingPlatformCreateScheduleOperator(  # a typo that only rendering reveals: checked when the task runs
        task_id="bad_week_day",
        action_id=5001,
        schedule_type="Weekly",
        run_at="09:00:00",
        start_from="2026-12-01T00:00:00",
        week_day="{{ params.week_day }}",
    )
    MessagingPlatformGetCampaignOperator(task_id="missing_campaign", campaign_id=999999)  # 404
    MessagingPlatformListPushVoiceCallsOperator(task_id="refused_list")  # the test injects a 409
    MessagingPlatformListCampaignsOperator(task_id="transient_list")  # the test injects one 500
