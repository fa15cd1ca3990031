"""Contact and contact filter group operators against the emulator: the wire and the XCom."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformGetFilterGroupOperator,
    MessagingPlatformListContactsOperator,
    MessagingPlatformListFilterGroupsOperator,
    MessagingPlatformUpdateFilterGroupOperator,
)
from tests.support.operator_context import assert_wire_headers, fails_without_retry, refused, run, seed, sent

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
