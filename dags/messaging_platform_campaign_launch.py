"""
Orchestrated coupon campaign launch.

1. Read coupon codes from ``data/coupon_codes.csv`` and create an external coupon list holding them.
2. Create a coupon campaign.
3. Set the campaign's coupon definition: External, pointing at the list.
4. Attach the campaign to a keyword (the emulator seeds keyword 8001 "JOIN" on channel 22).
5. Register a Keyword callback record, so that each text of the keyword is POSTed to a receiver.

Every create is retry-safe: a retried task finds what its earlier try made instead of making a second one.
Uses the connection ``messaging_platform_default``.
"""

from __future__ import annotations

import csv
from datetime import datetime, timezone
from pathlib import Path

from airflow.sdk import Param, dag, task

from messaging_platform_provider.operators import (
    MessagingPlatformAttachKeywordCampaignOperator,
    MessagingPlatformCreateCallbackOperator,
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformUpdateCampaignCouponOperator,
)

CODES_FILE = Path(__file__).parent / "data" / "coupon_codes.csv"


@dag(
    dag_id="messaging_platform_campaign_launch",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "channel": Param(22, type="integer"),
        "keyword_id": Param(8001, type="integer"),
        "callback_url": Param("https://receiver.example.com/messaging-platform/keyword", type="string"),
    },
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_campaign_launch() -> None:
    @task
    def read_codes() -> list[str]:
        with CODES_FILE.open(newline="") as handle:
            return [row["CouponCodes"].strip() for row in csv.DictReader(handle) if row["CouponCodes"].strip()]

    coupon_list = MessagingPlatformCreateExternalCouponListOperator(
        task_id="create_coupon_list",
        name="Spring launch codes",
        description="Imported from coupon_codes.csv",
        coupon_codes=read_codes(),
    )
    campaign = MessagingPlatformCreateCampaignOperator(
        task_id="create_campaign", name="Spring launch", campaign_type="Coupon"
    )
    coupon = MessagingPlatformUpdateCampaignCouponOperator(
        task_id="define_coupon",
        campaign_id="{{ ti.xcom_pull(task_ids='create_campaign')['Id'] }}",
        coupon_type="External",
        external_list_id="{{ ti.xcom_pull(task_ids='create_coupon_list')['Id'] }}",
        max_uses=1,
    )
    attach = MessagingPlatformAttachKeywordCampaignOperator(
        task_id="attach_keyword",
        channel="{{ params.channel }}",
        keyword_id="{{ params.keyword_id }}",
        campaign_id="{{ ti.xcom_pull(task_ids='create_campaign')['Id'] }}",
    )
    callback = MessagingPlatformCreateCallbackOperator(
        task_id="register_keyword_callback", callback_type="Keyword", url="{{ params.callback_url }}"
    )
    [coupon_list, campaign] >> coupon >> attach >> callback


messaging_platform_campaign_launch()
