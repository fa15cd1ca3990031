"""Contact and contact filter group operators against the emulator: the wire and the XCom."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateContactOperator,
    MessagingPlatformGetFilterGroupOperator,
    MessagingPlatformListContactsOperator,
    MessagingPlatformListFilterGroupsOperator,
    MessagingPlatformUpdateContactOperator,
    MessagingPlatformUpdateFilterGroupOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    fails_without_retry,
    refused,
    run,
    seed,
    sent,
    task_context,
)

CONTACTS = "/api/v2.1/account/1001/contact"
GROUPS = "/api/v2.1/account/1001/contactlist/4001/group"


def test_the_seed_is_what_the_paths_below_assume(platform):
    ids = seed(platform)
    assert (ids["account_id"], ids["contact_list_id"], ids["root_group_id"]) == (1001, 4001, 4101)


# -- contacts -------------------------------------------------------------------------------------


def test_list_contacts_returns_every_seeded_contact(platform):
    result = run(MessagingPlatformListContactsOperator(task_id="c"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", CONTACTS, "")
    assert_wire_headers(platform, record, with_body=False)
    assert len(result) == 25
    ids = [c["Id"] for c in result]
    assert ids == sorted(ids) and len(set(ids)) == 25
    assert all(c["AccountId"] == 1001 and c["PhoneNumber"].startswith("+1555") for c in result)


def test_list_contacts_pages_with_top_and_skip(platform):
    everyone = MessagingPlatformHook().list_contacts()
    op = MessagingPlatformListContactsOperator(task_id="c", top="5", skip=10)  # a template renders to a string
    result = run(op)
    record = platform.control.requests()[-1]
    assert (record["method"], record["path"]) == ("GET", CONTACTS)
    assert dict(parse_qsl(record["query"])) == {"$top": "5", "$skip": "10"}
    assert result == everyone[10:15]


def test_list_contacts_past_the_end_is_an_empty_list(platform):
    assert run(MessagingPlatformListContactsOperator(task_id="c", skip=25)) == []
    assert platform.control.requests()[0]["status"] == 204


@pytest.mark.parametrize(
    ("kwargs", "field"), [({"top": -1}, "top"), ({"skip": "-3"}, "skip"), ({"top": "five"}, "top")]
)
def test_list_contacts_bad_paging_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(MessagingPlatformListContactsOperator(task_id="c", **kwargs))
    assert platform.control.requests() == []


def test_list_contacts_account_override(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformListContactsOperator(task_id="c", account_id=1004, top=1))
    assert caught.value.status == 404
    record = platform.control.requests()[0]
    assert record["path"] == "/api/v2.1/account/1004/contact"


def test_contact_operators_template_fields():
    assert set(MessagingPlatformListContactsOperator.template_fields) >= {"account_id", "top", "skip"}
    assert set(MessagingPlatformListFilterGroupsOperator.template_fields) >= {"account_id", "contact_list_id"}
    assert set(MessagingPlatformGetFilterGroupOperator.template_fields) >= {"account_id", "contact_list_id", "group_id"}
    assert set(MessagingPlatformUpdateFilterGroupOperator.template_fields) >= {
        "account_id", "contact_list_id", "group_id", "operator", "extra",
    }  # fmt: skip


def test_create_contact_looks_first_then_posts_the_fields_and_returns_the_contact(platform):
    op = MessagingPlatformCreateContactOperator(
        task_id="c", phone_number="+15125550177", email_address="ann@example.com", first_name="Ann", assigned_id="42"
    )
    result = run(op)
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", CONTACTS, "")  # the retry-safe lookup: the watermark is the highest id listed
    assert sent(post) == ("POST", CONTACTS, "")
    assert_wire_headers(platform, post, with_body=True)
    assert post["json"] == {
        "PhoneNumber": "+15125550177",
        "Email": "ann@example.com",
        "FirstName": "Ann",
        "AssignedId": 42,
    }
    assert post["status"] == 201
    assert (result["Id"], result["PhoneNumber"], result["LastName"], result["AssignedId"]) == (
        6026,
        "+15125550177",
        None,
        42,
    )
    assert MessagingPlatformHook().get_contact(6026) == result


def test_create_contact_retried_after_a_lost_answer_adopts_what_the_first_try_made(platform):
    op = MessagingPlatformCreateContactOperator(task_id="c", email_address="ann@example.com")
    context = task_context(op)  # one task instance: its state store outlives the first try
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/contact$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        run(op, context)
    before = len(platform.control.requests())
    adopted = run(op, context)
    assert [sent(r) for r in platform.control.requests()[before:]] == [
        ("GET", CONTACTS, ""),
        ("GET", f"{CONTACTS}/6026", ""),
    ]
    assert [c["Id"] for c in MessagingPlatformHook().list_contacts() if c["Email"] == "ann@example.com"] == [6026]
    assert adopted["Id"] == 6026


def test_create_contact_never_adopts_a_contact_the_account_had_before(platform):
    older = MessagingPlatformHook().create_contact(phone_number="+15125550177")
    result = run(MessagingPlatformCreateContactOperator(task_id="c", phone_number="+15125550177"))
    assert result["Id"] != older["Id"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 2


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"first_name": "Ann"}, "phone_number"),
        ({"phone_number": 15125550177}, "phone_number"),  # what native rendering makes of +15125550100
        ({"phone_number": "5125550177"}, "phone_number"),
        ({"email_address": "ann.example.com"}, "email_address"),
        ({"email_address": "ann@example.com", "assigned_id": "x"}, "assigned_id"),
    ],
)
def test_create_contact_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(MessagingPlatformCreateContactOperator(task_id="c", **kwargs))
    assert platform.control.requests() == []


def test_update_contact_sends_the_given_fields_only(platform):
    op = MessagingPlatformUpdateContactOperator(
        task_id="c", contact_id="6003", email_address="cy@example.com", last_name=""
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{CONTACTS}/6003", "")
    assert_wire_headers(platform, record, with_body=True)
    assert (record["json"], record["status"]) == ({"Email": "cy@example.com", "LastName": ""}, 200)
    assert (result["Id"], result["PhoneNumber"], result["Email"]) == (6003, "+15550100002", "cy@example.com")


@pytest.mark.parametrize(("kwargs", "field"), [({}, "body"), ({"phone_number": "+1"}, "phone_number")])
def test_update_contact_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(MessagingPlatformUpdateContactOperator(task_id="c", contact_id=6003, **kwargs))
    assert platform.control.requests() == []


# -- filter groups --------------------------------------------------------------------------------


def test_list_filter_groups_is_flat(platform):
    result = run(MessagingPlatformListFilterGroupsOperator(task_id="fg", contact_list_id=4001))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", GROUPS, "")
    assert_wire_headers(platform, record, with_body=False)
    root, sub = result
    assert (root["Id"], root["ParentId"], root["Operator"]) == (4101, None, "AND")
    assert (sub["ParentId"], sub["Operator"], sub["ContactListId"]) == (4101, "OR", 4001)
    assert [g["Id"] for g in root["Groups"]] == [sub["Id"]]


def test_list_filter_groups_of_an_unknown_list_is_not_found(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformListFilterGroupsOperator(task_id="fg", contact_list_id="4999"))
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("GET", "/api/v2.1/account/1001/contactlist/4999/group", "")


def test_get_filter_group(platform):
    result = run(MessagingPlatformGetFilterGroupOperator(task_id="fg", contact_list_id="4001", group_id=4101))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{GROUPS}/4101", "")
    assert (result["Id"], result["AccountId"], result["Operator"]) == (4101, 1001, "AND")
    assert [f["Value"] for f in result["Filters"]] == ["1"]
    assert len(result["Groups"]) == 1 and len(result["Groups"][0]["Filters"]) == 2


def test_update_filter_group_changes_the_operator_only(platform):
    before = MessagingPlatformHook().get_filter_group(4001, 4101)
    result = run(
        MessagingPlatformUpdateFilterGroupOperator(task_id="fg", contact_list_id=4001, group_id=4101, operator="or")
    )
    record = platform.control.requests()[-1]
    assert sent(record) == ("PUT", f"{GROUPS}/4101", "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == {"Operator": "OR"}
    assert record["status"] == 200
    assert result["Operator"] == "OR"
    assert (result["Filters"], result["Groups"]) == (before["Filters"], before["Groups"])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"operator": "XOR"}, "operator"),
        ({"extra": {"Groups": []}}, "Groups"),
        ({"operator": "AND", "extra": {"filters": []}}, "filters"),
        ({}, "body"),
    ],
)
def test_update_filter_group_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformUpdateFilterGroupOperator(task_id="fg", contact_list_id=4001, group_id=4101, **kwargs)
        run(op)
    assert platform.control.requests() == []
