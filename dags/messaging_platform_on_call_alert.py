"""
A daily campaign report that phones the on-call engineer when it fails.

1. List the account's campaigns.
2. Count them by campaign type: the report.

Every task's ``on_failure_callback`` is a ``MessagingPlatformVoiceCallNotifier``. When a task fails for good (after
its last try; an error no retry can change ends it at once), a voice call from your long code to the on-call phone
says which DAG, task, try and run failed, and where its log is. **On a real account this places a real call**, only
when a task fails; a run that succeeds calls nobody.

Set two Airflow Variables, read when a call is placed (a new on-call number needs no change to the DAG):

- ``messaging_platform_on_call_long_code``: a voice-capable long code of your account, in E.164 form
  (``+15125550100``), that the call comes from.
- ``messaging_platform_on_call_phone``: the phone number to call, in E.164 form.

Creates nothing on the account, unless a task fails: then one push voice call action, which runs at once. Uses the
connection ``messaging_platform_default``.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from typing import Any

from airflow.sdk import dag, task

from messaging_platform_provider.notifications import MessagingPlatformVoiceCallNotifier
from messaging_platform_provider.operators import MessagingPlatformListCampaignsOperator

# Rendered with the failed task's context when the call is placed: the Variables are read then, not at parse time.
on_call = MessagingPlatformVoiceCallNotifier(
    channels="{{ var.value.messaging_platform_on_call_long_code }}",
    targets="{{ var.value.messaging_platform_on_call_phone }}",
)


@dag(
    dag_id="messaging_platform_on_call_alert",
    schedule="@daily",
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    default_args={"on_failure_callback": on_call},
    tags=["messaging_platform", "example"],
    doc_md=__doc__,
)
def messaging_platform_on_call_alert() -> None:
    campaigns = MessagingPlatformListCampaignsOperator(task_id="list_campaigns")

    @task
    def count_by_type(listed: list[dict[str, Any]] | None) -> dict[str, int]:
        """Campaigns per ``CampaignTypeId``; an account without campaigns answers nothing, which counts none."""
        return dict(sorted(Counter(str(c.get("CampaignTypeId")) for c in listed or []).items()))

    count_by_type(campaigns.output)


messaging_platform_on_call_alert()
