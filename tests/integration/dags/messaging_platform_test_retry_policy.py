"""
Test DAG (not an example): ``@task`` code of a user's own that calls the hook, with ``MessagingPlatformRetryPolicy``
(Airflow 3.3+; on older Airflow this file defines no DAG). Every task may retry three times with no delay. The test
that runs it injects the 429 and the 500 (``tests/test_tasks_retry_policy.py``).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from messaging_platform_provider.version_compat import HAVE_RETRY_POLICIES

if HAVE_RETRY_POLICIES:
    from airflow.sdk import DAG, task

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.tasks.retry_policy import MessagingPlatformRetryPolicy

    with DAG(
        dag_id="messaging_platform_test_retry_policy",
        schedule=None,
        start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
        default_args={"retries": 3, "retry_delay": timedelta(seconds=0)},
        tags=["test"],
    ):

        @task(retry_policy=MessagingPlatformRetryPolicy())
        def missing_campaign() -> None:
            MessagingPlatformHook().get_campaign(999999)  # 404

        @task
        def missing_campaign_without_policy() -> None:
            MessagingPlatformHook().get_campaign(999998)  # 404, left to the task's retries

        @task(retry_policy=MessagingPlatformRetryPolicy(max_retry_delay=timedelta(seconds=1)))
        def rate_limited() -> int:
            return len(MessagingPlatformHook().list_campaigns())  # the test injects one 429 with Retry-After: 300

        @task(retry_policy=MessagingPlatformRetryPolicy())
        def server_error() -> int:
            return len(MessagingPlatformHook().list_push_voice_calls())  # the test injects one 500

        @task(retries=1, retry_policy=MessagingPlatformRetryPolicy())
        def not_a_platform_error() -> None:
            raise KeyError("not the platform's")

        missing_campaign()
        missing_campaign_without_policy()
        rate_limited()
        server_error()
        not_a_platform_error()
