"""
Violations: what the vendor's own client libraries send, taken as the platform takes it, converted, and recorded
under ``GET /_emulator/violations``; the same requests refused under ``--strict``. The record's fields, ``since``,
``DELETE`` and reset, and the control client's methods.
"""

from __future__ import annotations

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_INVALID_VALUE = 0x06000000

# Requests as the vendor's client libraries write them: the JavaScript one writes every Date with a Z; the .NET and
# Java ones spell the callback's URL "Url"; the JavaScript one spells ValidRollingOffSet "ValidRollingOffset".
JS_SCHEDULE = {"ScheduleTypeId": 6, "RunAt": "09:00:00", "StartFrom": "2026-12-01T00:00:00.000Z"}
OFFSET_SCHEDULE = {"ScheduleTypeId": 6, "RunAt": "09:00:00", "StartFrom": "2026-12-01T02:00:00+02:00"}
DOTNET_CALLBACK = {"CallbackType": 1, "Url": "https://example.com/hooks/keyword", "Active": True}
JS_COUPON = {"CouponTypeId": 0, "StaticCode": "SAVE10", "ValidDateTypeId": 2, "ValidRollingDays": 7}


def coupon_url(handle) -> str:
    campaign = handle.create_campaign(CampaignTypeId=4)
    return f"{handle.campaigns}/{campaign['Id']}/coupon"


@DEPARTS
def test_the_client_libraries_spellings_are_taken_converted_and_recorded(emu):
    schedule = emu.created(emu.schedules, JS_SCHEDULE)
    assert schedule["StartFrom"] == "2026-12-01T00:00:00"
    assert emu.api("GET", f"{emu.schedules}/{schedule['Id']}").json()["StartFrom"] == "2026-12-01T00:00:00"
    offset = emu.created(emu.schedules, OFFSET_SCHEDULE)
    assert offset["StartFrom"] == "2026-12-01T00:00:00"  # +02:00 is two hours ahead of UTC
    callback = emu.created(emu.at("/callback"), DOTNET_CALLBACK)
    assert callback["URL"] == "https://example.com/hooks/keyword"
    coupon = emu.api("PUT", coupon_url(emu), json={**JS_COUPON, "ValidRollingOffset": 2})
    assert (coupon.status_code, coupon.json()["ValidRollingOffSet"]) == (200, 2)

    violations = emu.server.control.violations()
    assert [(v["method"], v["path"], v["property"], v["rule"], v["status"]) for v in violations] == [
        ("POST", f"/api/v2.1{emu.schedules}", "StartFrom", "date-time-offset", 201),
        ("POST", f"/api/v2.1{emu.schedules}", "StartFrom", "date-time-offset", 201),
        ("POST", f"/api/v2.1{emu.at('/callback')}", "URL", "property-case", 201),
        ("PUT", f"/api/v2.1{emu.campaigns}/3001/coupon", "ValidRollingOffSet", "property-case", 200),
    ]
    assert (
        violations[0]["detail"]
        == "sent '2026-12-01T00:00:00.000Z', read as 2026-12-01T00:00:00 (UTC, without the offset)"
    )
    assert violations[2]["detail"] == "sent as 'Url'"
    assert [v["seq"] for v in violations] == sorted(v["seq"] for v in violations)


@pytest.mark.parametrize(
    ("method", "path", "body", "prop", "object_type"),
    [
        ("POST", "schedules", JS_SCHEDULE, "StartFrom", "ActionSchedule"),
        ("POST", "schedules", OFFSET_SCHEDULE, "StartFrom", "ActionSchedule"),
        ("POST", "callbacks", DOTNET_CALLBACK, "URL", "Callback"),
        ("PUT", "coupon", {**JS_COUPON, "ValidRollingOffset": 2}, "ValidRollingOffSet", "CouponDefinition"),
    ],
)
def test_the_same_requests_are_refused_when_strict(strict_emu, method, path, body, prop, object_type):
    url = {"schedules": strict_emu.schedules, "callbacks": strict_emu.at("/callback")}.get(path) or coupon_url(
        strict_emu
    )
    response = strict_emu.api(method, url, json=body)
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, prop, object_type)
    [violation] = strict_emu.server.control.violations()
    assert (violation["property"], violation["status"]) == (prop, 400)


def test_a_request_in_the_references_form_records_nothing(emu):
    emu.created(emu.schedules, {**JS_SCHEDULE, "StartFrom": "2026-12-01T00:00:00.000"})
    emu.created(emu.at("/callback"), {"CallbackType": 1, "URL": "https://example.com/hooks/keyword", "Active": True})
    emu.api("PUT", coupon_url(emu), json={**JS_COUPON, "ValidRollingOffSet": 2}).raise_for_status()
    assert emu.server.control.violations() == []


@DEPARTS
def test_since_delete_and_reset(emu):
    control = emu.server.control
    emu.created(emu.schedules, JS_SCHEDULE)
    [first] = control.violations()
    emu.created(emu.at("/callback"), DOTNET_CALLBACK)
    assert [v["property"] for v in control.violations(since=first["seq"])] == ["URL"]
    assert [v["property"] for v in emu.ok("GET", "/violations", params={"since": first["seq"]})] == ["URL"]
    assert control.clear_violations() == 2
    assert control.violations() == []
    emu.created(emu.schedules, JS_SCHEDULE)
    [after] = control.violations()
    assert after["seq"] > first["seq"] + 1  # numbers are never reused
    control.reset()
    assert control.violations() == []
    assert emu.ok("DELETE", "/violations") == {"cleared": 0}


def test_control_requests_are_never_violations(emu):
    emu.ok("POST", "/accounts", json={"name": "Other"})
    emu.ok("POST", "/channels", json={"code": "+15125550101"})
    assert emu.server.control.violations() == []


@DEPARTS
def test_a_refused_request_records_its_departures_with_its_status(emu):
    response = emu.api("POST", emu.schedules, json={"RunAt": "09:00:00", "startFrom": "2026-12-01T00:00:00Z"})
    assert response.status_code == 400
    assert [(v["property"], v["rule"], v["status"]) for v in emu.server.control.violations()] == [
        ("ScheduleTypeId", "required-property", 400),
        ("StartFrom", "property-case", 400),
        ("StartFrom", "date-time-offset", 400),
    ]
