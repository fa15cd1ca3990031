"""Campaign CRUD, validation and soft delete."""

from __future__ import annotations

import re

import pytest
import requests

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
TIMESTAMP = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$"
FIELDS = {
    "Id",
    "AccountId",
    "SubscriptionId",
    "Name",
    "CampaignTypeId",
    "StatusId",
    "StatusReason",
    "ContentId",
    "Session",
    "SessionLength",
    "UserData",
    "Created",
    "Modified",
    "CreatedBy",
    "ModifiedBy",
    "SingleUse",
    "SingleUseContentId",
}


def test_empty_list_is_204_without_body(emu):
    response = emu.api("GET", emu.campaigns, params={"onlyMine": "true"})
    assert (response.status_code, response.content) == (204, b"")


def test_create_returns_201_and_the_pascal_case_campaign(emu):
    created = emu.create_campaign(SubscriptionId=12, UserData="batch-7", SingleUse=True)
    assert set(created) == FIELDS
    assert created["AccountId"] == emu.account
    assert (created["Name"], created["CampaignTypeId"], created["SubscriptionId"]) == ("Spring sale", 1, 12)
    assert (created["StatusId"], created["StatusReason"]) == (0, "Active")
    assert (created["UserData"], created["SingleUse"]) == ("batch-7", True)
    assert re.match(TIMESTAMP, created["Created"]) and re.match(TIMESTAMP, created["Modified"])


@DEPARTS
def test_property_names_in_another_case_are_read_and_recorded(emu):
    created = emu.created(emu.campaigns, {"name": "lower", "CAMPAIGNTYPEID": 0, "campaignTypeId": "1"})
    assert (created["Name"], created["CampaignTypeId"]) == ("lower", 1)  # the last spelling given is read
    path = f"/api/v2.1{emu.campaigns}"
    assert emu.violations() == [
        (path, "Name", "property-case"),
        (path, "CampaignTypeId", "property-case"),
        (path, "CampaignTypeId", "duplicate-property"),
        (path, "CampaignTypeId", "type-conversion"),
    ]


def test_property_names_in_another_case_are_refused_by_their_right_name_when_strict(strict_emu):
    response = strict_emu.api("POST", strict_emu.campaigns, json={"name": "lower", "CAMPAIGNTYPEID": "0"})
    assert response.status_code == 400
    assert [(e["ErrorCodeId"], e["PropertyName"]) for e in response.json()] == [
        (PROPERTY_INVALID_VALUE, "Name"),
        (PROPERTY_INVALID_VALUE, "CampaignTypeId"),
        (PROPERTY_INVALID_VALUE, "CampaignTypeId"),
    ]
    assert "'name'" in response.json()[0]["ErrorMessage"]
    assert strict_emu.api("GET", strict_emu.campaigns).status_code == 204


def test_get_and_list(emu):
    first, second = emu.create_campaign(Name="A"), emu.create_campaign(Name="B")
    assert first["Id"] != second["Id"]
    assert emu.api("GET", f"{emu.campaigns}/{first['Id']}").json() == first
    for only_mine in ("true", "false"):
        listed = emu.api("GET", emu.campaigns, params={"onlyMine": only_mine}).json()
        assert [c["Name"] for c in listed] == ["A", "B"]


def test_put_updates_only_the_given_properties(emu):
    created = emu.create_campaign(UserData="keep me")
    response = emu.api("PUT", f"{emu.campaigns}/{created['Id']}", json={"Name": "Renamed"})
    assert response.status_code == 200
    updated = response.json()
    assert (updated["Name"], updated["CampaignTypeId"], updated["UserData"]) == ("Renamed", 1, "keep me")
    assert emu.api("GET", f"{emu.campaigns}/{created['Id']}").json() == updated


@pytest.mark.parametrize(
    ("body", "code", "prop"),
    [
        ({"CampaignTypeId": 1}, PROPERTY_REQUIRED, "Name"),
        ({"Name": "  ", "CampaignTypeId": 1}, PROPERTY_REQUIRED, "Name"),
        ({"Name": "x"}, PROPERTY_REQUIRED, "CampaignTypeId"),
        ({"Name": "x", "CampaignTypeId": 7}, PROPERTY_INVALID_VALUE, "CampaignTypeId"),
        ({"Name": "x", "CampaignTypeId": 1, "SingleUse": "yes"}, PROPERTY_INVALID_VALUE, "SingleUse"),
    ],
)
@DEPARTS
def test_create_validation(emu, body: dict[str, object], code: int, prop: str):
    response = emu.api("POST", emu.campaigns, json=body)
    assert response.status_code == 400
    [error] = response.json()
    assert (error["ErrorCodeId"], error["PropertyName"], error["ObjectType"]) == (code, prop, "Campaign")
    assert emu.api("GET", emu.campaigns).status_code == 204


def test_put_validates_given_properties(emu):
    created = emu.create_campaign()
    response = emu.api("PUT", f"{emu.campaigns}/{created['Id']}", json={"CampaignTypeId": -1})
    assert response.status_code == 400
    assert response.json()[0]["PropertyName"] == "CampaignTypeId"


@pytest.mark.parametrize("raw", [b"{not json", b"[1, 2]", b""])
@DEPARTS
def test_malformed_body_is_400(emu, raw: bytes):
    response = emu.api("POST", emu.campaigns, data=raw, headers={"Content-Type": "application/json"})
    assert response.status_code == 400
    assert set(response.json()[0]) == {"ErrorCodeId", "ErrorMessage", "ObjectType", "PropertyName"}


def test_delete_is_soft_and_hides_the_campaign(emu):
    created = emu.create_campaign()
    url = f"{emu.campaigns}/{created['Id']}"
    response = emu.api("DELETE", url)
    assert response.status_code == 200
    assert (response.json()["StatusId"], response.json()["StatusReason"]) == (2, "Deleted")
    assert emu.api("GET", url).status_code == 404
    assert emu.api("DELETE", url).status_code == 404
    assert emu.api("PUT", url, json={"Name": "again"}).status_code == 404
    assert emu.api("GET", emu.campaigns).status_code == 204


def test_unknown_and_foreign_campaigns_are_404(emu):
    response = emu.api("GET", f"{emu.campaigns}/424242")
    assert response.status_code == 404
    assert response.json()[0] == {
        "ErrorCodeId": 404,
        "ErrorMessage": "Campaign 424242 was not found.",
        "ObjectType": "Campaign",
        "PropertyName": None,
    }
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    foreign = requests.post(
        f"{emu.server.base_url}/account/{other['account_id']}/campaign",
        auth=(other["api_key"], other["api_secret"]),
        json={"Name": "theirs", "CampaignTypeId": 1},
        timeout=10,
    ).json()
    assert emu.api("GET", f"{emu.campaigns}/{foreign['Id']}").status_code == 404
