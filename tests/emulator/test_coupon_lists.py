"""External coupon lists and their codes."""

from __future__ import annotations

import pytest
import requests

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {
    "Id",
    "AccountId",
    "Name",
    "Description",
    "Inheritable",
    "TotalCodesAvailable",
    "Created",
    "Modified",
    "CreatedBy",
    "ModifiedBy",
}
CODE_FIELDS = {"Id", "AccountId", "ListId", "ContactId", "CouponCode", "Created", "ReservationToken"}


def lists(emu) -> str:
    return emu.at("/external-couponlist")


def test_empty_list_is_204(emu):
    response = emu.api("GET", lists(emu))
    assert (response.status_code, response.content) == (204, b"")


def test_create_counts_distinct_codes_and_hides_them(emu):
    created = emu.created(
        lists(emu),
        {"Name": "Spring codes", "Description": "Q2", "Inheritable": True, "CouponCodes": ["A1", "B2", "A1"]},
    )
    assert set(created) == FIELDS
    assert (created["Name"], created["Description"], created["Inheritable"]) == ("Spring codes", "Q2", True)
    assert (created["AccountId"], created["TotalCodesAvailable"]) == (emu.account, 2)
    assert emu.api("GET", f"{lists(emu)}/{created['Id']}").json() == created
    assert emu.api("GET", lists(emu)).json() == [created]


def test_minimal_create_has_defaults(emu):
    created = emu.created(lists(emu), {"Name": "Bare"})
    assert (created["Description"], created["Inheritable"], created["TotalCodesAvailable"]) == (None, False, 0)


@pytest.mark.parametrize(
    ("body", "code", "prop"),
    [
        ({}, PROPERTY_REQUIRED, "Name"),
        ({"Name": ""}, PROPERTY_REQUIRED, "Name"),
        ({"Name": "x", "Inheritable": "yes"}, PROPERTY_INVALID_VALUE, "Inheritable"),
        ({"Name": "x", "CouponCodes": "A1"}, PROPERTY_INVALID_VALUE, "CouponCodes"),
        ({"Name": "x", "CouponCodes": ["A1", ""]}, PROPERTY_INVALID_VALUE, "CouponCodes"),
        ({"Name": "x", "CouponCodes": ["C" * 101]}, PROPERTY_INVALID_VALUE, "CouponCodes"),
    ],
)
@DEPARTS
def test_create_validation(emu, body, code, prop):
    assert emu.error(emu.api("POST", lists(emu), json=body)) == (code, prop, "ExternalCouponList")
    assert emu.api("GET", lists(emu)).status_code == 204


READ_AS_THE_PLATFORM_READS = [
    ({"Name": 5}, "Name"),
    ({"Name": "x", "Description": 1}, "Description"),
    ({"Name": "x", "CouponCodes": ["A1", 7]}, "CouponCodes[1]"),
    ({"name": "x"}, "Name"),
]


@pytest.mark.parametrize(("body", "prop"), READ_AS_THE_PLATFORM_READS)
@DEPARTS
def test_what_the_platform_reads_is_taken_recorded_and_refused_when_strict(emu, strict_emu, body, prop):
    emu.created(lists(emu), body)
    assert [name for _, name, _ in emu.violations()] == [prop]
    refused = strict_emu.api("POST", lists(strict_emu), json=body)
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, prop, "ExternalCouponList")
    assert strict_emu.api("GET", lists(strict_emu)).status_code == 204


def test_codes_of_exactly_100_characters_are_fine(emu):
    assert emu.created(lists(emu), {"Name": "x", "CouponCodes": ["C" * 100]})["TotalCodesAvailable"] == 1


@DEPARTS
def test_put_changes_given_properties_and_adds_codes(emu):
    created = emu.created(lists(emu), {"Name": "Before", "Description": "keep", "CouponCodes": ["A1", "B2"]})
    url = f"{lists(emu)}/{created['Id']}"
    response = emu.api("PUT", url, json={"Name": "After", "CouponCodes": ["B2", "C3", "D4"]})
    assert response.status_code == 200
    updated = response.json()
    assert (updated["Name"], updated["Description"], updated["TotalCodesAvailable"]) == ("After", "keep", 4)
    assert [c["CouponCode"] for c in emu.api("GET", f"{url}/code").json()] == ["A1", "B2", "C3", "D4"]
    assert emu.error(emu.api("PUT", url, json={"Name": " "})) == (PROPERTY_REQUIRED, "Name", "ExternalCouponList")


def test_codes_can_be_listed_read_and_deleted(emu):
    created = emu.created(lists(emu), {"Name": "Codes", "CouponCodes": ["A1", "B2"]})
    codes_url = f"{lists(emu)}/{created['Id']}/code"
    first, second = emu.api("GET", codes_url).json()
    assert set(first) == CODE_FIELDS
    assert (first["ListId"], first["AccountId"], first["CouponCode"]) == (created["Id"], emu.account, "A1")
    assert (first["ContactId"], first["ReservationToken"]) == (None, None)
    assert first["Id"] != second["Id"]
    assert emu.api("GET", f"{codes_url}/B2").json() == second

    deleted = emu.api("DELETE", f"{codes_url}/A1")
    assert (deleted.status_code, deleted.json()) == (200, first)
    assert emu.error(emu.api("GET", f"{codes_url}/A1"), 404)[2] == "ExternalCouponCode"
    assert emu.api("DELETE", f"{codes_url}/A1").status_code == 404
    assert emu.api("GET", f"{lists(emu)}/{created['Id']}").json()["TotalCodesAvailable"] == 1
    emu.api("DELETE", f"{codes_url}/B2")
    assert emu.api("GET", codes_url).status_code == 204


def test_delete_removes_the_list_and_its_codes(emu):
    created = emu.created(lists(emu), {"Name": "Doomed", "CouponCodes": ["A1"]})
    url = f"{lists(emu)}/{created['Id']}"
    response = emu.api("DELETE", url)
    assert (response.status_code, response.json()) == (200, created)
    assert emu.error(emu.api("GET", url), 404)[2] == "ExternalCouponList"
    assert emu.api("GET", f"{url}/code").status_code == 404
    assert emu.api("GET", f"{url}/code/A1").status_code == 404
    assert emu.api("DELETE", url).status_code == 404
    assert emu.api("PUT", url, json={"Name": "again"}).status_code == 404
    assert emu.api("GET", lists(emu)).status_code == 204


def test_unknown_and_foreign_lists_are_404(emu):
    assert emu.error(emu.api("GET", f"{lists(emu)}/999"), 404)[2] == "ExternalCouponList"
    assert emu.error(emu.api("GET", f"{lists(emu)}/abc"), 404)[2] == "ExternalCouponList"
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    theirs = requests.post(
        f"{emu.server.base_url}/account/{other['account_id']}/external-couponlist",
        auth=(other["api_key"], other["api_secret"]),
        json={"Name": "theirs"},
        timeout=10,
    ).json()
    assert emu.api("GET", f"{lists(emu)}/{theirs['Id']}").status_code == 404
    assert emu.api("GET", f"/account/{other['account_id']}/external-couponlist").status_code == 404
