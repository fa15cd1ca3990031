"""The $filter parser on its own: grammar, literals, types and the errors it gives."""

from __future__ import annotations

import pytest

from messaging_platform_emulator.odata import BOOLEAN, INTEGER, STRING, FilterError, ListQuery, parse_filter

PROPERTIES = {"Id": INTEGER, "Name": STRING, "UserData": STRING, "IsDefault": BOOLEAN, "CampaignTypeId": INTEGER}
ROWS = [
    {"Id": 1, "Name": "Spring", "UserData": None, "IsDefault": True, "CampaignTypeId": 1},
    {"Id": 2, "Name": "O'Brien", "UserData": "vip", "IsDefault": False, "CampaignTypeId": 4},
    {"Id": 3, "Name": "spring", "UserData": "", "IsDefault": False, "CampaignTypeId": 1},
]


def matching(expression: str) -> list[int]:
    predicate = parse_filter(expression, PROPERTIES)
    return [row["Id"] for row in ROWS if predicate(row)]


@pytest.mark.parametrize(
    ("expression", "ids"),
    [
        ("(IsDefault eq true) and (CampaignTypeId eq 1)", [1]),
        ("Name eq 'Spring'", [1]),
        ("Name eq 'O''Brien'", [2]),
        ("Name ne 'Spring'", [2, 3]),
        ("CampaignTypeId gt 1", [2]),
        ("CampaignTypeId ge 1", [1, 2, 3]),
        ("Id lt 3", [1, 2]),
        ("Id le -1", []),
        ("Name gt 'T'", [3]),
        ("IsDefault", [1]),
        ("not IsDefault", [2, 3]),
        ("not (Id eq 1 or Id eq 2)", [3]),
        ("Id eq 1 or Id eq 2 and CampaignTypeId eq 1", [1]),
        ("(Id eq 1 or Id eq 2) and CampaignTypeId eq 4", [2]),
        ("UserData eq null", [1]),
        ("UserData ne null", [2, 3]),
        ("null eq UserData", [1]),
        ("UserData gt 'a'", [2]),
        ("UserData lt 'zzz'", [2, 3]),
        ("Id eq CampaignTypeId", [1]),
        ("true", [1, 2, 3]),
        ("false or Id eq 3", [3]),
        ("  Id   eq\t2  ", [2]),
    ],
)
def test_expressions(expression, ids):
    assert matching(expression) == ids


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("name eq 'Spring'", "unknown property 'name' (names are case-sensitive: Name)"),
        ("Title eq 'x'", "unknown property 'Title'"),
        ("Name eq 1", "cannot compare Name (string) with 1 (integer)"),
        ("IsDefault eq 'true'", "cannot compare IsDefault (boolean) with 'true' (string)"),
        ("IsDefault gt false", "gt does not apply to true/false values"),
        ("Name", "Name is not a condition"),
        ("Name EQ 'x'", "Name is not a condition"),
        ("Id eq 1.5", "unexpected '1.5'"),
        ("Id eq 1e3", "unexpected '1e3'"),
        ("Name eq 'open", 'unexpected "\'open"'),
        ("(Id eq 1", "expected ')'"),
        ("Id eq 1)", "expected and, or or the end of the expression, got ')'"),
        ("Id eq", "expected a property name or a literal, got the end of the expression"),
        ("and Id eq 1", "expected a property name or a literal, got 'and'"),
        ("Id eq 1 eq 1", "got 'eq' at position 9"),
        ("Id eq 1 && Id eq 2", "unexpected '&& Id eq 2'"),
        ('Name eq "x"', "unexpected"),
        ("(" * 60 + "IsDefault" + ")" * 60, "nests deeper than 50 levels"),
    ],
)
def test_malformed_expressions_say_why(expression, words):
    with pytest.raises(FilterError) as caught:
        parse_filter(expression, PROPERTIES)
    assert words in str(caught.value)


def test_list_query_filters_then_skips_then_takes():
    query = ListQuery(parse_filter("CampaignTypeId eq 1", PROPERTIES), top=1, skip=1)
    assert query.apply(ROWS) == [ROWS[2]]
    assert ListQuery(None, top=None, skip=2).apply(ROWS) == [ROWS[2]]
    assert ListQuery(None, top=0, skip=0).apply(ROWS) == []
