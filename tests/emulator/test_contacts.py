"""Contacts of the seeded account: shape, $top/$skip paging, and bulk generation by control."""

from __future__ import annotations

import pytest
import requests

PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {
    "Id",
    "AccountId",
    "StatusId",
    "PhoneNumber",
    "Email",
    "Subscriptions",
    "Attributes",
    "Created",
    "CreatedBy",
    "Modified",
    "ModifiedBy",
}


def contacts(emu) -> str:
    return emu.at("/contact")


def ids(response) -> list[int]:
    assert response.status_code == 200, response.text
    return [c["Id"] for c in response.json()]


def test_seeded_contacts(emu):
    listed = emu.api("GET", contacts(emu)).json()
    assert [c["Id"] for c in listed] == list(range(6001, 6026))
    first = listed[0]
    assert set(first) == FIELDS
    assert (first["AccountId"], first["StatusId"], first["PhoneNumber"]) == (emu.account, 0, "+15550100000")
    assert listed[24]["PhoneNumber"] == "+15550100024"
    assert first["Email"] == "contact6001@example.com"
    assert first["Subscriptions"] == [
        {"SubscriptionId": 1, "SmsEnabled": True, "MmsEnabled": False, "EmailEnabled": True, "VoiceEnabled": True}
    ]
    [attribute] = first["Attributes"]
    assert (set(attribute), attribute["Name"]) == ({"Id", "Name", "Value"}, "FirstName")
    assert (first["CreatedBy"], first["ModifiedBy"]) == ("", "")
    assert len({c["PhoneNumber"] for c in listed}) == 25


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"$top": 5}, list(range(6001, 6006))),
        ({"$skip": 22}, [6023, 6024, 6025]),
        ({"$top": 3, "$skip": 10}, [6011, 6012, 6013]),
        ({"$top": 100, "$skip": 24}, [6025]),
    ],
)
def test_top_and_skip(emu, params, expected):
    assert ids(emu.api("GET", contacts(emu), params=params)) == expected


@pytest.mark.parametrize("params", [{"$skip": 25}, {"$top": 0}, {"$skip": 1000, "$top": 1}])
def test_empty_page_is_204(emu, params):
    response = emu.api("GET", contacts(emu), params=params)
    assert (response.status_code, response.content) == (204, b"")


@pytest.mark.parametrize(
    ("params", "props"),
    [
        ({"$top": -1}, ["$top"]),
        ({"$top": "ten"}, ["$top"]),
        ({"$skip": "1.5"}, ["$skip"]),
        ({"$skip": ""}, ["$skip"]),
        ({"$top": "x", "$skip": "-3"}, ["$top", "$skip"]),
    ],
)
def test_bad_paging_is_400(emu, params, props):
    response = emu.api("GET", contacts(emu), params=params)
    assert response.status_code == 400
    assert [(e["ErrorCodeId"], e["PropertyName"]) for e in response.json()] == [
        (PROPERTY_INVALID_VALUE, p) for p in props
    ]


def test_unknown_account_is_404_before_bad_paging(emu):
    response = emu.api("GET", "/account/999/contact", params={"$top": "x"})
    assert emu.error(response, 404)[2] == "Account"


def test_a_million_generated_contacts(emu):
    added = emu.ok("POST", "/contacts", json={"count": 1_000_000})  # generated in a block as read, not stored
    assert added == {
        "account_id": emu.account,
        "first_id": 6026,
        "last_id": 1_006_025,
        "count": 1_000_000,
        "total": 1_000_025,
    }
    page = emu.api("GET", contacts(emu), params={"$skip": 999_990, "$top": 100}).json()
    assert [c["Id"] for c in page] == list(range(1_005_991, 1_006_026))
    assert page[-1]["PhoneNumber"] == "+15551100024"
    assert ids(emu.api("GET", contacts(emu), params={"$skip": 20, "$top": 10})) == list(range(6021, 6031))


def test_generated_contacts_for_another_account(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    added = emu.ok("POST", "/contacts", json={"count": 3, "account_id": other["account_id"]})
    assert (added["first_id"], added["total"]) == (6026, 3)
    theirs = requests.get(
        f"{emu.server.base_url}/account/{other['account_id']}/contact",
        auth=(other["api_key"], other["api_secret"]),
        timeout=10,
    ).json()
    assert [(c["Id"], c["PhoneNumber"]) for c in theirs] == [
        (6026, "+15550100000"),
        (6027, "+15550100001"),
        (6028, "+15550100002"),
    ]
    assert len(emu.api("GET", contacts(emu)).json()) == 25


def test_control_input_is_checked_and_reset_drops_generated_contacts(emu):
    for bad in ({"count": 0}, {"count": 1_000_001}, {}):
        assert emu.control("POST", "/contacts", json=bad).status_code == 422
    assert emu.control("POST", "/contacts", json={"count": 1, "account_id": 424242}).status_code == 404
    emu.ok("POST", "/contacts", json={"count": 10})
    emu.ok("POST", "/reset")
    assert len(emu.api("GET", contacts(emu)).json()) == 25


@pytest.mark.parametrize(("params", "first", "count"), [({"$top": 10_000}, 6001, 10_000), ({"$skip": 5}, 6006, 20_020)])
def test_long_pages_are_streamed_as_one_json_array(emu, params, first, count):
    emu.ok("POST", "/contacts", json={"count": 20_000})
    response = emu.api("GET", contacts(emu), params=params)
    assert (response.status_code, response.headers["Content-Type"]) == (200, "application/json")
    listed = response.json()
    assert [c["Id"] for c in listed] == list(range(first, first + count))
    assert set(listed[-1]) == FIELDS


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"$filter": "Id eq 6010"}, [6010]),
        ({"$filter": "PhoneNumber eq '+15550100003' or Email eq 'contact6020@example.com'"}, [6004, 6020]),
        ({"$filter": "Id gt 6020 and StatusId eq 0"}, [6021, 6022, 6023, 6024, 6025]),
        ({"$filter": "Id ge 6010", "$skip": 2, "$top": 3}, [6012, 6013, 6014]),
        ({"$filter": "Id le 6003 or Id ge 6024", "$skip": 1}, [6002, 6003, 6024, 6025]),
        ({"$filter": "not (Id ne 6001)", "$top": 5}, [6001]),
    ],
)
def test_filter_applies_before_skip_and_top(emu, params, expected):
    assert ids(emu.api("GET", contacts(emu), params=params)) == expected


def test_filter_with_no_match_is_204(emu):
    response = emu.api("GET", contacts(emu), params={"$filter": "Email eq ''"})
    assert (response.status_code, response.content) == (204, b"")


def test_filter_over_generated_blocks(emu):
    emu.ok("POST", "/contacts", json={"count": 50_000})
    params = {"$filter": "Id gt 56020 and Id lt 56026 or PhoneNumber eq '+15550100002'"}
    assert ids(emu.api("GET", contacts(emu), params=params)) == [6003, 56021, 56022, 56023, 56024, 56025]


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("Subscriptions eq null", "unknown property 'Subscriptions'"),
        ("phoneNumber eq '+1'", "names are case-sensitive: PhoneNumber"),
        ("Id eq '6001'", "cannot compare Id (integer) with '6001' (string)"),
        ("Id eq 6001 and", "expected a property name or a literal"),
    ],
)
def test_bad_filter_is_400_naming_filter(emu, expression, words):
    response = emu.api("GET", contacts(emu), params={"$filter": expression})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "$filter", "Contact")
    assert words in response.json()[0]["ErrorMessage"]


@pytest.mark.parametrize("option", ["$select", "$orderby", "$inlinecount"])
def test_unsupported_dollar_options_are_400(emu, option):
    assert emu.error(emu.api("GET", contacts(emu), params={option: "Id"})) == (PROPERTY_INVALID_VALUE, option, None)


def test_get_one_contact(emu):
    response = emu.api("GET", f"{contacts(emu)}/6003")
    assert response.status_code == 200
    contact = response.json()
    assert set(contact) == FIELDS
    assert (contact["Id"], contact["AccountId"], contact["PhoneNumber"], contact["Email"]) == (
        6003,
        1001,
        "+15550100002",
        "contact6003@example.com",
    )
    assert contact == emu.api("GET", contacts(emu), params={"$skip": 2, "$top": 1}).json()[0]


def test_get_one_generated_contact(emu):
    emu.ok("POST", "/contacts", json={"count": 1000})
    assert emu.api("GET", f"{contacts(emu)}/7025").json()["PhoneNumber"] == "+15550101024"


@pytest.mark.parametrize("contact_id", ["6026", "6000", "1", "x"])
def test_missing_contact_is_404(emu, contact_id):
    response = emu.api("GET", f"{contacts(emu)}/{contact_id}")
    assert response.status_code == 404
    assert response.json() == [
        {
            "ErrorCodeId": 404,
            "ErrorMessage": f"Contact {contact_id} was not found.",
            "ObjectType": "Contact",
            "PropertyName": None,
        }
    ]


def test_another_accounts_contact_is_404(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    added = emu.ok("POST", "/contacts", json={"count": 2, "account_id": other["account_id"]})
    assert emu.error(emu.api("GET", f"{contacts(emu)}/{added['first_id']}"), 404)[2] == "Contact"
    theirs = requests.get(
        f"{emu.server.base_url}/account/{other['account_id']}/contact/{added['first_id']}",
        auth=(other["api_key"], other["api_secret"]),
        timeout=10,
    )
    assert theirs.json()["AccountId"] == other["account_id"]
    foreign_account = emu.api("GET", f"/account/{other['account_id']}/contact/6001")
    assert emu.error(foreign_account, 404)[2] == "Account"


# -- create and update (POST contact, PUT contact/{contactId}) -------------------------------------------------------

PROPERTY_REQUIRED = 0x02000000
#: A request that lacks a required property is a departure from the API reference, which the emulator records.
REFUSED = pytest.mark.messaging_platform_allow_violations("sends requests that lack a required property")
WRITTEN = FIELDS | {"FirstName", "LastName", "AssignedId"}
ANN = {"PhoneNumber": "+15125550177", "Email": "ann@example.com", "FirstName": "Ann", "LastName": "Lee",
       "AssignedId": 42}  # fmt: skip


def errors(response) -> list[tuple[int, str]]:
    assert response.status_code == 400, response.text
    return [(e["ErrorCodeId"], e["PropertyName"]) for e in response.json()]


def test_a_created_contact_is_read_back_and_listed_after_the_others(emu):
    created = emu.created(contacts(emu), ANN)
    assert set(created) == WRITTEN
    assert {k: created[k] for k in ANN} == ANN
    assert (created["Id"], created["AccountId"], created["StatusId"]) == (6026, emu.account, 0)
    assert (created["Subscriptions"], created["Attributes"]) == ([], [])
    assert created["CreatedBy"] == created["ModifiedBy"] == f"api-key-{emu.seed.api_key_id}"
    assert emu.api("GET", f"{contacts(emu)}/6026").json() == created
    assert ids(emu.api("GET", contacts(emu))) == list(range(6001, 6027))
    found = emu.api("GET", contacts(emu), params={"$filter": "PhoneNumber eq '+15125550177'"}).json()
    assert found == [created]
    assert emu.ok("POST", "/contacts", json={"count": 2})["first_id"] == 6027  # generated ones come after it


@pytest.mark.parametrize("body", [{"PhoneNumber": "+15125550177"}, {"Email": "ann@example.com", "PhoneNumber": " "}])
def test_a_phone_number_or_an_email_is_enough(emu, body):
    created = emu.created(contacts(emu), body)
    assert (created["PhoneNumber"], created["Email"]) == (body["PhoneNumber"].strip() or None, body.get("Email"))
    assert (created["FirstName"], created["AssignedId"]) == (None, None)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({}, [(PROPERTY_REQUIRED, "PhoneNumber")]),
        ({"FirstName": "Ann", "PhoneNumber": None, "Email": ""}, [(PROPERTY_REQUIRED, "PhoneNumber")]),
        ({"PhoneNumber": "15125550177"}, [(PROPERTY_INVALID_VALUE, "PhoneNumber")]),
        ({"PhoneNumber": "+1 512 555 0177"}, [(PROPERTY_INVALID_VALUE, "PhoneNumber")]),
        ({"Email": "ann.example.com"}, [(PROPERTY_INVALID_VALUE, "Email")]),
        ({"Email": "ann lee@example.com"}, [(PROPERTY_INVALID_VALUE, "Email")]),
        ({"PhoneNumber": "+15125550177", "AssignedId": "x"}, [(PROPERTY_INVALID_VALUE, "AssignedId")]),
        ({"PhoneNumber": "+1", "Email": "@example.com"}, [(PROPERTY_INVALID_VALUE, "PhoneNumber"),
                                                           (PROPERTY_INVALID_VALUE, "Email")]),
    ],
)  # fmt: skip
@REFUSED
def test_a_create_is_refused_naming_every_bad_property(emu, body, expected):
    assert errors(emu.api("POST", contacts(emu), json=body)) == expected
    assert ids(emu.api("GET", contacts(emu))) == list(range(6001, 6026))


def test_an_update_changes_the_properties_given_only(emu):
    created = emu.created(contacts(emu), ANN)
    response = emu.api("PUT", f"{contacts(emu)}/{created['Id']}", json={"LastName": "Park", "AssignedId": None})
    assert response.status_code == 200, response.text
    changed = response.json()
    assert changed == {**created, "LastName": "Park", "AssignedId": None, "Modified": changed["Modified"]}
    assert emu.api("GET", f"{contacts(emu)}/{created['Id']}").json() == changed


def test_an_answer_sent_back_with_a_change_is_an_update(emu):
    """Read, change, write back: what only the answer has (Id, audit, Subscriptions, Attributes) is not read."""
    contact = emu.api("GET", f"{contacts(emu)}/6004").json()
    response = emu.api("PUT", f"{contacts(emu)}/6004", json={**contact, "Email": "new@example.com"})
    assert response.status_code == 200, response.text
    assert emu.violations() == []


def test_an_updated_generated_contact_keeps_what_it_had_and_is_listed_changed(emu):
    before = emu.api("GET", f"{contacts(emu)}/6003").json()
    response = emu.api("PUT", f"{contacts(emu)}/6003", json={"Email": "new@example.com", "FirstName": "Cy"})
    assert response.status_code == 200, response.text
    changed = response.json()
    by = {"Modified": changed["Modified"], "ModifiedBy": f"api-key-{emu.seed.api_key_id}"}
    assert {k: changed[k] for k in FIELDS} == {**before, "Email": "new@example.com", **by}
    assert (changed["FirstName"], changed["LastName"]) == ("Cy", None)
    assert emu.api("GET", contacts(emu), params={"$skip": 2, "$top": 1}).json() == [changed]
    assert ids(emu.api("GET", contacts(emu), params={"$filter": "Email eq 'new@example.com'"})) == [6003]
    assert emu.api("GET", contacts(emu), params={"$filter": "Email eq 'contact6003@example.com'"}).status_code == 204


@REFUSED
def test_an_update_that_would_leave_neither_phone_nor_email_is_refused(emu):
    created = emu.created(contacts(emu), {"PhoneNumber": "+15125550177"})
    path = f"{contacts(emu)}/{created['Id']}"
    assert errors(emu.api("PUT", path, json={"PhoneNumber": None})) == [(PROPERTY_REQUIRED, "PhoneNumber")]
    assert errors(emu.api("PUT", path, json={"Email": "nope"})) == [(PROPERTY_INVALID_VALUE, "Email")]
    moved = emu.api("PUT", path, json={"PhoneNumber": None, "Email": "ann@example.com"}).json()
    assert (moved["PhoneNumber"], moved["Email"]) == (None, "ann@example.com")


def test_an_update_of_a_contact_the_account_lacks_is_404(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    theirs = emu.ok("POST", "/contacts", json={"count": 1, "account_id": other["account_id"]})["first_id"]
    for contact_id in (theirs, 999_999):
        response = emu.api("PUT", f"{contacts(emu)}/{contact_id}", json={"FirstName": "Ann"})
        assert emu.error(response, 404) == (404, None, "Contact")


def test_events_find_a_contact_by_its_new_phone_number(emu, sink):
    emu.created(emu.at("/callback"), {"CallbackType": 11, "URL": sink.url, "Active": True})
    created = emu.created(contacts(emu), {"PhoneNumber": "+15125550177"})
    emu.api("PUT", f"{contacts(emu)}/6002", json={"PhoneNumber": "+15125550188"})
    for phone in ("+15125550177", "+15125550188", "+15550100001"):  # the last was 6002's before the change
        emu.ok("POST", "/events/incoming-message", json={"phone_number": phone, "message": "Hi"})
        assert sink.received.acquire(timeout=30)
    assert [body["ContactId"] for body in sink.bodies] == [created["Id"], 6002, None]
