"""
Test DAG (not an example): ``op.output["Id"]`` and a voice call's ``op.output["ScheduleId"]`` feed downstream
tasks and make the dependency edges; a mapped operator's instances show readable names (``map_index_template``).
The test that runs it is ``tests/operators/test_outputs.py``.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformDeleteExternalCouponCodeOperator,
    MessagingPlatformGetCampaignOperator,
    MessagingPlatformGetScheduleOperator,
)

with DAG(
    dag_id="messaging_platform_test_outputs",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    tags=["test"],
):
    create = MessagingPlatformCreateCampaignOperator(task_id="create_campaign", name="Spring", campaign_type="Basic")
    MessagingPlatformGetCampaignOperator(task_id="read_campaign", campaign_id=create.output["Id"])

    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="create_call",
        channels=["+15125550100"],
        targets=["+15125550199"],
        message="Your order is ready.",
        schedules=[{"schedule_type": "Daily", "run_at": "09:00:00", "start_from": "2026-12-01T09:00:00"}],
    )
    MessagingPlatformGetScheduleOperator(
        task_id="read_schedule", action_id=call.output["Id"], schedule_id=call.output["ScheduleId"]
    )

    codes = MessagingPlatformCreateExternalCouponListOperator(
        task_id="create_list", name="Spring codes", coupon_codes=["A1", "B 2", "C/3"]
    )
    MessagingPlatformDeleteExternalCouponCodeOperator.partial(
        task_id="delete_codes", coupon_list_id=codes.output["Id"]
    ).expand(coupon_code=["A1", "B 2", "C/3"])
