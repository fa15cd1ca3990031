"""
Plain http:// is refused where it would put a secret on the network in clear, unless the host is loopback or the
caller opts in (``allow_insecure_http``): the base URL (the API key and secret) and a callback record's URL (the
account's callback token).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from messaging_platform_provider.client import MessagingPlatformClient, MessagingPlatformValidationError
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.request import normalize_base_url
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook
from messaging_platform_provider.operators import MessagingPlatformCreateCallbackOperator
from tests.support.operator_context import refused, run

PLAIN = "http://platform.example.com/api/v2.1"
PLAIN_RECEIVER = "http://hooks.example.com/keyword?token=s3cr3t-receiver-token"


def assert_refused_plainly(error: MessagingPlatformValidationError, field: str) -> None:
    """Names the parameter, says how to opt in, and does not repeat the URL (it may carry a token)."""
    assert error.field == field
    assert "http://" in error.problem and "allow_insecure_http" in error.problem
    assert "example.com" not in str(error)


# -- base_url ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8080/api/v2.1",
        "http://127.9.8.7/api/v2.1",
        "http://localhost:8080/api/v2.1",
        "HTTP://LocalHost/api/v2.1",
        "http://[::1]:8080/api/v2.1",
        "https://platform.example.com/api/v2.1",
    ],
)
def test_loopback_and_https_need_no_opt_in(url):
    assert normalize_base_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        PLAIN,
        "http://10.0.0.5/api/v2.1",
        "http://128.0.0.1/api/v2.1",
        "http://127.0.0.1.example.com/api/v2.1",
        "http://localhost.example.com/api/v2.1",
        "http://[::2]/api/v2.1",
        "http://0.0.0.0/api/v2.1",
    ],
)
def test_plain_http_elsewhere_is_refused_unless_opted_in(url):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url(url)
    assert_refused_plainly(caught.value, "base_url")
    assert normalize_base_url(url, allow_insecure_http=True) == url


def test_both_clients_refuse_a_plain_base_url_and_take_the_opt_in():
    for client_class in (MessagingPlatformClient, AsyncMessagingPlatformClient):
        with pytest.raises(MessagingPlatformValidationError) as caught:
            client_class(PLAIN, "key", "secret-of-key")
        assert_refused_plainly(caught.value, "base_url")
        client = client_class(PLAIN, "key", "secret-of-key", allow_insecure_http=True)
        assert (client.base_url, client.allow_insecure_http) == (PLAIN, True)


# -- the connection extra ---------------------------------------------------------------------------


@pytest.mark.parametrize("given", [True, "true", " TRUE ", "True"])
def test_the_connection_opts_in_for_both_hooks(platform, monkeypatch, given):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(extra={"base_url": PLAIN, "allow_insecure_http": given}),
    )
    hook = MessagingPlatformHook()
    assert (hook.client.base_url, hook.client.allow_insecure_http) == (PLAIN, True)

    async def async_client() -> AsyncMessagingPlatformClient:
        async_hook = MessagingPlatformAsyncHook()
        try:
            return await async_hook.aget_conn()
        finally:
            await async_hook.aclose()

    client = asyncio.run(async_client())
    assert (client.base_url, client.allow_insecure_http) == (PLAIN, True)


@pytest.mark.parametrize("given", [None, "", False, "false", "False"])
def test_without_the_opt_in_a_plain_base_url_is_refused_before_any_request(platform, monkeypatch, given):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(extra={"base_url": PLAIN, "allow_insecure_http": given}),
    )
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().list_campaigns()
    assert_refused_plainly(caught.value, "base_url")


@pytest.mark.parametrize("given", ["yes", "1", 1, 0, "on", ["true"]])
def test_an_opt_in_that_is_not_true_or_false_is_refused_naming_it(platform, monkeypatch, given):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(extra={"allow_insecure_http": given})
    )
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().list_campaigns()
    assert caught.value.field == "allow_insecure_http" and caught.value.allowed == ["true", "false"]
    assert platform.control.requests() == []


# -- callback record URLs ---------------------------------------------------------------------------


def test_a_plain_callback_url_is_refused_before_any_request(platform):
    hook = MessagingPlatformHook()
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.create_callback("Keyword", PLAIN_RECEIVER)
    assert_refused_plainly(caught.value, "url")
    assert "s3cr3t-receiver-token" not in str(caught.value)
    with pytest.raises(MessagingPlatformValidationError) as caught:  # the record's URL given as a raw body
        hook.call("create_callback", body={"CallbackType": 1, "Url": PLAIN_RECEIVER, "Active": True})
    assert_refused_plainly(caught.value, "url")
    with pytest.raises(MessagingPlatformValidationError) as caught:  # or through extra
        hook.create_callback("Keyword", "https://hooks.example.com/keyword", extra={"URL": PLAIN_RECEIVER})
    assert_refused_plainly(caught.value, "url")
    assert platform.control.requests() == []
    assert hook.list_callbacks() == []


def test_the_operator_refuses_a_plain_callback_url_before_its_lookup(platform):
    with refused("url") as caught:
        run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type="Keyword", url=PLAIN_RECEIVER))
    assert_refused_plainly(caught.value, "url")
    assert platform.control.requests() == []  # not even the retry-safe create's read of the records


def test_a_loopback_callback_url_needs_no_opt_in(platform):
    created = MessagingPlatformHook().create_callback("Stop", "http://127.0.0.1:8081/callbacks")
    assert created["URL"] == "http://127.0.0.1:8081/callbacks"


def test_the_connection_opt_in_allows_a_plain_callback_url(platform, monkeypatch):
    conn = json.loads(platform.connection_json(extra={"allow_insecure_http": "true"}))
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", json.dumps(conn))
    result = run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type="Keyword", url=PLAIN_RECEIVER))
    assert result["URL"] == PLAIN_RECEIVER


def test_the_plain_client_takes_the_opt_in_for_callback_urls(platform):
    seed = platform.seed
    with MessagingPlatformClient(
        platform.base_url, seed.api_key, seed.api_secret, account_id=seed.account_id
    ) as client:
        with pytest.raises(MessagingPlatformValidationError) as caught:
            client.create_callback("Keyword", PLAIN_RECEIVER)
        assert_refused_plainly(caught.value, "url")
    assert platform.control.requests() == []
    opted_in = MessagingPlatformClient(
        platform.base_url, seed.api_key, seed.api_secret, account_id=seed.account_id, allow_insecure_http=True
    )
    with opted_in as client:
        assert client.create_callback("Keyword", PLAIN_RECEIVER)["URL"] == PLAIN_RECEIVER


def test_the_async_client_refuses_a_plain_callback_url(platform):
    seed = platform.seed

    async def create() -> None:
        client = AsyncMessagingPlatformClient(platform.base_url, seed.api_key, seed.api_secret, account_id=1001)
        try:
            await client.call("create_callback", body={"CallbackType": 1, "URL": PLAIN_RECEIVER, "Active": True})
        finally:
            await client.aclose()

    with pytest.raises(MessagingPlatformValidationError) as caught:
        asyncio.run(create())
    assert_refused_plainly(caught.value, "url")
    assert platform.control.requests() == []


def test_call_many_refuses_a_plain_callback_url_unless_the_connection_opts_in(platform, monkeypatch):
    items = [{"body": {"CallbackType": 6, "URL": PLAIN_RECEIVER, "Active": True}}]
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().call_many("create_callback", items)
    assert "calls[0]" in caught.value.field and "allow_insecure_http" in str(caught.value)
    assert platform.control.requests() == []
    conn = json.loads(platform.connection_json(extra={"allow_insecure_http": "true"}))
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", json.dumps(conn))
    (outcome,) = MessagingPlatformHook().call_many("create_callback", items)
    assert outcome.ok and outcome.value["URL"] == PLAIN_RECEIVER
