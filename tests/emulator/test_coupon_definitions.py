"""The coupon definition of a coupon campaign: PUT (create or replace), POST
(create) and GET."""

from __future__ import annotations

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_ALREADY_IN_USE = 0x01000000
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
    "Name",
    "Description",
    "Created",
    "Modified",
}
STATIC = {"CouponTypeId": 0, "StaticCode": "SAVE10"}
DYNAMIC = {"CouponTypeId": 1, "StaticCode": ""}


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
        "ValidTo": "2026-12-31T23:59:59",
        "MaxUses": 0,
        "ValidDateTypeId": 1,
        "ValidRollingOffSet": -2,
        "Name": "Winter",
        "Description": "Ten off in December",
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
    assert (answer["Name"], answer["Description"]) == ("Winter", "Ten off in December")
    assert emu.api("GET", coupon_url).json() == answer


def test_defaults_and_rolling_validity(emu, coupon_url):
    answer = emu.api("PUT", coupon_url, json={**DYNAMIC, "ValidDateTypeId": 2, "ValidRollingDays": 7}).json()
    assert (answer["MaxUses"], answer["StaticCode"], answer["ValidRollingDays"]) == (1, "", 7)
    assert (answer["Name"], answer["Description"]) == (None, None)


def test_put_replaces_and_keeps_created(emu, coupon_url):
    emu.ok("POST", "/clock", json={"scale": 0})
    first = emu.api("PUT", coupon_url, json={**STATIC, "Prefix": "A-"}).json()
    emu.ok("POST", "/clock", json={"advance_seconds": 60})
    second = emu.api("PUT", coupon_url, json=DYNAMIC).json()
    assert (second["CouponTypeId"], second["Prefix"], second["StaticCode"]) == (1, None, "")
    assert second["Created"] == first["Created"] and second["Modified"] > first["Modified"]


def test_external_with_an_existing_list(emu, coupon_url):
    listed = emu.created(emu.at("/external-couponlist"), {"Name": "Pool", "CouponCodes": ["X1", "X2"]})
    answer = emu.api(
        "PUT", coupon_url, json={"CouponTypeId": 2, "StaticCode": "", "ExternalListId": listed["Id"]}
    ).json()
    assert answer["ExternalListId"] == listed["Id"]
    assert answer["ExternalCouponList"] == listed


def test_external_with_an_inline_list_creates_and_links_it(emu, coupon_url):
    inline = {"Name": "Inline pool", "Description": "made inline", "CouponCodes": ["Y1", "Y2", "Y1"]}
    body = {"CouponTypeId": 2, "StaticCode": "", "ExternalCouponList": inline}
    answer = emu.api("PUT", coupon_url, json=body).json()
    [created] = emu.api("GET", emu.at("/external-couponlist")).json()
    assert answer["ExternalListId"] == created["Id"]
    assert (created["Name"], created["Description"], created["TotalCodesAvailable"]) == (
        "Inline pool",
        "made inline",
        2,
    )
    assert answer["ExternalCouponList"] == created
    assert emu.api("GET", coupon_url).json()["ExternalListId"] == created["Id"]


EXTERNAL = {"CouponTypeId": 2, "StaticCode": ""}


@pytest.mark.parametrize(
    ("body", "code", "prop", "object_type"),
    [
        ({"StaticCode": ""}, PROPERTY_REQUIRED, "CouponTypeId", "CouponDefinition"),
        ({**DYNAMIC, "CouponTypeId": 3}, PROPERTY_INVALID_VALUE, "CouponTypeId", "CouponDefinition"),
        ({**DYNAMIC, "CouponTypeId": 0.5}, PROPERTY_INVALID_VALUE, "CouponTypeId", "CouponDefinition"),
        ({"CouponTypeId": 0}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({"CouponTypeId": 0, "StaticCode": ""}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({"CouponTypeId": 0, "StaticCode": "  "}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({"CouponTypeId": 1}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({"CouponTypeId": 1, "StaticCode": None}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({"CouponTypeId": 2, "ExternalListId": None}, PROPERTY_REQUIRED, "StaticCode", "CouponDefinition"),
        ({**STATIC, "ValidFrom": "soon"}, PROPERTY_INVALID_VALUE, "ValidFrom", "CouponDefinition"),
        (
            {**STATIC, "ValidFrom": "2026-12-02T00:00:00", "ValidTo": "2026-12-01T00:00:00"},
            PROPERTY_INVALID_VALUE,
            "ValidTo",
            "CouponDefinition",
        ),
        ({**STATIC, "MaxUses": -1}, PROPERTY_INVALID_VALUE, "MaxUses", "CouponDefinition"),
        ({**STATIC, "ValidDateTypeId": 3}, PROPERTY_INVALID_VALUE, "ValidDateTypeId", "CouponDefinition"),
        (
            {**STATIC, "ValidDateTypeId": 2, "ValidRollingDays": 0},
            PROPERTY_INVALID_VALUE,
            "ValidRollingDays",
            "CouponDefinition",
        ),
        ({**STATIC, "ValidRollingDays": 7.0}, PROPERTY_INVALID_VALUE, "ValidRollingDays", "CouponDefinition"),
        ({**EXTERNAL, "ExternalListId": 999}, PROPERTY_INVALID_VALUE, "ExternalListId", "CouponDefinition"),
        (
            {**EXTERNAL, "ExternalCouponList": {"Description": "no name"}},
            PROPERTY_REQUIRED,
            "ExternalCouponList.Name",
            "ExternalCouponList",
        ),
        (
            {**EXTERNAL, "ExternalCouponList": {"Name": "x", "CouponCodes": [""]}},
            PROPERTY_INVALID_VALUE,
            "ExternalCouponList.CouponCodes",
            "ExternalCouponList",
        ),
        ({**EXTERNAL, "ExternalCouponList": "Pool"}, PROPERTY_INVALID_VALUE, "ExternalCouponList", None),
    ],
)
@DEPARTS
def test_validation(emu, coupon_url, body, code, prop, object_type):
    expected_type = object_type or "CouponDefinition"
    assert emu.error(emu.api("PUT", coupon_url, json=body)) == (code, prop, expected_type)
    assert emu.api("GET", coupon_url).status_code == 404
    assert emu.api("GET", emu.at("/external-couponlist")).status_code == 204


#: Taken as the platform's reader takes them (converted, read in any case, an offset converted to UTC), each noted as
#: a violation; refused in strict mode.
READ_AS_THE_PLATFORM_READS = [
    ({**DYNAMIC, "CouponTypeId": "1"}, "CouponTypeId"),
    ({"CouponTypeId": 1, "staticCode": ""}, "StaticCode"),
    ({**DYNAMIC, "StaticCode": 10}, "StaticCode"),
    ({**STATIC, "ValidTo": "2026-12-31T23:59:59Z"}, "ValidTo"),
    ({**STATIC, "ValidFrom": "2026-12-01T00:00:00+02:00"}, "ValidFrom"),
    ({**STATIC, "MaxUses": "2"}, "MaxUses"),
    ({**STATIC, "ValidRollingOffSet": "1"}, "ValidRollingOffSet"),
    ({**STATIC, "validRollingOffset": 1}, "ValidRollingOffSet"),
    ({**STATIC, "Name": 5}, "Name"),
    ({**STATIC, "Description": False}, "Description"),
]


@pytest.mark.parametrize(("body", "prop"), READ_AS_THE_PLATFORM_READS)
@DEPARTS
def test_what_the_platform_reads_is_taken_and_recorded(emu, coupon_url, body, prop):
    assert emu.api("PUT", coupon_url, json=body).status_code == 200
    assert [name for _, name, _ in emu.violations()] == [prop]


@pytest.mark.parametrize(("body", "prop"), READ_AS_THE_PLATFORM_READS)
def test_what_the_platform_reads_is_refused_when_strict(strict_emu, body, prop):
    campaign = strict_emu.create_campaign(CampaignTypeId=4)
    url = f"{strict_emu.campaigns}/{campaign['Id']}/coupon"
    assert strict_emu.error(strict_emu.api("PUT", url, json=body)) == (PROPERTY_INVALID_VALUE, prop, "CouponDefinition")
    assert strict_emu.api("GET", url).status_code == 404


def test_list_id_and_inline_list_together_are_refused(emu, coupon_url):
    listed = emu.created(emu.at("/external-couponlist"), {"Name": "Pool"})
    body = {**EXTERNAL, "ExternalListId": listed["Id"], "ExternalCouponList": {"Name": "Another"}}
    assert emu.error(emu.api("PUT", coupon_url, json=body))[1] == "ExternalCouponList"


@DEPARTS
def test_only_coupon_campaigns_have_a_definition(emu):
    basic = emu.create_campaign(CampaignTypeId=1)
    url = f"{emu.campaigns}/{basic['Id']}/coupon"
    assert emu.error(emu.api("PUT", url, json=STATIC)) == (PROPERTY_INVALID_VALUE, "CampaignTypeId", "Campaign")
    errors = emu.api("PUT", url, json={}).json()  # every problem at once
    assert sorted(e["PropertyName"] for e in errors) == ["CampaignTypeId", "CouponTypeId", "StaticCode"]


def test_unknown_or_deleted_campaign_is_404(emu, coupon_url):
    assert emu.error(emu.api("PUT", f"{emu.campaigns}/999/coupon", json=STATIC), 404)[2] == "Campaign"
    assert emu.api("PUT", coupon_url, json=STATIC).status_code == 200
    emu.api("DELETE", coupon_url.removesuffix("/coupon"))
    assert emu.error(emu.api("GET", coupon_url), 404)[2] == "Campaign"


@pytest.mark.parametrize(
    "body",
    [
        DYNAMIC,
        {**EXTERNAL, "ExternalCouponList": {"Name": "Pool", "CouponCodes": ["Z1"]}},
    ],
)
@DEPARTS
def test_an_empty_static_code_counts_as_given_for_non_static_coupons(emu, coupon_url, body):
    without = {k: v for k, v in body.items() if k != "StaticCode"}
    assert emu.error(emu.api("PUT", coupon_url, json=without)) == (PROPERTY_REQUIRED, "StaticCode", "CouponDefinition")
    answer = emu.api("PUT", coupon_url, json=body).json()
    assert (answer["CouponTypeId"], answer["StaticCode"]) == (body["CouponTypeId"], "")


def test_optional_fields_of_spec_2_4_carry_no_hidden_condition(emu, coupon_url):
    """Spec 2.4 marks ValidRollingDays and ExternalListId optional, with no condition on the types."""
    rolling = emu.api("PUT", coupon_url, json={**DYNAMIC, "ValidDateTypeId": 2})
    assert (rolling.status_code, rolling.json()["ValidRollingDays"]) == (200, None)
    external = emu.api("PUT", coupon_url, json=EXTERNAL)
    assert (external.status_code, external.json()["ExternalListId"]) == (200, None)


def test_max_uses_is_a_number(emu, coupon_url):
    assert emu.api("PUT", coupon_url, json={**STATIC, "MaxUses": 2.5}).json()["MaxUses"] == 2.5
    assert emu.api("PUT", coupon_url, json={**STATIC, "MaxUses": 3.0}).json()["MaxUses"] == 3
    assert emu.api("PUT", coupon_url, json={**STATIC, "MaxUses": 10**30}).json()["MaxUses"] == 10**30


def test_post_creates_the_definition_with_201(emu, coupon_url):
    emu.ok("POST", "/clock", json={"scale": 0})
    response = emu.api("POST", coupon_url, json={**STATIC, "Name": "Spring", "Description": "Ten off"})
    assert response.status_code == 201
    created = response.json()
    assert set(created) == FIELDS
    assert (created["CouponTypeId"], created["StaticCode"], created["Name"], created["Description"]) == (
        0,
        "SAVE10",
        "Spring",
        "Ten off",
    )
    assert created["Created"] == created["Modified"]
    assert emu.api("GET", coupon_url).json() == created


def test_post_when_a_definition_exists_is_400_property_already_in_use(emu, coupon_url):
    first = emu.api("POST", coupon_url, json=STATIC).json()
    again = emu.api("POST", coupon_url, json=DYNAMIC)
    assert emu.error(again) == (PROPERTY_ALREADY_IN_USE, "CampaignId", "CouponDefinition")
    assert "PUT" in again.json()[0]["ErrorMessage"]
    assert emu.api("GET", coupon_url).json() == first
    replaced = emu.api("PUT", coupon_url, json=DYNAMIC)  # PUT still creates or replaces
    assert (replaced.status_code, replaced.json()["CouponTypeId"]) == (200, 1)


@DEPARTS
def test_post_after_put_is_refused_and_bad_bodies_list_every_problem(emu, coupon_url):
    assert emu.api("PUT", coupon_url, json=STATIC).status_code == 200
    errors = emu.api("POST", coupon_url, json={"CouponTypeId": 0}).json()
    assert [(e["ErrorCodeId"], e["PropertyName"]) for e in errors] == [
        (PROPERTY_REQUIRED, "StaticCode"),
        (PROPERTY_ALREADY_IN_USE, "CampaignId"),
    ]


def test_post_checks_the_campaign_like_put(emu, coupon_url):
    basic = emu.create_campaign(CampaignTypeId=1)
    response = emu.api("POST", f"{emu.campaigns}/{basic['Id']}/coupon", json=STATIC)
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "CampaignTypeId", "Campaign")
    assert emu.error(emu.api("POST", f"{emu.campaigns}/999/coupon", json=STATIC), 404)[2] == "Campaign"
