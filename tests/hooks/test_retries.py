"""Retries, judged from the emulator's request record rather than from sleeping."""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, RetryPolicy
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.operator_context import clear_requests
from tests.support.waiting import key_of, rotate_key

FAST = RetryPolicy(max_attempts=4, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture
def hook(platform) -> MessagingPlatformHook:
    return MessagingPlatformHook(retry_policy=FAST)


def test_429_waits_for_retry_after(platform, hook):
    platform.control.add_fault(kind="retry_after", retry_after=1, count=1)
    assert hook.list_campaigns() == []
    first, second = platform.control.requests()
    assert (first["status"], second["status"]) == (429, 204)
    assert second["time"] - first["time"] >= 1.0  # honoured, although the backoff alone would be ~0.01 s


@pytest.mark.parametrize("status", [502, 503, 504])
def test_idempotent_calls_retry_transient_statuses(platform, hook, status):
    platform.control.add_fault(kind="status", status=status, count=2)
    assert hook.list_campaigns() == []
    assert [r["status"] for r in platform.control.requests()] == [status, status, 204]


def test_retries_are_bounded(platform, hook):
    platform.control.add_fault(kind="status", status=503, count=10)
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.list_campaigns()
    assert caught.value.status == 503 and caught.value.attempts == FAST.max_attempts
    assert len(platform.control.requests()) == FAST.max_attempts


def test_500_is_not_retried(platform, hook):
    platform.control.add_fault(kind="status", status=500, count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.list_campaigns()
    assert len(platform.control.requests()) == 1


def test_post_is_not_resent_after_a_5xx(platform, hook):
    platform.control.add_fault(kind="status", status=503, count=1, method="POST")
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.create_campaign(name="Once", campaign_type="Basic")
    assert caught.value.status == 503
    assert [r["method"] for r in platform.control.requests()] == ["POST"]


def test_post_is_resent_after_429(platform, hook):
    platform.control.add_fault(kind="retry_after", retry_after=0, count=1, method="POST")
    hook.create_campaign(name="After 429", campaign_type="Basic")
    assert [r["status"] for r in platform.control.requests()] == [429, 201]
    assert len(hook.list_campaigns()) == 1


def test_post_is_not_resent_when_the_response_is_lost(platform, hook):
    platform.control.add_fault(kind="commit_then_drop", count=1, method="POST")
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.create_campaign(name="Committed", campaign_type="Basic")
    assert caught.value.status is None and "lost" in str(caught.value)
    assert [c["Name"] for c in hook.list_campaigns()] == ["Committed"]  # committed exactly once


def test_get_is_resent_after_a_dropped_connection(platform, hook):
    platform.control.add_fault(kind="drop", count=1, method="GET")
    assert hook.list_campaigns() == []
    assert [r["fault"] for r in platform.control.requests()] == ["drop", None]


def test_connection_refused_is_retried_then_reported(platform, monkeypatch, closed_port):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(extra={"base_url": f"http://127.0.0.1:{closed_port}/api/v2.1"}),
    )
    with pytest.raises(MessagingPlatformApiError) as caught:
        MessagingPlatformHook(retry_policy=FAST).create_campaign(name="x", campaign_type="Basic")
    assert caught.value.status is None and caught.value.attempts == FAST.max_attempts
    assert "could not connect" in str(caught.value)


@pytest.mark.parametrize("written", [True, False], ids=["new-key-in-connection", "connection-not-updated"])
def test_a_401_re_reads_the_connection_and_resends_only_with_other_credentials(platform, monkeypatch, written):
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json())  # restored after
    hook = MessagingPlatformHook(retry_policy=FAST)
    assert hook.list_campaigns() == []  # the hook has read the connection and holds the key
    new = rotate_key(platform, write_to_connection=written)  # a rotation elsewhere; the old key is revoked
    clear_requests(platform)
    if written:
        assert hook.create_campaign(name="after rotation", campaign_type="Coupon")[
            "Id"
        ]  # a create too: 401 did nothing
        first, second = platform.control.requests()
        assert (first["status"], key_of(first)) == (401, platform.seed.api_key)
        assert (second["status"], key_of(second)) == (201, new["Key"])
    else:
        with pytest.raises(MessagingPlatformApiError) as caught:
            hook.list_campaigns()
        assert caught.value.status == 401
        assert [r["status"] for r in platform.control.requests()] == [401]  # nothing new to send it with
