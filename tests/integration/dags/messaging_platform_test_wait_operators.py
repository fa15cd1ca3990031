"""
Test DAG (not an example): the create operators with ``wait_for_completion``, in the worker and deferred.

The run's conf gives ``schedule_action`` (where the schedule tasks create) and ``retry_action`` (an action of
its own for the retried schedule task). The ``*_retry`` tasks wait 0.15 s on their first try, less than the
emulator takes to end a schedule in the test that runs this DAG, so the first try fails and the retry (no delay)
must find what the first try created and wait on it again.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)

FIRST_TRY_SHORT = "{{ 0.15 if ti.try_number == 1 else 30 }}"
INLINE_SCHEDULES = [{"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}]

with DAG(
    dag_id="messaging_platform_test_wait_operators",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    default_args={"retries": 1, "retry_delay": timedelta(seconds=0)},
    tags=["test"],
):
    for deferrable, hour in ((False, 10), (True, 11)):
        kind = "deferred" if deferrable else "sync"
        MessagingPlatformCreateScheduleOperator(
            task_id=f"schedule_{kind}",
            action_id="{{ dag_run.conf['schedule_action'] }}",
            schedule_type="OneTime",
            run_at=f"{hour}:00:00",  # each task its own definition: a create adopts an identical schedule
            start_from="2026-12-01T00:00:00",
            wait_for_completion=True,
            deferrable=deferrable,
            poll_interval=0.05,
            wait_timeout=30,
        )
        MessagingPlatformCreatePushVoiceCallOperator(
            task_id=f"voice_call_{kind}",
            channels=["+15125550100"],
            targets=["+15555550123"],
            message=f"Wait test, {kind}.",
            schedules=INLINE_SCHEDULES,
            wait_for_completion=True,
            deferrable=deferrable,
            poll_interval=0.05,
            wait_timeout=30,
        )
    MessagingPlatformCreateScheduleOperator(
        task_id="schedule_retry",
        action_id="{{ dag_run.conf['retry_action'] }}",
        schedule_type="OneTime",
        run_at="12:00:00",
        start_from="2026-12-01T00:00:00",
        wait_for_completion=True,
        deferrable=False,
        poll_interval=0.05,
        wait_timeout=FIRST_TRY_SHORT,
    )
    MessagingPlatformCreatePushVoiceCallOperator(
        task_id="voice_call_retry",
        channels=["+15125550100"],
        targets=["+15555550199"],
        message="Wait test, retried.",
        schedules=INLINE_SCHEDULES,
        wait_for_completion=True,
        deferrable=True,
        poll_interval=0.05,
        wait_timeout=FIRST_TRY_SHORT,
    )
