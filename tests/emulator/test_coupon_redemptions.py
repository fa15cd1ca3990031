"""Coupon redemption (facts §8.2): POST event-redeemcoupon and GET a campaign's coupon/redemptions."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
REDEEMED, NOT_FOUND, EXPIRED, LIMIT_REACHED, NOT_STARTED = 0, 1, 2, 3, 4
EMPTY = {
    "RedemptionCount": 0,
    "TooEarlyCount": 0,
    "TooLateCount": 0,
    "TooManyCount": 0,
    "TotalBadCount": 0,
    "FirstSuccessful": None,
    "LastSuccessful": None,
}


def redeem(emu, code, contact: int | None = None):
    params = {} if contact is None else {"contactId": str(contact)}
    return emu.api("POST", emu.at("/event-redeemcoupon"), json=code, params=params)


def status(emu, code, contact: int | None = None) -> int:
    response = redeem(emu, code, contact)
    assert response.status_code == 200, response.text
    return int(response.json()["Status"])


def coupon_campaign(emu, name: str, definition: dict) -> int:
    campaign = emu.create_campaign(Name=name, CampaignTypeId=4)
    url = f"{emu.campaigns}/{campaign['Id']}/coupon"
    assert emu.api("POST", url, json=definition).status_code == 201
    return int(campaign["Id"])


def counts(emu, campaign_id: int) -> dict:
    response = emu.api("GET", f"{emu.campaigns}/{campaign_id}/coupon/redemptions")
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.fixture
def frozen(emu):
    """The emulator clock stopped; returns its time as the platform writes it."""
    return emu.ok("POST", "/clock", json={"scale": 0})["now"]


def test_a_static_code_redeems_and_is_counted(emu, frozen):
    campaign_id = coupon_campaign(emu, "Spring", {"CouponTypeId": 0, "StaticCode": "SAVE10", "MaxUses": 0})
    assert counts(emu, campaign_id) == EMPTY
    response = redeem(emu, "SAVE10", 6001)
    assert response.status_code == 200
    assert response.json() == {
        "CampaignId": campaign_id,
        "ContactId": 6001,
        "CouponCode": "SAVE10",
        "Status": REDEEMED,
        "Created": frozen,
    }
    emu.ok("POST", "/clock", json={"advance_seconds": 90})
    assert status(emu, "SAVE10", 6001) == REDEEMED
    assert counts(emu, campaign_id) == {
        **EMPTY,
        "RedemptionCount": 2,
        "FirstSuccessful": frozen,
        "LastSuccessful": (datetime.fromisoformat(frozen) + timedelta(seconds=90)).isoformat(),
    }


def test_max_uses_is_per_contact(emu, frozen):
    campaign_id = coupon_campaign(emu, "Once", {"CouponTypeId": 0, "StaticCode": "ONCE", "MaxUses": 1})
    assert [status(emu, "ONCE", 6001), status(emu, "ONCE", 6001), status(emu, "ONCE", 6002)] == [
        REDEEMED,
        LIMIT_REACHED,
        REDEEMED,
    ]
    assert [status(emu, "ONCE"), status(emu, "ONCE")] == [REDEEMED, REDEEMED]  # anonymous: no customer to bound
    assert counts(emu, campaign_id) | {"FirstSuccessful": None, "LastSuccessful": None} == {
        **EMPTY,
        "RedemptionCount": 4,
        "TooManyCount": 1,
        "TotalBadCount": 1,
    }


def test_default_max_uses_is_one(emu, frozen):
    coupon_campaign(emu, "Default", {"CouponTypeId": 0, "StaticCode": "DEF"})
    assert [status(emu, "DEF", 6005), status(emu, "DEF", 6005)] == [REDEEMED, LIMIT_REACHED]


def test_valid_from_and_valid_to_follow_the_emulator_clock(emu, frozen):
    definition = {
        "CouponTypeId": 0,
        "StaticCode": "WINDOW",
        "MaxUses": 0,
        "ValidFrom": "2030-01-01T00:00:00",
        "ValidTo": "2030-01-02T00:00:00",
    }
    campaign_id = coupon_campaign(emu, "Window", definition)
    url = f"{emu.campaigns}/{campaign_id}/coupon"
    assert status(emu, "WINDOW", 6001) == NOT_STARTED  # the frozen clock is before 2030
    now = frozen
    assert emu.api("PUT", url, json={**definition, "ValidFrom": now}).status_code == 200  # from now on: valid
    assert status(emu, "WINDOW", 6001) == REDEEMED
    assert emu.api("PUT", url, json={**definition, "ValidFrom": None, "ValidTo": now}).status_code == 200
    assert status(emu, "WINDOW", 6001) == EXPIRED  # ValidTo is the moment redemption stops
    assert counts(emu, campaign_id) == {
        **EMPTY,
        "RedemptionCount": 1,
        "TooEarlyCount": 1,
        "TooLateCount": 1,
        "TotalBadCount": 2,
        "FirstSuccessful": now,
        "LastSuccessful": now,
    }


def test_codes_of_the_linked_external_list_redeem(emu, frozen):
    listed = emu.created(emu.at("/external-couponlist"), {"Name": "Pool", "CouponCodes": ["EXT-1", "EXT-2"]})
    campaign_id = coupon_campaign(
        emu, "External", {"CouponTypeId": 2, "StaticCode": "", "ExternalListId": listed["Id"]}
    )
    assert redeem(emu, "EXT-2", 6003).json()["CampaignId"] == campaign_id
    assert status(emu, "EXT-3", 6003) == NOT_FOUND
    assert status(emu, "ext-1", 6003) == NOT_FOUND  # codes match exactly
    assert counts(emu, campaign_id)["RedemptionCount"] == 1


def test_an_unknown_code_is_not_found_and_belongs_to_no_campaign(emu, frozen):
    campaign_id = coupon_campaign(emu, "Dynamic", {"CouponTypeId": 1, "StaticCode": ""})
    response = redeem(emu, "ANYTHING")
    assert response.json() == {
        "CampaignId": None,
        "ContactId": None,
        "CouponCode": "ANYTHING",
        "Status": NOT_FOUND,
        "Created": frozen,
    }
    assert counts(emu, campaign_id) == EMPTY


def test_a_deleted_campaign_no_longer_redeems(emu, frozen):
    campaign_id = coupon_campaign(emu, "Gone", {"CouponTypeId": 0, "StaticCode": "GONE"})
    emu.api("DELETE", f"{emu.campaigns}/{campaign_id}")
    assert status(emu, "GONE", 6001) == NOT_FOUND
    assert emu.error(emu.api("GET", f"{emu.campaigns}/{campaign_id}/coupon/redemptions"), 404)[2] == "Campaign"


def test_redemptions_need_a_definition(emu):
    campaign = emu.create_campaign(Name="Plain coupon", CampaignTypeId=4)
    response = emu.api("GET", f"{emu.campaigns}/{campaign['Id']}/coupon/redemptions")
    assert emu.error(response, 404)[2] == "CouponDefinition"
    assert emu.error(emu.api("GET", f"{emu.campaigns}/999/coupon/redemptions"), 404)[2] == "Campaign"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"Code": "SAVE10"}', PROPERTY_INVALID_VALUE),
        (b'""', PROPERTY_REQUIRED),
        (b"", PROPERTY_REQUIRED),
        (b"SAVE10", PROPERTY_INVALID_VALUE),
    ],
)
@DEPARTS
def test_the_body_must_be_a_bare_json_string(emu, raw, code):
    response = emu.api("POST", emu.at("/event-redeemcoupon"), data=raw, headers={"Content-Type": "application/json"})
    assert emu.error(response) == (code, "CouponCode", "CouponRedemption")


@DEPARTS
def test_a_number_for_the_code_is_read_as_its_text_and_refused_when_strict(emu, strict_emu):
    headers = {"Content-Type": "application/json"}
    response = emu.api("POST", emu.at("/event-redeemcoupon"), data=b"42", headers=headers)
    assert (response.status_code, response.json()["CouponCode"]) == (200, "42")
    assert emu.violations() == [(f"/api/v2.1{emu.at('/event-redeemcoupon')}", "CouponCode", "type-conversion")]
    refused = strict_emu.api("POST", strict_emu.at("/event-redeemcoupon"), data=b"42", headers=headers)
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, "CouponCode", "CouponRedemption")


def test_contact_id_must_name_a_contact_of_the_account(emu):
    response = emu.api("POST", emu.at("/event-redeemcoupon"), json="X", params={"contactId": "abc"})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "contactId", "CouponRedemption")
    assert emu.error(redeem(emu, "X", 6026), 404)[2] == "Contact"
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    assert emu.error(emu.api("POST", f"/account/{other['account_id']}/event-redeemcoupon", json="X"), 404)[2] == (
        "Account"
    )
