"""
Test DAG (not an example): create operators mapped with ``.expand`` over identical values, each instance allowed
one retry with no delay. The test that runs it makes the emulator commit each create and drop the answer, so every
instance's retry must find what its own first try made, and never what a sibling instance made.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
)

with DAG(
    dag_id="messaging_platform_test_mapped_creates",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 1, "retry_delay": timedelta(seconds=0)},
    tags=["test"],
):
    MessagingPlatformCreateCampaignOperator.partial(task_id="campaigns", campaign_type="Coupon").expand(
        name=["Mapped campaign", "Mapped campaign", "Mapped campaign"]
    )
    MessagingPlatformCreatePushVoiceCallOperator.partial(
        task_id="voice_calls", channels=["+15125550100"], targets=["+15555550123"]
    ).expand(message=["Mapped call", "Mapped call"])
