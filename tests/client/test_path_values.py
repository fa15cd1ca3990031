"""
Path and query values from DAG authors cannot escape their segment: every operation's request either is refused
before anything is sent, naming the parameter, or has exactly the segments its declaration has, each decoding to
the value given. Checked on the URL as both transports would send it (``requests`` and ``httpx`` normalise dot
segments), with examples from the field and with Hypothesis.
"""

from __future__ import annotations

import logging
import string
from decimal import Decimal
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
import requests
from hypothesis import given, settings, strategies as st

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.client.operations import OPERATIONS, Operation
from messaging_platform_provider.client.request import prepare
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

BASE = "https://platform.example.com/api/v2.1"
ROOT = "/api/v2.1"
WITH_STRING_PARAMS = [n for n, op in OPERATIONS.items() if set(op.path_params) - op.int_params]
WITH_INT_PARAMS = [n for n, op in OPERATIONS.items() if op.int_params - {"account_id"}]


def _sent_paths(op: Operation, params: dict[str, Any]) -> list[str]:
    """The path each transport would put on the wire for ``params`` (raises the validation error)."""
    prepared = prepare(op, BASE, {"account_id": 1001, **params}, body=None if op.body == "none" else {})
    by_requests = requests.Request(op.method, prepared.url).prepare().path_url
    by_httpx = httpx.URL(prepared.url).raw_path.decode()
    return [by_requests, by_httpx]


def _assert_segments(op: Operation, params: dict[str, Any], path: str) -> None:
    declared = op.path.strip("/").split("/")
    sent = path.removeprefix(ROOT).strip("/").split("/")
    assert len(sent) == len(declared), (op.name, params, path)
    for template, segment in zip(declared, sent, strict=True):
        if template.startswith("{"):
            name = template[1:-1]
            expected = str(int(params[name])) if name in op.int_params or name == "account_id" else str(params[name])
            assert unquote(segment) == expected, (op.name, name, path)
        else:
            assert segment == template


def _outcome(op: Operation, params: dict[str, Any]) -> None:
    try:
        paths = _sent_paths(op, params)
    except MessagingPlatformValidationError as exc:
        assert exc.field in params, (op.name, exc.field)  # names the parameter the caller wrote
        assert exc.field in str(exc)
        return
    for path in paths:
        _assert_segments(op, params, path)


def _params(op: Operation, value: Any, name: str) -> dict[str, Any]:
    params: dict[str, Any] = {p: 7 for p in op.path_params if p != "account_id"}
    params[name] = value
    return params


@pytest.mark.parametrize(
    ("operation", "name", "value"),
    [
        ("delete_external_coupon_code", "coupon_code", ".."),
        ("delete_external_coupon_code", "coupon_code", "."),
        ("revoke_api_key", "key_id", ".."),
        ("get_filter_group", "group_id", "."),
        ("get_campaign", "campaign_id", "²"),
        ("get_campaign", "campaign_id", "9" * 5000),
        ("get_campaign", "campaign_id", "0"),
        ("get_campaign", "campaign_id", -3),
        ("get_campaign", "campaign_id", 2**63),
        ("get_campaign", "campaign_id", True),
        ("get_schedule", "schedule_id", "  "),
    ],
)
def test_values_that_would_address_something_else_are_refused_before_sending(platform, operation, name, value):
    hook = MessagingPlatformHook()
    params = _params(OPERATIONS[operation], value, name)
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.call(operation, **params)
    assert caught.value.field == name
    assert len(str(caught.value)) < 200  # a 5,000-digit value is not echoed whole
    assert platform.control.requests() == []


# Each code as the platform must receive it (RFC 3986: everything but unreserved characters percent-encoded, UTF-8).
ODD_CODES = [
    ("A/1", "A%2F1"),
    ("50% off", "50%25%20off"),
    ("what?", "what%3F"),
    ("#1", "%231"),
    ("a b", "a%20b"),
    ("..a", "..a"),
    ("%2e%2e", "%252e%252e"),
    ("%2F", "%252F"),
    ("ß", "%C3%9F"),
    ("x+y&z=1", "x%2By%26z%3D1"),
]


@pytest.mark.parametrize(("code", "on_the_wire"), ODD_CODES)
def test_odd_coupon_codes_stay_one_segment_on_the_wire(platform, code, on_the_wire):
    hook = MessagingPlatformHook()
    list_id = hook.create_external_coupon_list("One code", coupon_codes=[code])["Id"]
    assert hook.delete_external_coupon_code(list_id, code, missing_ok=False) is True
    (_, record) = platform.control.requests()
    assert record["path"] == f"{ROOT}/account/1001/external-couponlist/{list_id}/code/{on_the_wire}"
    assert record["status"] == 200


def test_odd_coupon_codes_round_trip_through_hook_and_emulator(platform):
    codes = [code for code, _ in ODD_CODES]
    hook = MessagingPlatformHook()
    created = hook.create_external_coupon_list("Odd codes", coupon_codes=[*codes, "KEEP"])
    assert sorted(c["CouponCode"] for c in hook.list_external_coupon_codes(created["Id"])) == sorted([*codes, "KEEP"])
    for code in codes:
        assert hook.delete_external_coupon_code(created["Id"], code, missing_ok=False) is True, code
    assert [c["CouponCode"] for c in hook.list_external_coupon_codes(created["Id"])] == ["KEEP"]


def test_deleting_a_code_that_is_not_there_says_nothing_was_deleted(platform, caplog):
    hook = MessagingPlatformHook()
    list_id = hook.create_external_coupon_list("Other codes", coupon_codes=["A"])["Id"]
    with caplog.at_level(logging.WARNING):
        assert hook.delete_external_coupon_code(list_id, "A/1") is False
    (warning,) = [r.getMessage() for r in caplog.records if r.name == "messaging_platform_provider.client.api.base"]
    path = f"/account/1001/external-couponlist/{list_id}/code/A%2F1"
    assert warning.startswith(f"Nothing deleted (missing_ok): DELETE {path} failed with HTTP 404")
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.delete_external_coupon_code(list_id, "A/1", missing_ok=False)
    assert caught.value.status == 404
    assert [c["CouponCode"] for c in hook.list_external_coupon_codes(list_id)] == ["A"]


PRINTABLE_AND_MORE = st.text(alphabet=st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    [".", "..", "/", "%2e", "%2F", "?x=1", "#top", " ", "0", "-1", "²", "1e3", "007"]
)
ANY_VALUE = PRINTABLE_AND_MORE | st.integers(min_value=-(2**70), max_value=2**70) | st.booleans() | st.none()


@settings(max_examples=3 * settings.default.max_examples)
@given(data=st.data())
def test_every_path_value_is_refused_or_lands_in_its_own_segment(data):
    name = data.draw(st.sampled_from(list(OPERATIONS)))
    op = OPERATIONS[name]
    params = {p: data.draw(ANY_VALUE, label=p) for p in op.path_params if p != "account_id"}
    params["account_id"] = data.draw(st.integers(min_value=1, max_value=2**63 - 1) | ANY_VALUE, label="account_id")
    _outcome(op, params)


@settings(max_examples=2 * settings.default.max_examples)
@given(data=st.data())
def test_every_query_value_is_refused_or_sent_as_given(data):
    name = data.draw(st.sampled_from([n for n, op in OPERATIONS.items() if op.query]))
    op = OPERATIONS[name]
    option = data.draw(st.sampled_from(op.query))
    value = data.draw(st.text(alphabet=string.printable, max_size=20) | st.integers(0, 10**6) | st.booleans())
    params = {p: 7 for p in op.path_params}
    prepared = prepare(op, BASE, params, body=None if op.body == "none" else {}, query={option: value})
    sent = requests.Request(op.method, prepared.url, params=prepared.params).prepare()
    query = httpx.URL(sent.url).params
    expected = ("true" if value else "false") if isinstance(value, bool) else str(value)
    assert query.get_list(option) == [expected]
    _assert_segments(op, params, sent.path_url.split("?")[0])


@pytest.mark.parametrize(
    ("value", "sent"),
    [(1, "1"), (" 42 ", "42"), (2**63 - 1, "9223372036854775807"), ("0009", "9")],
    ids=["one", "spaces", "largest", "leading-zeros"],
)
def test_ids_at_the_edges_are_sent_as_plain_integers(value, sent):
    prepared = prepare(OPERATIONS["get_campaign"], BASE, {"account_id": 1001, "campaign_id": value})
    assert prepared.path == f"/account/1001/campaign/{sent}"


@pytest.mark.parametrize(
    ("value", "shown"),
    [(0, "0"), (2**63, "9223372036854775808"), (Decimal("12"), "Decimal('12')"), (12.0, "12.0"), (True, "True")],
    ids=["zero", "too-large", "decimal", "float", "bool"],
)
def test_ids_past_the_edges_or_of_another_type_are_refused(value, shown):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare(OPERATIONS["get_campaign"], BASE, {"account_id": 1001, "campaign_id": value})
    assert str(caught.value) == f"campaign_id: must be a positive integer, got {shown}"
