"""
Conformance: every operation's requests, as the emulator received them, checked against a second reading of the
API reference (``spec_rules``, which imports neither the provider nor the emulator), and one test per row of the
conformance table in ``docs/conformance.md``.
"""

from __future__ import annotations

import re

import pytest

from messaging_platform_provider.client import RetryPolicy
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.client.conformance.conformance_calls import CALLS, World, representative_call
from tests.client.conformance.conformance_rows import ROWS, Row
from tests.client.conformance.conformance_table import current, table
from tests.client.conformance.spec_rules import ENDPOINTS, Request, check, find_endpoint
from tests.support.sample_resources import SampleResources

FAST = RetryPolicy(max_attempts=2, backoff_base=0.01, backoff_max=0.02)


@pytest.fixture
def world(platform) -> World:
    seed = platform.seed
    hook = MessagingPlatformHook(retry_policy=FAST)
    return World(
        hook=hook,
        action_id=seed.action_id,
        api_key_id=seed.api_key_id,
        contact_list_id=seed.resources["contact_list_id"],
        group_id=seed.resources["root_group_id"],
        channel_id=seed.resources["channel_id"],
        keyword_id=seed.resources["keyword_id"],
        resources=SampleResources(hook, seed),
    )


def _shape(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def _sent(platform, operation: str) -> tuple[list[Request], list[Request]]:
    """Every request the emulator received, and those of ``operation`` (found by the reference's endpoints)."""
    op = OPERATIONS[operation]
    records = [Request.from_record(r) for r in platform.control.requests()]
    statuses = [r["status"] for r in platform.control.requests()]
    assert all(s is not None and s < 300 for s in statuses), statuses
    own = []
    for request in records:
        endpoint = find_endpoint(request.method, request.path)
        if endpoint is not None and endpoint.method == op.method and _shape(endpoint.template) == _shape(op.path):
            own.append(request)
    return records, own


def test_every_operation_has_a_representative_call_and_an_endpoint_in_the_reference():
    writes = {name for name, op in OPERATIONS.items() if op.method != "GET"}
    assert writes <= set(CALLS) <= set(OPERATIONS)
    declared = {(op.method, _shape(op.path)) for op in OPERATIONS.values()}
    assert declared <= {(e.method, _shape(e.template)) for e in ENDPOINTS}
    # Every endpoint of the spec's section 4 is declared; the reference also reads endpoints of the platform facts.
    assert {(e.method, _shape(e.template)) for e in ENDPOINTS if e.section.startswith("§4")} <= declared


@pytest.mark.parametrize("operation", list(OPERATIONS))
def test_every_request_of_every_operation_conforms(operation, platform, world):
    representative_call(operation)(world)
    records, own = _sent(platform, operation)
    assert own, f"{operation} sent nothing the reference knows"
    for request in records:
        assert check(request) == [], (request.method, request.path, request.body)


@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.id)
def test_row(row: Row, platform, world):
    row.run(world)
    _, own = _sent(platform, row.operation)
    assert own, f"{row.operation} was not sent"
    request = own[-1]
    assert check(request) == []
    assert row.expect(request), (row.we_send, request.query, request.body)


def test_rows_have_unique_ids_and_name_declared_operations():
    assert len({row.id for row in ROWS}) == len(ROWS)
    assert {row.operation for row in ROWS} <= set(OPERATIONS)


def test_the_docs_table_is_generated_from_the_rows():
    assert current() == table(), "run .venv/bin/python -m tests.client.conformance.conformance_table"


HEADERS = {"accept": "application/json", "content-type": "application/json", "authorization": "Basic a2V5OnNlY3JldA=="}
COUPON = "/api/v2.1/account/1001/campaign/3001/coupon"


def _request(method: str, path: str, body: object = None, query: str = "", **headers: str) -> Request:
    import json

    raw = "" if body is None else json.dumps(body)
    return Request(method, path, query, {**HEADERS, **headers}, body, raw)


# Each a request that breaks one rule, and a phrase of the problem the check must report: the check can fail.
BROKEN = [
    (_request("PUT", COUPON, {"CouponTypeId": 2, "MaxUses": 1, "ExternalListId": 2001}), "StaticCode is required"),
    (_request("POST", COUPON, {"CouponTypeId": 1, "StaticCode": None}), "StaticCode is required"),
    (_request("PUT", COUPON, {"CouponTypeId": 0, "staticCode": "A"}), "not PascalCase"),
    (_request("PUT", COUPON, {"CouponTypeId": 2, "StaticCode": "", "ValidRollingOffset": 1}), "not a property"),
    (_request("PUT", COUPON, {"CouponTypeId": "External", "StaticCode": ""}), "CouponTypeId must be a number"),
    (_request("PUT", COUPON, {"CouponTypeId": 0, "StaticCode": "A", "ValidTo": "2026-12-01T00:00:00Z"}), "offset"),
    (
        _request("POST", "/api/v2.1/account/1001/action/5001/schedule", {"ScheduleTypeId": 7, "RunAt": "09:30:00"}),
        "StartFrom is required",
    ),
    (
        _request(
            "POST",
            "/api/v2.1/account/1001/action/5001/schedule",
            {"ScheduleTypeId": 7, "RunAt": "09:30:00", "StartFrom": "2026-12-01T08:00:00"},
        ),
        "WeekDay is required when ScheduleTypeId is 7",
    ),
    (
        _request(
            "PUT",
            "/api/v2.1/account/1001/action/5001/schedule/6001",
            {"ScheduleTypeId": 6, "RunAt": "9:30", "StartFrom": "2026-12-01T08:00:00+02:00"},
        ),
        "RunAt must be a time",
    ),
    (_request("POST", "/api/v2.1/account/1001/callback", {"CallbackType": 1, "Url": "https://x.test"}), "URL is"),
    (_request("POST", "/api/v2.1/account/1001/callback", {"CallbackType": 1, "URL": "https://x.test"}), "Active is"),
    (_request("PUT", "/api/v2.1/account/1001/api-key/7", {"Secret": "mine"}), "takes no body"),
    (_request("POST", "/api/v2.1/account/1001/channel/22/keyword/8001/campaign", {"CampaignId": 3001}), "bare JSON"),
    (_request("PUT", "/api/v2.1/account/1001/contactlist/4001/group/1", {"Operator": "OR", "Filters": []}), "cannot"),
    (_request("DELETE", "/api/v2.1/account/1001/api-key/.."), "one non-empty segment"),
    (_request("GET", "/api/v2.1/account/1001/campaign/0"), "positive integer"),
    (_request("GET", "/api/v2.1/account/1001/campaign", query="onlyMine=1"), "true or false"),
    (_request("GET", "/api/v2.1/account/1001/campaign", query="%24select=Name"), "not a query option"),
    (_request("GET", "/api/v2.1/account/1001/campaign", accept="application/xml"), "Accept"),
    (_request("GET", "/api/v2.1/account/1001/campaign/", authorization=""), "authenticated"),
    (_request("GET", "/api/v2.1/account/1001/keyword"), "no such endpoint"),
]


@pytest.mark.parametrize(("request_", "problem"), BROKEN, ids=[p for _, p in BROKEN])
def test_the_check_reports_each_broken_rule(request_: Request, problem: str):
    problems = check(request_)
    assert any(problem in p for p in problems), problems
