"""Coupon definition of a coupon campaign: PUT (create or replace) and GET."""

from __future__ import annotations

import pytest

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {
    "CampaignId",
    "AccountId",
    "CouponTypeId",
    "Prefix",
    "StaticCode",
    "ExternalId1",
    "ExternalId2",
    "ValidFrom",
    "ValidTo",
    "MaxUses",
    "ValidDateTypeId",
    "ValidRollingDays",
    "ValidRollingOffSet",
    "ExternalListId",
    "ExternalCouponList",
    "Created",
    "Modified",
}
STATIC = {"CouponTypeId": 0, "StaticCode": "SAVE10"}


@pytest.fixture
def coupon_url(emu) -> str:
    campaign = emu.create_campaign(Name="Coupons", CampaignTypeId=4)
    return f"{emu.campaigns}/{campaign['Id']}/coupon"


def test_no_definition_yet_is_404(emu, coupon_url):
    assert emu.error(emu.api("GET", coupon_url), 404)[2] == "CouponDefinition"


def test_static_definition_echoes_every_field(emu, coupon_url):
    body = {
        **STATIC,
        "Prefix": "SP-",
        "ExternalId1": "crm-1",
        "ExternalId2": "crm-2",
        "ValidFrom": "2026-12-01T00:00:00",
        "ValidTo": "2026-12-31T23:59:59Z",
        "MaxUses": 0,
        "ValidDateTypeId": 1,
        "validRollingOffset": -2,
    }
    response = emu.api("PUT", coupon_url, json=body)
    assert response.status_code == 200
    answer = response.json()
    assert set(answer) == FIELDS
    campaign_id = int(coupon_url.split("/")[-2])
    assert (answer["CampaignId"], answer["AccountId"], answer["CouponTypeId"]) == (campaign_id, emu.account, 0)
    assert (answer["Prefix"], answer["StaticCode"], answer["ExternalId1"], answer["ExternalId2"]) == (
        "SP-",
        "SAVE10",
        "crm-1",
        "crm-2",
    )
    assert (answer["ValidFrom"], answer["ValidTo"]) == ("2026-12-01T00:00:00", "2026-12-31T23:59:59")
    assert (answer["MaxUses"], answer["ValidDateTypeId"], answer["ValidRollingOffSet"]) == (0, 1, -2)
    assert (answer["ExternalListId"], answer["ExternalCouponList"], answer["ValidRollingDays"]) == (None, None, None)
    assert emu.api("GET", coupon_url).json() == answer


def test_defaults_and_rolling_validity(emu, coupon_url):
    answer = emu.api("PUT", coupon_url, json={"CouponTypeId": 1, "ValidDateTypeId": 2, "ValidRollingDays": 7}).json()
    assert (answer["MaxUses"], answer["StaticCode"], answer["ValidRollingDays"]) == (1, None, 7)


def test_put_replaces_and_keeps_created(emu, coupon_url):
    emu.ok("POST", "/clock", json={"scale": 0})
    first = emu.api("PUT", coupon_url, json={**STATIC, "Prefix": "A-"}).json()
    emu.ok("POST", "/clock", json={"advance_seconds": 60})
    second = emu.api("PUT", coupon_url, json={"CouponTypeId": 1}).json()
    assert (second["CouponTypeId"], second["Prefix"], second["StaticCode"]) == (1, None, None)
    assert second["Created"] == first["Created"] and second["Modified"] > first["Modified"]


def test_external_with_an_existing_list(emu, coupon_url):
    listed = emu.created(emu.at("/external-couponlist"), {"Name": "Pool", "CouponCodes": ["X1", "X2"]})
    answer = emu.api("PUT", coupon_url, json={"CouponTypeId": 2, "ExternalListId": listed["Id"]}).json()
    assert answer["ExternalListId"] == listed["Id"]
    assert answer["ExternalCouponList"] == listed


def test_external_with_an_inline_list_creates_and_links_it(emu, coupon_url):
    inline = {"Name": "Inline pool", "Description": "made inline", "CouponCodes": ["Y1", "Y2", "Y1"]}
    answer = emu.api("PUT", coupon_url, json={"CouponTypeId": 2, "ExternalCouponList": inline}).json()
    [created] = emu.api("GET", emu.at("/external-couponlist")).json()
    assert answer["ExternalListId"] == created["Id"]
    assert (created["Name"], created["Description"], created["TotalCodesAvailable"]) == (
        "Inline pool",
        "made inline",
        2,
    )
    assert answer["ExternalCouponList"] == created
    assert emu.api("GET", coupon_url).json()["ExternalListId"] == created["Id"]


@pytest.mark.parametrize(
    ("body", "code", "prop", "object_type"),
    [
        ({}, PROPERTY_REQUIRED, "CouponTypeId", "CouponDefinition"),
        ({"CouponTypeId": 3}, PROPERTY_INVALID_VALUE, "CouponTypeId", "CouponDefinition"),
        ({"CouponTypeId": "0"}, PROPERTY_INVALID_VALUE, "CouponTypeId", "CouponDefinition"),
        ({"CouponTypeId": 0}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({**STATIC, "ValidFrom": "soon"}, PROPERTY_INVALID_VALUE, "ValidFrom", "CouponDefinition"),
        (
            {**STATIC, "ValidFrom": "2026-12-02T00:00:00", "ValidTo": "2026-12-01T00:00:00"},
            PROPERTY_INVALID_VALUE,
            "ValidTo",
            "CouponDefinition",
        ),
        ({**STATIC, "MaxUses": -1}, PROPERTY_INVALID_VALUE, "MaxUses", "CouponDefinition"),
        ({**STATIC, "ValidDateTypeId": 3}, PROPERTY_INVALID_VALUE, "ValidDateTypeId", "CouponDefinition"),
        ({**STATIC, "ValidDateTypeId": 2}, PROPERTY_REQUIRED, "ValidRollingDays", "CouponDefinition"),
        (
            {**STATIC, "ValidDateTypeId": 2, "ValidRollingDays": 0},
            PROPERTY_INVALID_VALUE,
            "ValidRollingDays",
            "CouponDefinition",
        ),
        ({**STATIC, "ValidRollingOffSet": "1"}, PROPERTY_INVALID_VALUE, "ValidRollingOffSet", "CouponDefinition"),
        ({"CouponTypeId": 2}, PROPERTY_REQUIRED, "ExternalListId", "CouponDefinition"),
        ({"CouponTypeId": 2, "ExternalListId": 999}, PROPERTY_INVALID_VALUE, "ExternalListId", "CouponDefinition"),
        (
            {"CouponTypeId": 2, "ExternalCouponList": {"Description": "no name"}},
            PROPERTY_REQUIRED,
            "ExternalCouponList.Name",
            "ExternalCouponList",
        ),
        (
            {"CouponTypeId": 2, "ExternalCouponList": {"Name": "x", "CouponCodes": [""]}},
            PROPERTY_INVALID_VALUE,
            "ExternalCouponList.CouponCodes",
            "ExternalCouponList",
        ),
        ({"CouponTypeId": 2, "ExternalCouponList": "Pool"}, PROPERTY_INVALID_VALUE, "ExternalCouponList", None),
    ],
)
def test_validation(emu, coupon_url, body, code, prop, object_type):
    expected_type = object_type or "CouponDefinition"
    assert emu.error(emu.api("PUT", coupon_url, json=body)) == (code, prop, expected_type)
    assert emu.api("GET", coupon_url).status_code == 404
    assert emu.api("GET", emu.at("/external-couponlist")).status_code == 204


def test_list_id_and_inline_list_together_are_refused(emu, coupon_url):
    listed = emu.created(emu.at("/external-couponlist"), {"Name": "Pool"})
    body = {"CouponTypeId": 2, "ExternalListId": listed["Id"], "ExternalCouponList": {"Name": "Another"}}
    assert emu.error(emu.api("PUT", coupon_url, json=body))[1] == "ExternalCouponList"


def test_only_coupon_campaigns_have_a_definition(emu):
    basic = emu.create_campaign(CampaignTypeId=1)
    url = f"{emu.campaigns}/{basic['Id']}/coupon"
    assert emu.error(emu.api("PUT", url, json=STATIC)) == (PROPERTY_INVALID_VALUE, "CampaignTypeId", "Campaign")
    errors = emu.api("PUT", url, json={}).json()  # every problem at once
    assert sorted(e["PropertyName"] for e in errors) == ["CampaignTypeId", "CouponTypeId"]


def test_unknown_or_deleted_campaign_is_404(emu, coupon_url):
    assert emu.error(emu.api("PUT", f"{emu.campaigns}/999/coupon", json=STATIC), 404)[2] == "Campaign"
    assert emu.api("PUT", coupon_url, json=STATIC).status_code == 200
    emu.api("DELETE", coupon_url.removesuffix("/coupon"))
    assert emu.error(emu.api("GET", coupon_url), 404)[2] == "Campaign"
