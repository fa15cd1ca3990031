"""
Test DAG (not an example): tasks that fail, each with a ``MessagingPlatformVoiceCallNotifier`` as its
``on_failure_callback`` (tests/notifications/test_notifier_in_dag_runs.py). ``load_orders`` uses the default
message and takes whom to call from a param; ``leaky_alert``'s message tries to speak the connection's password;
``broken_alert``'s connection holds a key the platform refuses, so its call fails. (``dag.test()`` leaves a DAG's
own callbacks to the DAG processor: tests/notifications/test_voice_call_notifier.py calls one as that does.)
"""

from __future__ import annotations

from datetime import datetime, timezone

from airflow.sdk import DAG, task

from messaging_platform_provider.notifications import MessagingPlatformVoiceCallNotifier

LONG_CODE = "+15125550100"
REFUSED_CONN_ID = "messaging_platform_refused"  # the test points it at the emulator with a wrong secret

with DAG(
    dag_id="messaging_platform_test_notifier",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    params={"on_call": "+15550100007"},
    tags=["test"],
):

    @task(on_failure_callback=MessagingPlatformVoiceCallNotifier(channels=LONG_CODE, targets="{{ params.on_call }}"))
    def load_orders() -> None:
        raise RuntimeError("the orders feed is missing")

    @task(
        on_failure_callback=MessagingPlatformVoiceCallNotifier(
            channels=[LONG_CODE],
            targets=["+15550100008"],
            message="{{ ti.task_id }} failed; key {{ conn.messaging_platform_default.password }}",
        )
    )
    def leaky_alert() -> None:
        raise RuntimeError("fails so that its callback runs")

    @task(
        on_failure_callback=MessagingPlatformVoiceCallNotifier(
            channels=LONG_CODE, targets=["+15550100009"], messaging_platform_conn_id=REFUSED_CONN_ID
        )
    )
    def broken_alert() -> None:
        raise RuntimeError("its own error, which the failed call must leave alone")

    load_orders()
    leaky_alert()
    broken_alert()
