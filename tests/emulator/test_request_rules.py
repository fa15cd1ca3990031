"""Rules every platform request meets: JSON content type (415), no redirect for a trailing slash, property names read
in any case (recorded as violations; refused when strict), unknown properties ignored (recorded), integer/number
types, and $ query options only where an endpoint takes them."""

from __future__ import annotations

import json

import pytest
import requests

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

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


@DEPARTS
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


# -- property names: read in any case, as the platform's reader reads them; recorded; refused when strict ----


CASE_DEPARTURES = [
    ("POST", "/api-key", {"label": "x", "TypeId": 2}, "Label", "ApiKey"),
    ("POST", "/api-key", {"Label": "x", "TypeId": 3, "validTo": "2030-01-01T00:00:00"}, "ValidTo", "ApiKey"),
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
]  # fmt: skip


@pytest.mark.parametrize(("method", "path", "body", "name", "object_type"), CASE_DEPARTURES)
@DEPARTS
def test_a_name_in_another_case_is_read_and_recorded(emu, method, path, body, name, object_type):
    response = emu.api(method, emu.at(path), json=body)
    assert response.status_code in (200, 201), response.text
    given = json.dumps(body)
    read = response.json()
    if "." not in name:
        assert json.dumps(read[name]) in given  # the value sent under the other spelling
    else:
        assert read["Schedules"][0]["RunAt"] == "17:30:00"
    assert emu.violations() == [(f"/api/v2.1{emu.at(path)}", name, "property-case")]


@pytest.mark.parametrize(("method", "path", "body", "name", "object_type"), CASE_DEPARTURES)
def test_a_name_in_another_case_is_refused_by_its_right_spelling_when_strict(
    strict_emu, method, path, body, name, object_type
):
    response = strict_emu.api(method, strict_emu.at(path), json=body)
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, name, object_type)
    assert "case-sensitive" in response.json()[0]["ErrorMessage"]
    [violation] = strict_emu.server.control.violations()
    assert (violation["property"], violation["rule"], violation["status"]) == (name, "property-case", 400)


@DEPARTS
def test_both_spellings_together_the_last_one_is_read(emu, strict_emu):
    created = emu.created(emu.campaigns, {"Name": "A", "name": "B", "CampaignTypeId": 1})
    assert created["Name"] == "B"
    path = f"/api/v2.1{emu.campaigns}"
    assert emu.violations() == [(path, "Name", "property-case"), (path, "Name", "duplicate-property")]
    response = strict_emu.api("POST", strict_emu.campaigns, json={"Name": "A", "name": "B", "CampaignTypeId": 1})
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, "Name", "Campaign")


@DEPARTS
def test_the_same_name_twice_the_last_one_is_read(emu, strict_emu):
    raw = b'{"Name": "A", "CampaignTypeId": 1, "Name": "B"}'
    created = post_raw(emu, emu.campaigns, raw, "application/json").json()
    assert created["Name"] == "B"
    assert emu.violations() == [(f"/api/v2.1{emu.campaigns}", "Name", "duplicate-property")]
    refused = post_raw(strict_emu, strict_emu.campaigns, raw, "application/json")
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, "Name", "Campaign")
    assert "given 2 times" in refused.json()[0]["ErrorMessage"]


@DEPARTS
def test_nested_external_coupon_list_names_are_read_in_any_case(emu, strict_emu):
    body = {"CouponTypeId": 2, "StaticCode": "", "ExternalCouponList": {"name": "Pool"}}
    campaign = emu.create_campaign(CampaignTypeId=4)
    response = emu.api("PUT", f"{emu.campaigns}/{campaign['Id']}/coupon", json=body)
    assert response.json()["ExternalCouponList"]["Name"] == "Pool"
    assert [name for _, name, _ in emu.violations()] == ["ExternalCouponList.Name"]
    campaign = strict_emu.create_campaign(CampaignTypeId=4)
    response = strict_emu.api("PUT", f"{strict_emu.campaigns}/{campaign['Id']}/coupon", json=body)
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, "ExternalCouponList.Name", "ExternalCouponList")


# -- properties the resource does not have: ignored, recorded; refused when strict ---------------------------


@DEPARTS
def test_an_unknown_property_is_ignored_and_recorded(emu, strict_emu):
    body = {"Name": "Typed", "CampaignTypeId": 1, "Colour": "red", "Content": {"Anything": 1}}
    created = emu.created(emu.campaigns, body)
    assert "Colour" not in created
    assert emu.violations() == [(f"/api/v2.1{emu.campaigns}", "Colour", "unknown-property")]  # Content is open
    response = strict_emu.api("POST", strict_emu.campaigns, json=body)
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, "Colour", "Campaign")
    assert strict_emu.api("GET", strict_emu.campaigns).status_code == 204


def test_answer_properties_sent_back_are_not_departures(emu):
    """A read-modify-write sends the answer back: its read-only properties are the resource's, not unknown."""
    schedule = emu.create_schedule()
    assert emu.api("PUT", f"{emu.schedules}/{schedule['Id']}", json={**schedule, "RunAt": "08:00:00"}).ok
    campaign = emu.create_campaign()
    assert emu.api("PUT", f"{emu.campaigns}/{campaign['Id']}", json={**campaign, "Name": "Again"}).ok
    group = emu.api("GET", emu.at("/contactlist/4001/group/4101")).json()
    assert emu.api("PUT", emu.at("/contactlist/4001/group/4101"), json={**group, "Operator": "OR"}).ok
    assert emu.violations() == []


@DEPARTS
def test_a_missing_required_property_is_refused_and_recorded_in_both_modes(emu, strict_emu):
    for handle in (emu, strict_emu):
        response = handle.api("POST", handle.campaigns, json={"CampaignTypeId": 1})
        assert handle.error(response) == (PROPERTY_REQUIRED, "Name", "Campaign")
        [violation] = handle.server.control.violations()
        assert (violation["property"], violation["rule"], violation["status"]) == ("Name", "required-property", 400)


# -- paths: literal segments matched in any case, as ASP.NET Web API routing matches them ------------------------


@DEPARTS
def test_a_path_in_another_case_is_served_and_recorded(emu, strict_emu):
    created = emu.create_campaign(Name="Cased")
    listed = emu.api("GET", f"/account/{emu.account}/Campaign")
    assert [c["Name"] for c in listed.json()] == ["Cased"]
    group = emu.api("GET", f"/account/{emu.account}/contactList/4001/Group/4101")
    assert (group.status_code, group.json()["Id"]) == (200, 4101)
    code = emu.api("GET", f"/account/{emu.account}/channel/22/keyword/join")  # a path value keeps its case
    assert code.json()["Name"] == "JOIN"
    assert emu.api("PUT", f"/account/{emu.account}/CAMPAIGN/{created['Id']}", json={"Name": "Again"}).ok
    account = f"/api/v2.1/account/{emu.account}"
    assert [(v["path"][len(account) :], v["rule"], v["detail"]) for v in emu.server.control.violations()] == [
        ("/Campaign", "path-case", "path segment 'Campaign' for 'campaign'"),
        ("/contactList/4001/Group/4101", "path-case", "path segment 'contactList' for 'contactlist'"),
        ("/contactList/4001/Group/4101", "path-case", "path segment 'Group' for 'group'"),
        (f"/CAMPAIGN/{created['Id']}", "path-case", "path segment 'CAMPAIGN' for 'campaign'"),
    ]
    refused = strict_emu.api("GET", f"/account/{strict_emu.account}/Campaign")
    assert (refused.status_code, refused.json()[0]["ErrorCodeId"]) == (404, 404)
    [violation] = strict_emu.server.control.violations()
    assert (violation["rule"], violation["status"]) == ("path-case", 404)


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
