"""
Orchestrated coupon campaign launch.

1. Read coupon codes from ``data/coupon_codes.csv`` and create an external coupon list holding them.
2. Create a coupon campaign.
3. Set the campaign's coupon definition: External, pointing at the list.
4. Attach the campaign to a keyword of your account, so that texting the keyword answers with the campaign.
5. Register a Keyword callback record, so that each text of the keyword is POSTed to your receiver.

Params (the trigger form, or ``airflow dags test messaging_platform_campaign_launch --conf '{...}'``):

- ``channel`` (required): the id of the channel (short code or long code) the keyword belongs to.
- ``keyword_id`` (required): the id of the keyword customers text. Attaching replaces the campaign the keyword
  answered with until now.
- ``callback_url`` (required): the URL of your callback receiver (``https://...``).

Created by the DAG, and kept (they are what a launch is for): the coupon list, the campaign with its coupon
definition, and the Keyword callback record (a record with the same URL that already exists is used instead).
Changed: the keyword's campaign. If a step fails, what earlier steps created stays on the account; the task logs
and XCom show the ids. Every create is retry-safe: a retried task finds what its earlier try made instead of
making a second one. Uses the connection ``messaging_platform_default``.
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
    MessagingPlatformCreateCouponDefinitionOperator,
    MessagingPlatformCreateExternalCouponListOperator,
)

CODES_FILE = Path(__file__).parent / "data" / "coupon_codes.csv"


@dag(
    dag_id="messaging_platform_campaign_launch",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    params={
        "channel": Param(type="integer", minimum=1, description="Id of the channel the keyword belongs to."),
        "keyword_id": Param(type="integer", minimum=1, description="Id of the keyword customers text."),
        "callback_url": Param(
            type="string", pattern="^https?://", description="URL of your receiver for Keyword callbacks."
        ),
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
    coupon = MessagingPlatformCreateCouponDefinitionOperator(
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
