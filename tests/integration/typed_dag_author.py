"""
Operator calls as a DAG author writes them, for ``make test``'s mypy (pyproject.toml lists this file): every
templated parameter takes a Jinja template and an ``XComArg`` as well as its value (``tasks/templated.py``). Nothing
runs this file; a hint that rejects a template or an ``XComArg`` fails the type check.
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG, task

from messaging_platform_provider.operators import (
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformGetCampaignOperator,
)
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor


@task
def read_codes() -> list[str]:
    return ["A1", "B2"]


@task
def pick_campaign() -> int:
    return 3001


with DAG(dag_id="typed", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    campaign = pick_campaign()
    MessagingPlatformGetCampaignOperator(task_id="read", campaign_id=campaign)
    MessagingPlatformCreateExternalCouponListOperator(
        task_id="codes", name="{{ params.list_name }}", coupon_codes=read_codes(), inheritable="{{ params.share }}"
    )
    call = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="call",
        channels="{{ params.long_code }}",
        targets=read_codes(),
        message="Hello",
        campaign_id="{{ params.campaign_id }}",
        execute_now="{{ params.now }}",
    )
    schedule = MessagingPlatformCreateScheduleOperator(
        task_id="weekly",
        action_id=campaign,
        schedule_type="{{ params.kind }}",
        run_at="09:00:00",
        start_from="{{ data_interval_end }}",
        wait_timeout="{{ params.wait }}",
    )
    MessagingPlatformScheduleSensor(task_id="wait", action_id=campaign, schedule_id=campaign)
