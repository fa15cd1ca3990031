"""
``tasks.retry_policy.MessagingPlatformRetryPolicy``, Airflow's retry policy for a task that calls the platform (not
the client's HTTP resends, ``tests/client/test_retry_policy.py``): its decision on errors the hook raised against the
emulator, the same as ``failing_fast``'s; a ``dag.test()`` run of ``@task`` code with it (Airflow 3.3+); and the
error that building it gives on older Airflow.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from packaging.version import Version

from messaging_platform_provider.client import MessagingPlatformApiError, RetryPolicy
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.retry import parse_retry_after
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.tasks.errors import failing_fast
from messaging_platform_provider.tasks.retry_policy import MessagingPlatformRetryPolicy
from messaging_platform_provider.version_compat import HAVE_RETRY_POLICIES, AirflowFailException
from tests.support.airflow_versions import AIRFLOW_VERSION, dag_bag
from tests.support.paths import TEST_DAGS

needs_retry_policies = pytest.mark.skipif(
    not HAVE_RETRY_POLICIES,
    reason=f"Airflow {AIRFLOW_VERSION} has no retry policies (retry_policy= on a task, 3.3+): here only the error "
    "that building MessagingPlatformRetryPolicy gives is tested",
)
#: The client's resends within one hook call: one try, so that each error below comes from one request.
ONE_TRY = RetryPolicy(max_attempts=1)
CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"


def raised(call: Callable[[], object]) -> BaseException:
    """The exception ``call`` raised."""
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


def decision(error: BaseException, policy: Any = None) -> tuple[str, float | None, str]:
    """What the policy decides on ``error`` on a first try of four: action, delay in seconds, reason."""
    made = (policy or MessagingPlatformRetryPolicy()).evaluate(error, try_number=1, max_tries=4)
    delay = None if made.retry_delay is None else made.retry_delay.total_seconds()
    return made.action.value, delay, made.reason or ""


def fails_fast(error: BaseException) -> bool:
    """Whether ``failing_fast`` turns ``error`` into ``AirflowFailException`` (else it lets it through unchanged)."""
    try:
        with failing_fast():
            raise error
    except AirflowFailException:
        return True
    except BaseException as passed:
        assert passed is error
        return False


@pytest.fixture
def hook(platform: Any) -> MessagingPlatformHook:
    return MessagingPlatformHook(retry_policy=ONE_TRY)


def test_the_capability_is_found_on_airflow_3_3_and_later():
    assert HAVE_RETRY_POLICIES == (AIRFLOW_VERSION >= Version("3.3"))


# -- its decisions on the hook's errors ----------------------------------------------------------------------


@needs_retry_policies
def test_a_404_fails_at_once_the_reason_naming_the_request_and_the_answer(platform, hook):
    error = raised(lambda: hook.get_campaign(987654))
    action, delay, reason = decision(error)
    assert (action, delay) == ("fail", None)
    assert reason.startswith("a retry cannot change this: ")
    assert f"GET /account/{platform.seed.account_id}/campaign/987654 failed with HTTP 404" in reason


@needs_retry_policies
@pytest.mark.messaging_platform_allow_violations("bypasses the client-side checks to see the platform's own 400")
def test_the_platforms_400_fails_at_once_naming_the_property(platform, hook):
    body = {"ScheduleTypeId": 7, "RunAt": "09:00:00", "StartFrom": "2026-12-01T00:00:00"}  # weekly, no WeekDay
    error = raised(lambda: hook.call("create_schedule", action_id=platform.seed.action_id, body=body))
    action, _, reason = decision(error)
    assert action == "fail" and "HTTP 400" in reason and "WeekDay" in reason


@needs_retry_policies
def test_bad_input_fails_at_once_before_any_request(platform, hook):
    error = raised(lambda: hook.get_campaign("0"))
    assert isinstance(error, MessagingPlatformValidationError)
    action, _, reason = decision(error)
    assert action == "fail" and "campaign_id" in reason
    assert platform.control.requests() == []


@needs_retry_policies
def test_a_401_fails_at_once_and_the_reason_holds_no_secret(platform, monkeypatch):
    wrong = "not-the-secret-" + "y" * 12
    monkeypatch.setenv(CONN_ENV, platform.connection_json(password=wrong))
    error = raised(lambda: MessagingPlatformHook(retry_policy=ONE_TRY).list_campaigns())
    action, _, reason = decision(error)
    assert action == "fail" and "HTTP 401" in reason
    assert wrong not in reason and platform.seed.api_secret not in reason


@needs_retry_policies
@pytest.mark.parametrize(
    ("max_retry_delay", "delay", "said"),
    [
        (None, 300.0, "retrying after 300 s, as the platform's Retry-After asked: "),
        (
            timedelta(minutes=1),
            60.0,
            "retrying after 60 s (max_retry_delay; the platform's Retry-After asked for 300 s)",
        ),
    ],
    ids=["as-asked", "bounded"],
)
def test_a_429_is_retried_after_the_platforms_retry_after_at_most_max_retry_delay(
    platform, max_retry_delay, delay, said
):
    # Over two minutes: the client does not wait that long within the call (max_retry_after), it raises at once.
    platform.control.add_fault(kind="retry_after", retry_after=300, count=1)
    error = raised(lambda: MessagingPlatformHook().list_campaigns())
    assert isinstance(error, MessagingPlatformApiError) and (error.status, error.retry_after) == (429, 300.0)
    policy = MessagingPlatformRetryPolicy(max_retry_delay=max_retry_delay) if max_retry_delay else None
    action, got_delay, reason = decision(error, policy)
    assert (action, got_delay) == ("retry", delay)
    assert said in reason and "HTTP 429" in reason
    assert len(platform.control.requests()) == 1


def test_the_error_carries_the_retry_after_from_every_transport(platform, hook):
    """What the policy reads: the async client (the triggers') and ``call_many`` keep the header as the sync one."""

    async def listing() -> None:
        seed = platform.seed
        client = AsyncMessagingPlatformClient(
            platform.base_url, seed.api_key, seed.api_secret, account_id=seed.account_id
        )
        try:
            await client.call("list_campaigns")
        finally:
            await client.aclose()

    platform.control.add_fault(kind="retry_after", retry_after=300, count=2)
    from_async = raised(lambda: asyncio.run(listing()))
    (outcome,) = hook.call_many("get_campaign", [{"campaign_id": 987654}])
    assert isinstance(from_async, MessagingPlatformApiError) and isinstance(outcome.error, MessagingPlatformApiError)
    assert [(e.status, e.retry_after) for e in (from_async, outcome.error)] == [(429, 300.0), (429, 300.0)]


@pytest.mark.parametrize("header", ["²", "soon", "-5", ""])
def test_a_retry_after_that_cannot_be_read_is_none_rather_than_an_error(header):
    # Every error answer's header is read now: one that str.isdigit() accepts but float() refuses must not turn the
    # platform's error into a ValueError.
    assert parse_retry_after(header) is None


@needs_retry_policies
def test_a_503_is_retried_after_the_tasks_own_retry_delay(platform, hook):
    platform.control.add_fault(kind="status", status=503, method="POST", count=1)
    error = raised(lambda: hook.create_campaign(name="Once", campaign_type="Basic"))
    action, delay, reason = decision(error)
    assert (action, delay) == ("retry", None)  # no Retry-After: the task's retry_delay applies
    assert reason.startswith("a retry may get past this: ") and "HTTP 503" in reason


@needs_retry_policies
def test_no_answer_is_retried(platform, monkeypatch, closed_port):
    monkeypatch.setenv(
        CONN_ENV, platform.connection_json(extra={"base_url": f"http://127.0.0.1:{closed_port}/api/v2.1"})
    )
    error = raised(lambda: MessagingPlatformHook(retry_policy=ONE_TRY).list_campaigns())
    assert isinstance(error, MessagingPlatformApiError) and error.status is None
    action, delay, reason = decision(error)
    assert (action, delay) == ("retry", None) and "could not connect" in reason


@needs_retry_policies
@pytest.mark.parametrize("error", [KeyError("Id"), ValueError("not ours"), TimeoutError()], ids=type)
def test_an_error_that_is_not_the_platforms_is_left_to_the_tasks_retries(error):
    action, delay, reason = decision(error)
    assert (action, delay) == ("default", None)
    assert reason == f"not a platform error ({type(error).__name__}): the task's own retries apply"


@needs_retry_policies
def test_the_policy_fails_exactly_what_failing_fast_fails(platform, hook, monkeypatch):
    """One decision for both: what ``failing_fast`` turns into AirflowFailException, the policy fails."""
    platform.control.add_fault(kind="status", status=409, method="GET", path="/action-pushvoicecall$", count=1)
    platform.control.add_fault(kind="status", status=500, method="GET", path="/campaign$", count=1)
    platform.control.add_fault(kind="status", status=408, method="GET", path="/api-key$", count=1)
    errors = [
        raised(lambda: hook.get_campaign(987654)),
        raised(lambda: hook.get_campaign("0")),
        raised(lambda: hook.list_push_voice_calls()),
        raised(lambda: hook.list_campaigns()),
        raised(lambda: hook.list_api_keys()),
        KeyError("Id"),
    ]
    verdicts = [(fails_fast(error), decision(error)[0]) for error in errors]
    assert verdicts == [(True, "fail"), (True, "fail"), (True, "fail"), (False, "retry"), (False, "retry")] + [
        (False, "default")
    ]


# -- its setting ---------------------------------------------------------------------------------------------


@needs_retry_policies
@pytest.mark.parametrize("bad", [timedelta(0), timedelta(seconds=-5), 60, "PT1H"], ids=repr)
def test_a_bad_max_retry_delay_is_refused_naming_it(bad):
    with pytest.raises(MessagingPlatformValidationError, match=r"^max_retry_delay: must be a timedelta longer"):
        MessagingPlatformRetryPolicy(max_retry_delay=bad)


@needs_retry_policies
def test_serialize_round_trips_the_setting():
    policy = MessagingPlatformRetryPolicy(max_retry_delay=timedelta(minutes=7))
    assert policy.serialize() == {"max_retry_delay": 420.0}
    again = MessagingPlatformRetryPolicy.deserialize(policy.serialize())
    assert again.max_retry_delay == timedelta(minutes=7)


# -- under Airflow's own retry machinery ---------------------------------------------------------------------


@pytest.fixture
def retry_policy_run(platform, dag_runs):
    from airflow.utils.session import create_session

    try:
        from airflow.models.taskinstancehistory import TaskInstanceHistory as Tries

        every_try: dict[str, bool] = {}
    except ImportError:  # Airflow 3.4 keeps every try as a row of task_instance; ORM queries see the latest only
        from airflow.models.taskinstance import TaskInstance as Tries

        every_try = {"include_all_attempts": True}
    from sqlalchemy import select

    platform.control.add_fault(kind="retry_after", retry_after=300, method="GET", path="/campaign$", count=1)
    platform.control.add_fault(kind="status", status=500, method="GET", path="/action-pushvoicecall$", count=1)
    run = dag_bag(str(TEST_DAGS)).get_dag("messaging_platform_test_retry_policy").test()
    tries = {ti.task_id: (ti.state, ti.try_number) for ti in run.get_task_instances()}
    with create_session() as session:
        history = session.scalars(select(Tries).where(Tries.run_id == run.run_id).execution_options(**every_try))
        earlier = {(h.task_id, h.try_number): (h.retry_delay_override, h.retry_reason or "") for h in history}
    return tries, earlier


@needs_retry_policies
@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_under_dag_test_a_permanent_error_fails_on_the_first_try_and_a_transient_one_is_retried(retry_policy_run):
    tries, earlier = retry_policy_run
    assert tries == {
        "missing_campaign": ("failed", 1),  # 404: retries=3, yet no retry
        "missing_campaign_without_policy": ("failed", 4),  # the same 404 without the policy: all three retries
        "rate_limited": ("success", 2),  # 429 with Retry-After: 300, retried after max_retry_delay (1 s)
        "server_error": ("success", 2),  # 500, retried after the task's retry_delay
        "not_a_platform_error": ("failed", 2),  # the task's own retries=1
    }
    delay, reason = earlier[("rate_limited", 1)]
    assert delay == 1.0
    assert reason.startswith("retrying after 1 s (max_retry_delay; the platform's Retry-After asked for 300 s)")
    delay, reason = earlier[("server_error", 1)]
    assert delay is None and reason.startswith("a retry may get past this: ") and "HTTP 500" in reason


# -- before Airflow 3.3 --------------------------------------------------------------------------------------


def test_the_policy_builds_from_airflow_3_3_and_before_it_says_it_needs_3_3():
    """The module imports on every supported Airflow; building the policy needs 3.3 (checked on each matrix leg)."""
    if HAVE_RETRY_POLICIES:
        from airflow.sdk.definitions.retry_policy import RetryPolicy

        assert isinstance(MessagingPlatformRetryPolicy(), RetryPolicy)
        return
    with pytest.raises(RuntimeError, match=r"^MessagingPlatformRetryPolicy needs Airflow 3\.3 or later") as caught:
        MessagingPlatformRetryPolicy()
    assert f"this is Airflow {AIRFLOW_VERSION}" in str(caught.value) and "failing_fast()" in str(caught.value)
