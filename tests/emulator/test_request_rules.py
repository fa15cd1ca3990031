"""Rules every platform request meets: JSON content type (415), no redirect for a trailing slash, case-sensitive
property names (spec §1), integer/number types, and $ query options only where an endpoint takes them."""

from __future__ import annotations

import pytest
import requests

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
CAMPAIGN = b'{"Name": "Typed", "CampaignTypeId": 1}'


def post_raw(emu, path: str, raw: bytes, content_type: str | None) -> requests.Response:
    headers = {} if content_type is None else {"Content-Type": content_type}
    return emu.api("POST", path, data=raw, headers=headers)


# -- Content-Type (facts §1: send application/json; 415 for another type) ------------------------------------


@pytest.mark.parametrize(
    ("content_type", "shown"),
    [
        ("text/plain", "text/plain"),
        ("application/xml", "application/xml"),
        ("application/x-www-form-urlencoded", "application/x-www-form-urlencoded"),
        ("application/jsonp", "application/jsonp"),
        (None, "application/octet-stream"),
    ],
)
def test_a_body_that_is_not_declared_json_is_415(emu, content_type, shown):
    response = post_raw(emu, emu.campaigns, CAMPAIGN, content_type)
    assert response.status_code == 415
    assert response.json() == [
        {
            "ErrorCodeId": 0,
            "ErrorMessage": f"The request entity's media type '{shown}' is not supported for this resource.",
            "ObjectType": None,
            "PropertyName": None,
        }
    ]
    assert emu.api("GET", emu.campaigns).status_code == 204


def test_only_the_json_media_type_is_accepted_with_parameters_or_in_any_case(emu):
    for content_type in ("application/json; charset=utf-8", "Application/JSON", "application/json"):
        assert post_raw(emu, emu.campaigns, CAMPAIGN, content_type).status_code == 201
    assert post_raw(emu, emu.campaigns, CAMPAIGN, "text/json").status_code == 415


def test_every_body_route_checks_the_content_type(emu):
    created = emu.create_campaign(CampaignTypeId=4)
    routes = [
        ("PUT", f"{emu.campaigns}/{created['Id']}"),
        ("PUT", f"{emu.campaigns}/{created['Id']}/coupon"),
        ("POST", f"{emu.campaigns}/{created['Id']}/coupon"),
        ("POST", emu.schedules),
        ("POST", emu.at("/external-couponlist")),
        ("POST", emu.at("/api-key")),
        ("POST", emu.at("/action-pushvoicecall")),
        ("PUT", emu.at("/contactlist/4001/group/4101")),
        ("POST", emu.at("/callback")),
        ("POST", emu.at("/channel/22/keyword/JOIN/campaign")),
        ("POST", emu.at("/event-redeemcoupon")),
    ]
    for method, path in routes:
        response = emu.api(method, path, data=b"{}", headers={"Content-Type": "text/plain"})
        assert response.status_code == 415, (method, path, response.text)


def test_order_is_401_then_415_then_404(emu):
    unauthorised = requests.post(
        emu.server.base_url + emu.campaigns, data=CAMPAIGN, headers={"Content-Type": "text/plain"}, timeout=10
    )
    assert unauthorised.status_code == 401
    assert post_raw(emu, "/account/999/campaign", CAMPAIGN, "text/plain").status_code == 415
    assert post_raw(emu, "/account/999/campaign", CAMPAIGN, "application/json").status_code == 404
    # An empty body needs no content type; a route that takes no body does not look at it.
    assert emu.error(post_raw(emu, emu.campaigns, b"", None))[0] == PROPERTY_REQUIRED
    assert emu.api("PUT", emu.at("/api-key/1")).status_code == 200


# -- trailing slash: served as the same route, never redirected ----------------------------------------------


def test_a_trailing_slash_is_the_same_route_and_not_a_redirect(emu):
    created = emu.create_campaign(Name="Slash")
    listed = emu.api("GET", emu.campaigns + "/", allow_redirects=False)
    assert (listed.status_code, "location" in listed.headers) == (200, False)
    assert [c["Name"] for c in listed.json()] == ["Slash"]
    one = emu.api("GET", f"{emu.campaigns}/{created['Id']}/", allow_redirects=False)
    assert (one.status_code, one.json()["Id"]) == (200, created["Id"])
    made = emu.api("POST", emu.campaigns + "/", json={"Name": "Posted", "CampaignTypeId": 1}, allow_redirects=False)
    assert (made.status_code, made.json()["Name"]) == (201, "Posted")
    empty = emu.api("GET", emu.schedules + "/", allow_redirects=False)
    assert (empty.status_code, empty.content) == (204, b"")


def test_the_request_record_keeps_the_path_as_sent(emu):
    emu.ok("DELETE", "/requests")
    emu.api("GET", emu.campaigns + "/", allow_redirects=False)
    [record] = emu.ok("GET", "/requests")
    assert (record["path"], record["status"]) == (f"/api/v2.1{emu.campaigns}/", 204)


def test_two_trailing_slashes_are_404_without_redirect(emu):
    response = emu.api("GET", emu.campaigns + "//", allow_redirects=False)
    assert (response.status_code, "location" in response.headers) == (404, False)
    assert response.json()[0]["ErrorCodeId"] == 404


def test_control_paths_are_not_redirected_either(emu):
    response = requests.get(f"{emu.server.url}/_emulator/seed/", allow_redirects=False, timeout=10)
    assert (response.status_code, "location" in response.headers) == (404, False)


# -- property names are case-sensitive (spec §1) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body", "name", "object_type"),
    [
        ("POST", "/api-key", {"label": "x", "TypeId": 2}, "Label", "ApiKey"),
        ("POST", "/api-key", {"Label": "x", "TypeId": 2, "validTo": "2030-01-01T00:00:00"}, "ValidTo", "ApiKey"),
        ("POST", "/external-couponlist", {"NAME": "x"}, "Name", "ExternalCouponList"),
        ("POST", "/callback", {"CallbackType": 1, "Url": "https://example.com/a", "Active": True}, "URL", "Callback"),
        ("POST", "/callback", {"callbacktype": 1, "URL": "https://a.b", "Active": True}, "CallbackType", "Callback"),
        ("PUT", "/contactlist/4001/group/4101", {"OPERATOR": "OR"}, "Operator", "FilterGroup"),
        (
            "POST",
            "/action/5001/schedule",
            {"ScheduleTypeId": 7, "RunAt": "17:30:00", "StartFrom": "2026-12-01T17:30:00", "weekDay": "MON"},
            "WeekDay",
            "ActionSchedule",
        ),
        (
            "POST",
            "/action-pushvoicecall",
            {
                "Channels": ["+15125550100"],
                "Targets": ["+15125550101"],
                "Message": "Hi",
                "Schedules": [{"ScheduleTypeId": 2, "runAt": "17:30:00", "StartFrom": "2026-12-01T17:30:00"}],
            },
            "Schedules[0].RunAt",
            "ActionSchedule",
        ),
    ],
)  # fmt: skip
def test_a_name_right_only_when_case_is_ignored_is_refused_by_its_right_spelling(
    emu, method, path, body, name, object_type
):
    response = emu.api(method, emu.at(path), json=body)
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, name, object_type)
    assert "case-sensitive" in response.json()[0]["ErrorMessage"]


def test_both_spellings_together_are_refused_too(emu):
    response = emu.api("POST", emu.campaigns, json={"Name": "A", "name": "B", "CampaignTypeId": 1})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "Name", "Campaign")


def test_nested_external_coupon_list_names_are_case_sensitive(emu):
    campaign = emu.create_campaign(CampaignTypeId=4)
    body = {"CouponTypeId": 2, "StaticCode": "", "ExternalCouponList": {"name": "Pool"}}
    response = emu.api("PUT", f"{emu.campaigns}/{campaign['Id']}/coupon", json=body)
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "ExternalCouponList.Name", "ExternalCouponList")


# -- campaign request types (spec 2.3) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "prop"),
    [
        ({"SubscriptionId": 12.0}, "SubscriptionId"),
        ({"SingleUseContentId": 3.0}, "SingleUseContentId"),
        ({"Content": "text"}, "Content"),
        ({"Links": {"Url": "x"}}, "Links"),
        ({"Links": ["x"]}, "Links"),
    ],
)
def test_campaign_types(emu, fields, prop):
    response = emu.api("POST", emu.campaigns, json={"Name": "Typed", "CampaignTypeId": 1, **fields})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, prop, "Campaign")


def test_campaign_type_is_a_number_and_session_fields_are_answer_only(emu):
    created = emu.create_campaign(CampaignTypeId=4.0, Session=1, SessionLength=60000, Content={}, Links=[{}])
    assert (created["CampaignTypeId"], created["Session"], created["SessionLength"]) == (4, 0, 0)


# -- $ query options only where an endpoint takes them -------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "option"),
    [
        ("/action/5001/schedule", "$filter"),
        ("/callback", "$top"),
        ("/external-couponlist", "$skip"),
        ("/contactlist/4001/group", "$filter"),
        ("/api-key/1", "$select"),
    ],
)
def test_endpoints_without_odata_options_refuse_them(emu, path, option):
    response = emu.api("GET", emu.at(path), params={option: "1"})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, option, None)
    assert "takes no OData query options" in response.json()[0]["ErrorMessage"]
