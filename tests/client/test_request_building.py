"""Request building: the base URL check, the query options and body bytes, and the spelling of answer keys."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.client.request import PreparedRequest, decode, normalize_base_url, prepare
from messaging_platform_provider.client.values import http_url

BASE = "https://platform.example.com/api/v2.1"


# normalize_base_url


def test_https_url_is_accepted_without_trailing_slash():
    assert normalize_base_url(" https://platform.example.com/api/v2.1/ ") == "https://platform.example.com/api/v2.1"


def test_http_url_is_accepted():
    assert normalize_base_url("http://localhost:8080/api/v2.1") == "http://localhost:8080/api/v2.1"


@pytest.mark.parametrize(
    "url",
    [
        "https://key@platform.example.com/api/v2.1",
        "https://:secret@platform.example.com/api/v2.1",
        "https://key:secret@platform.example.com/api/v2.1",
    ],
)
def test_credentials_in_the_url_are_refused(url):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url(url)
    assert str(caught.value) == (
        "base_url: must not carry credentials; the API key and secret go in login and password"
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        (
            "ftp://platform.example.com/api/v2.1",
            "base_url: is not an absolute URL with a host",
        ),
        ("https:///api/v2.1", "base_url: is not an absolute URL with a host"),
    ],
)
def test_not_absolute_http_urls_are_refused(url, message):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url(url)
    assert str(caught.value) == message + " (allowed: http, https)"


@pytest.mark.parametrize(
    "url", ["https://platform.example.com/api/v2.1?tenant=1", "https://platform.example.com/api/v2.1#top"]
)
def test_query_or_fragment_is_refused(url):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url(url)
    assert str(caught.value) == "base_url: must not carry a query or fragment"


@pytest.mark.parametrize(
    "url",
    [
        "key:s3cr3t-value@platform.example.com/api/v2.1",  # no scheme: urlsplit reads "key" as one
        "https://platform.example.com/api/v2.1?token=s3cr3t-value",
        "https://platform.example.com/s3cr3t-value",
    ],
)
def test_an_error_never_repeats_the_url_which_may_hold_a_secret(url):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url(url)
    assert "s3cr3t" not in str(caught.value)


@pytest.mark.parametrize(
    ("url", "suffixes"),
    [
        ("user:s3cr3t-value@hooks.example.com/keyword", ()),
        ("ftp://hooks.example.com/keyword?token=s3cr3t-value", ()),
        ("https://media.example.com/s3cr3t-value/greeting.txt", (".mp3", ".wav")),
    ],
)
def test_a_url_field_error_never_repeats_the_url(url, suffixes):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        http_url("URL", url, suffixes)
    assert caught.value.field == "URL" and "s3cr3t" not in str(caught.value)


def test_only_slashes_are_trimmed_from_the_end():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        normalize_base_url("https://platform.example.com/api/v2.1X")
    assert str(caught.value) == ("base_url: must end with /api/v2.1, the version segment of the service root")


# prepare


def test_unknown_query_option_is_refused():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(OPERATIONS["list_campaigns"], BASE, {"account_id": 1001}, query={"top": 5})
    assert caught.value.field == "top"
    assert str(caught.value) == "top: is not a query option of list_campaigns (allowed: onlyMine, $filter)"


def test_get_has_no_body():
    prepared = prepare(OPERATIONS["get_campaign"], BASE, {"account_id": 1001, "campaign_id": 5})
    assert prepared == PreparedRequest("GET", "/account/1001/campaign/5", BASE + "/account/1001/campaign/5", {}, None)
    assert prepared.content is None


def test_object_operation_refuses_a_list_body():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(OPERATIONS["create_campaign"], BASE, {"account_id": 1001}, body=["Spring sale"])
    assert str(caught.value) == "body: create_campaign takes a JSON object, got list"


def test_body_is_compact_json():
    prepared = prepare(
        OPERATIONS["create_campaign"], BASE, {"account_id": 1001}, body={"Name": "Spring sale", "TypeId": 1}
    )
    assert prepared.content == b'{"Name":"Spring sale","TypeId":1}'


def test_body_values_json_cannot_hold_are_sent_as_text():
    body = {"StartFrom": datetime(2026, 7, 1, 12, 0), "Price": Decimal("9.90")}
    prepared = prepare(OPERATIONS["create_campaign"], BASE, {"account_id": 1001}, body=body)
    assert prepared.content == b'{"StartFrom":"2026-07-01 12:00:00","Price":"9.90"}'


# _pascal (through decode)


def test_empty_key_is_kept_as_is():
    prepared = PreparedRequest("GET", "/account/1001/campaign/5", BASE + "/account/1001/campaign/5", {}, None)
    answer = decode(OPERATIONS["get_campaign"], prepared, 200, b'{"": 1, "id": 5, "url": "https://x.example"}')
    assert answer == {"": 1, "Id": 5, "URL": "https://x.example"}
