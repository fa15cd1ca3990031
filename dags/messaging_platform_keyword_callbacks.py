"""
Event-driven: a run for each customer who texts the keyword JOIN.

The platform POSTs a Keyword callback to the receiver (``messaging-platform-callbacks serve``, or the receiver
mounted in Airflow's API server), which stores it. An ``AssetWatcher`` on the asset below runs
``MessagingPlatformCallbackTrigger`` in the triggerer: every new stored Keyword callback for JOIN becomes one asset
event, and each asset event schedules this DAG, with the callback in ``triggering_asset_events``.

1. Check that the platform still has an active Keyword callback record (else nothing reaches the receiver).
2. Claim the callbacks that triggered the run, and any matching callback stored after them: Airflow may put
   several asset events in one run, or none in any run for a moment when they arrive a few milliseconds apart
   (``docs/callbacks.md``, "What a run receives"). A callback claimed by one run is not handled by another, also
   when it reached Airflow twice (a triggerer that died between Airflow storing the asset event and the trigger
   committing its position).
3. Call each new subscriber with a welcome message (one mapped task per phone number; none when the run has no
   callback, as when the DAG is run by hand).

Setup, once:

- Attach a campaign to the keyword and register the receiver's URL as a Keyword callback record (the
  ``messaging_platform_campaign_launch`` example does both).
- Set ``KEYWORD`` below to the keyword your customers text (``JOIN`` here).
- Set the Airflow Variable ``messaging_platform_welcome_long_code`` to a voice-capable long code of your account,
  in E.164 form (``+15125550100``): the welcome calls are placed from it. **On a real account each callback places
  a real call** to the phone number that texted the keyword.

No params: a run started by an asset event carries no params of its own, so what a run needs that differs per
account is the Variable (read when the first welcome call is made; a missing one fails that task with the
Variable named) and ``KEYWORD`` (read when the DAG file is parsed, as the watcher is built then). The DAG creates
nothing but the welcome calls (push voice call actions, kept as the record of the calls). Uses the connection
``messaging_platform_default`` and the configured callback store (``$MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from airflow.sdk import Asset, AssetWatcher, dag, task

from messaging_platform_provider.operators import MessagingPlatformCreatePushVoiceCallOperator
from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackTrigger

KEYWORD = "JOIN"  # the keyword your customers text
WELCOME_LONG_CODE = "{{ var.value.messaging_platform_welcome_long_code }}"  # an Airflow Variable, set per account
CONSUMER = "messaging_platform_keyword_callbacks"

watcher = MessagingPlatformCallbackTrigger(callback_types=["Keyword"], keywords=[KEYWORD], consumer=CONSUMER)
keyword_texts = Asset(
    "messaging_platform_keyword_join", watchers=[AssetWatcher(name="keyword_join_callbacks", trigger=watcher)]
)


@dag(
    dag_id="messaging_platform_keyword_callbacks",
    schedule=[keyword_texts],
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    catchup=False,
    tags=["messaging_platform", "example", "callbacks"],
    doc_md=__doc__,
)
def messaging_platform_keyword_callbacks() -> None:
    @task
    def check_callback_record() -> bool:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        records = MessagingPlatformHook().list_callbacks() or []
        active = [r for r in records if r.get("CallbackType") == 1 and r.get("Active")]
        if not active:
            print("No active Keyword callback record: the platform is not sending keyword texts anywhere.")
        return bool(active)

    @task
    def new_subscribers(triggering_asset_events: Any = None, run_id: str | None = None) -> list[dict[str, Any]]:
        from messaging_platform_provider.callbacks.claims import claim_callbacks_for_run

        try:
            events = list(triggering_asset_events[keyword_texts]) if triggering_asset_events else []
        except KeyError:
            events = []
        if not events:
            print("No keyword callback in this run (started by hand?): nothing to do.")
            return []
        mine = claim_callbacks_for_run(events, watcher=watcher, owner=str(run_id))
        print(f"{len(events)} asset event(s) started this run; {len(mine)} callback(s) not handled before.")
        return [
            {
                "TransactionId": c["transaction_id"],
                "PhoneNumber": c["payload"]["PhoneNumber"],
                "ContactId": c["payload"].get("ContactId"),
                "Keyword": c["payload"]["Keyword"],
            }
            for c in mine
        ]

    subscribers = new_subscribers()
    welcome = MessagingPlatformCreatePushVoiceCallOperator.partial(
        task_id="welcome_call",
        channels=[WELCOME_LONG_CODE],
        message=f"Welcome! You joined with {KEYWORD}. Reply STOP to opt out.",
        execute_now=True,
    ).expand(targets=subscribers.map(lambda s: [s["PhoneNumber"]]))
    check_callback_record() >> subscribers >> welcome


messaging_platform_keyword_callbacks()
