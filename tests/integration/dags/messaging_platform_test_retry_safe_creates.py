"""
Test DAG (not an example): one task per create operator, each allowed one retry with no delay. The test that
runs it makes the emulator commit every create and drop the answer, so each first try fails and each retry must
find the resource instead of creating another.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreateApiKeyOperator,
    MessagingPlatformCreateCallbackOperator,
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateContactOperator,
    MessagingPlatformCreateCouponDefinitionOperator,
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)

with DAG(
    dag_id="messaging_platform_test_retry_safe_creates",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 1, "retry_delay": timedelta(seconds=0)},
    tags=["test"],
):
    campaign = MessagingPlatformCreateCampaignOperator(
        task_id="campaign", name="Retry-safe campaign", campaign_type="Coupon"
    )
    campaign >> MessagingPlatformCreateCouponDefinitionOperator(
        task_id="coupon_definition",
        campaign_id="{{ ti.xcom_pull(task_ids='campaign')['Id'] }}",
        coupon_type="Static",
        static_code="RETRY10",
    )
    MessagingPlatformCreateExternalCouponListOperator(
        task_id="coupon_list", name="Retry-safe codes", coupon_codes=["A-1", "A-2"]
    )
    MessagingPlatformCreateApiKeyOperator(task_id="api_key", key_label="Retry-safe key")
    MessagingPlatformCreateScheduleOperator(
        task_id="schedule",
        action_id=5001,
        schedule_type="Weekly",
        run_at="09:30:00",
        start_from="2026-12-01T00:00:00",
        week_day="MON",
    )
    MessagingPlatformCreatePushVoiceCallOperator(
        task_id="voice_call", channels=["+15125550100"], targets=["+15555550123"], message="Your order shipped."
    )
    MessagingPlatformCreateCallbackOperator(
        task_id="callback", callback_type="Keyword", url="https://receiver.example.com/hooks/keyword"
    )
    MessagingPlatformCreateContactOperator(
        task_id="contact", phone_number="+15125550177", email_address="retry-safe@example.com", first_name="Retry"
    )
