"""
The plain http:// refusals at their edges, on the base URL (``normalize_base_url``) and on the request as it is
built (``prepare``, before any I/O): what each refusal says travels in clear, which hosts are loopback (``localhost``
with its trailing dot; a URL with no host is not), which bodies the callback URL check reads (a callback record's, no
other operation's) and which of a record's fields (its URL only). ``prepare`` refuses unless its caller opts in.
``test_plain_http.py`` has the refusals and the opt-in through every client and hook.
"""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.request import normalize_base_url, prepare

BASE = "https://platform.example.com/api/v2.1"
PLAIN_RECEIVER = "http://hooks.example.com/keyword?token=s3cr3t-receiver-token"


def test_the_refusal_says_it_is_the_callback_token_that_would_travel_in_clear() -> None:
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(
            Operations.create_callback,
            BASE,
            {"account_id": 1001},
            {"CallbackType": 1, "Url": PLAIN_RECEIVER, "Active": True},
        )
    assert caught.value.field == "url"
    assert caught.value.problem.startswith(
        "is a plain http:// URL to a host that is not loopback, which would send the account's callback token in "
        "clear; use https://"
    )


def test_the_refusal_of_a_plain_base_url_says_it_is_the_api_key_and_secret_that_would_travel_in_clear() -> None:
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url("http://platform.example.com/api/v2.1")
    assert caught.value.field == "base_url"
    assert caught.value.problem.startswith(
        "is a plain http:// URL to a host that is not loopback, which would send the API key and secret in clear; "
        "use https://"
    )


def test_localhost_written_with_its_trailing_dot_is_loopback() -> None:
    """``localhost.`` is the fully qualified spelling of ``localhost``: no opt-in needed, as for ``localhost``."""
    assert normalize_base_url("http://localhost.:8080/api/v2.1") == "http://localhost.:8080/api/v2.1"
    body = {"CallbackType": 1, "URL": "http://localhost.:8081/callbacks", "Active": True}
    prepared = prepare(Operations.create_callback, BASE, {"account_id": 1001}, body)
    assert prepared.content == b'{"CallbackType":1,"URL":"http://localhost.:8081/callbacks","Active":true}'


def test_a_plain_url_without_a_host_is_not_taken_for_loopback() -> None:
    """A port with no host before it (a template that rendered an empty host): refused like any other host."""
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url("http://:8080/api/v2.1")
    assert caught.value.field == "base_url" and "not loopback" in caught.value.problem
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(
            Operations.create_callback,
            BASE,
            {"account_id": 1001},
            {"CallbackType": 1, "URL": "http://:8081/callbacks", "Active": True},
        )
    assert caught.value.field == "url" and "not loopback" in caught.value.problem


def test_a_url_in_the_body_of_another_operation_is_not_a_callback_records() -> None:
    """
    A field the provider does not declare, sent through ``extra`` or a raw body, carries no callback token: only a
    callback record's URL is refused.
    """
    body = {
        "Name": "Spring sale",
        "CampaignTypeId": 1,
        "UserData": "landing page",
        "URL": "http://landing.example.com/",
    }
    prepared = prepare(Operations.create_campaign, BASE, {"account_id": 1001}, body)
    assert prepared.content == (
        b'{"Name":"Spring sale","CampaignTypeId":1,"UserData":"landing page","URL":"http://landing.example.com/"}'
    )


def test_a_callback_record_whose_url_is_null_is_left_to_the_platform() -> None:
    """A ``null`` URL has no host to send the token to: the body is sent as it is, for the platform to refuse."""
    prepared = prepare(
        Operations.create_callback, BASE, {"account_id": 1001}, {"CallbackType": 1, "URL": None, "Active": True}
    )
    assert (prepared.method, prepared.path) == ("POST", "/account/1001/callback")
    assert prepared.content == b'{"CallbackType":1,"URL":null,"Active":true}'


def test_a_callback_url_given_as_an_object_is_checked_as_the_text_it_is_sent_as() -> None:
    """
    A URL object (``httpx.URL``, a ``yarl.URL``) in a callback record is sent as its text (the body is encoded with
    ``default=str``): a plain ``http://`` one is refused like the text, and an ``https://`` one goes as its text.
    """
    import httpx

    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(
            Operations.create_callback,
            BASE,
            {"account_id": 1001},
            {"CallbackType": 1, "URL": httpx.URL(PLAIN_RECEIVER), "Active": True},
        )
    assert caught.value.field == "url" and "not loopback" in caught.value.problem
    secure = {"CallbackType": 1, "URL": httpx.URL("https://hooks.example.com/keyword"), "Active": True}
    prepared = prepare(Operations.create_callback, BASE, {"account_id": 1001}, secure)
    assert prepared.content == b'{"CallbackType":1,"URL":"https://hooks.example.com/keyword","Active":true}'
