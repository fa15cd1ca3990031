"""OData $filter expressions built from values (client/odata.py): literals quoted, fields checked, and the emulator
reads what they write."""

from __future__ import annotations

import enum
from datetime import datetime
from decimal import Decimal

import pytest
from hypothesis import given, strategies as st

from messaging_platform_emulator.odata import STRING, parse_filter
from messaging_platform_provider.client import MessagingPlatformValidationError, and_, eq, literal, ne, not_, or_
from messaging_platform_provider.client.odata import ge, gt, le, lt
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

HOSTILE = "nosuch' or Name ne 'nosuch"


class Status(enum.IntEnum):
    ACTIVE = 0


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("Spring", "'Spring'"),
        ("O'Brien launch", "'O''Brien launch'"),
        ("''", "''''''"),
        ("", "''"),
        (HOSTILE, "'nosuch'' or Name ne ''nosuch'"),
        ("Ünïcode ✓", "'Ünïcode ✓'"),
        (True, "true"),
        (False, "false"),
        (0, "0"),
        (-42, "-42"),
        (2**63 - 1, "9223372036854775807"),
        (Status.ACTIVE, "0"),
        (1.5, "1.5"),
        (1e-05, "1e-05"),
        (None, "null"),
    ],
)
def test_literal(value, written):
    assert literal(value) == written


@pytest.mark.parametrize(
    "value",
    [float("nan"), float("inf"), float("-inf"), b"bytes", Decimal("1.5"), datetime(2026, 1, 1), object(), ["a"]],
)
def test_a_value_without_a_safe_literal_is_refused_naming_the_field(value):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        eq("Name", value)
    assert caught.value.field == "Name"
    with pytest.raises(MessagingPlatformValidationError) as caught:
        literal(value)
    assert caught.value.field == "value"


def test_text_with_a_line_break_is_refused():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        literal("two\nlines", "Name")
    assert caught.value.field == "Name" and "control characters" in caught.value.problem


@pytest.mark.parametrize(
    ("build", "written"),
    [
        (lambda: eq("Name", "O'Brien"), "Name eq 'O''Brien'"),
        (lambda: ne("StatusId", 0), "StatusId ne 0"),
        (lambda: gt("Id", 6000), "Id gt 6000"),
        (lambda: ge("Created", "2026-01-01T00:00:00"), "Created ge '2026-01-01T00:00:00'"),
        (lambda: lt("Id", 10), "Id lt 10"),
        (lambda: le("Id", 10), "Id le 10"),
        (lambda: eq("IsDefault", True), "IsDefault eq true"),
        (lambda: eq("UserData", None), "UserData eq null"),
        (lambda: eq("Address/City", "Austin"), "Address/City eq 'Austin'"),
        (lambda: and_(eq("IsDefault", True), eq("CampaignTypeId", 1)), "(IsDefault eq true) and (CampaignTypeId eq 1)"),
        (lambda: or_("Id eq 1", "Id eq 2", "Id eq 3"), "(Id eq 1) or (Id eq 2) or (Id eq 3)"),
        (lambda: and_(eq("Name", "x")), "Name eq 'x'"),
        (lambda: not_(eq("Name", "x")), "not (Name eq 'x')"),
    ],
)
def test_expressions(build, written):
    assert build() == written


@pytest.mark.parametrize(
    "field",
    [
        "Name eq 'x' or Name",
        "Name)",
        "1Name",
        "Na-me",
        "Name/",
        "/Name",
        "",
        " Name",
        "Name ",
        "Nаme",
        "and",
        "true",
        7,
    ],
)
def test_a_field_that_is_not_a_property_name_is_refused(field):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        eq(field, "x")
    assert caught.value.field == "field"


@pytest.mark.parametrize("field", ["PhoneNumber", "Contact/PhoneNumber", "phonenumber"])
def test_a_contacts_phone_number_compared_with_a_number_is_refused(field):
    """A contact's PhoneNumber is text: 15550100001 is +15550100001 read as a number (native rendering), not it."""
    with pytest.raises(MessagingPlatformValidationError, match=f"^{field}: got the number 15550100001 "):
        eq(field, 15550100001)
    assert eq(field, "+15550100001") == f"{field} eq '+15550100001'"
    assert eq(field, None) == f"{field} eq null" and eq("Id", 6001) == "Id eq 6001"


@pytest.mark.parametrize("conditions", [(), ("",), ("Id eq 1", "  "), ("Id eq 1", None)])
def test_and_or_need_conditions(conditions):
    for combine in (and_, or_):
        with pytest.raises(MessagingPlatformValidationError) as caught:
            combine(*conditions)
        assert caught.value.field == "conditions"


@given(st.text(alphabet=st.characters(min_codepoint=32)), st.text(alphabet=st.characters(min_codepoint=32)))
def test_the_emulator_reads_any_text_literal_as_exactly_that_text(wanted, other):
    """Whatever the text (quotes, "or", parentheses), ``eq`` selects the rows holding exactly it and no others."""
    selects = parse_filter(eq("Name", wanted), {"Name": STRING})
    assert selects({"Name": wanted})
    assert selects({"Name": other}) == (other == wanted)


# -- against the emulator, through the hook ---------------------------------------------------------


@pytest.fixture
def campaigns(platform) -> MessagingPlatformHook:
    hook = MessagingPlatformHook()
    for name in ("Spring", "O'Brien launch", "O'Brien launch 2", "nosuch"):
        hook.create_campaign(name=name, campaign_type="Basic")
    return hook


def test_a_hostile_name_selects_nothing(campaigns):
    """Written into the expression by hand, the name selects every campaign; as a literal, none."""
    every = campaigns.list_campaigns()
    assert campaigns.list_campaigns(odata_filter=f"Name eq '{HOSTILE}'") == every  # what the helper prevents
    assert campaigns.list_campaigns(odata_filter=eq("Name", HOSTILE)) == []
    assert campaigns.list_campaigns(odata_filter=f"Name eq {literal(HOSTILE)}") == []


def test_a_name_with_a_quote_is_found_exactly(campaigns):
    (found,) = campaigns.list_campaigns(odata_filter=eq("Name", "O'Brien launch"))
    assert found["Name"] == "O'Brien launch"
    both = campaigns.list_campaigns(odata_filter=or_(eq("Name", "O'Brien launch"), eq("Name", "O'Brien launch 2")))
    assert [c["Name"] for c in both] == ["O'Brien launch", "O'Brien launch 2"]
    others = campaigns.list_campaigns(odata_filter=and_(not_(eq("Name", "O'Brien launch")), gt("Id", 0)))
    assert "O'Brien launch" not in [c["Name"] for c in others] and len(others) >= 3
