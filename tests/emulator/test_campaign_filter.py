"""OData query options on the campaign list: $filter (facts §1, §8.1), $top, $skip; other $ options refused."""

from __future__ import annotations

import pytest
import requests

PROPERTY_INVALID_VALUE = 0x06000000


@pytest.fixture
def three(emu) -> list[int]:
    """Spring (Basic, default), Summer (Coupon), O'Brien (Basic, with UserData); their ids."""
    made = [
        emu.create_campaign(Name="Spring", CampaignTypeId=1, IsDefault=True),
        emu.create_campaign(Name="Summer", CampaignTypeId=4),
        emu.create_campaign(Name="O'Brien", CampaignTypeId=1, UserData="vip"),
    ]
    return [c["Id"] for c in made]


def names(response) -> list[str]:
    assert response.status_code == 200, response.text
    return [c["Name"] for c in response.json()]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("(IsDefault eq true) and (CampaignTypeId eq 1)", ["Spring"]),
        ("Name eq 'Spring'", ["Spring"]),
        ("Name eq 'O''Brien'", ["O'Brien"]),
        ("CampaignTypeId eq 1", ["Spring", "O'Brien"]),
        ("CampaignTypeId ne 1 or UserData eq 'vip'", ["Summer", "O'Brien"]),
        ("not IsDefault", ["Summer", "O'Brien"]),
        ("UserData eq null", ["Spring", "Summer"]),
        ("StatusReason eq 'Active' and SingleUse eq false", ["Spring", "Summer", "O'Brien"]),
        ("Created ge '2000-01-01T00:00:00' and Created lt '2999-01-01T00:00:00'", ["Spring", "Summer", "O'Brien"]),
    ],
)
def test_filter(emu, three, expression, expected):
    for only_mine in ("true", "false"):
        response = emu.api("GET", emu.campaigns, params={"onlyMine": only_mine, "$filter": expression})
        assert names(response) == expected


def test_filter_by_id_and_the_answer_shape_is_unchanged(emu, three):
    response = emu.api("GET", emu.campaigns, params={"$filter": f"Id eq {three[1]}"})
    [summer] = response.json()
    assert summer == emu.api("GET", f"{emu.campaigns}/{three[1]}").json()
    assert "IsDefault" not in summer


def test_no_match_is_204(emu, three):
    response = emu.api("GET", emu.campaigns, params={"$filter": "Name eq 'Autumn'"})
    assert (response.status_code, response.content) == (204, b"")


def test_deleted_campaigns_stay_out_of_a_filtered_list(emu, three):
    emu.api("DELETE", f"{emu.campaigns}/{three[0]}")
    response = emu.api("GET", emu.campaigns, params={"$filter": "StatusId eq 2"})
    assert response.status_code == 204


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"$top": "2"}, ["Spring", "Summer"]),
        ({"$skip": "1"}, ["Summer", "O'Brien"]),
        ({"$filter": "CampaignTypeId eq 1", "$skip": "1"}, ["O'Brien"]),
        ({"$filter": "CampaignTypeId eq 1", "$top": "1"}, ["Spring"]),
    ],
)
def test_top_and_skip_apply_after_the_filter(emu, three, params, expected):
    assert names(emu.api("GET", emu.campaigns, params=params)) == expected


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("name eq 'Spring'", "unknown property 'name' (names are case-sensitive: Name)"),
        ("Title eq 'x'", "unknown property 'Title'"),
        ("Name eq 1", "cannot compare Name (string) with 1 (integer)"),
        ("(IsDefault eq true", "expected ')'"),
        ("Name eq 'Spring", "unexpected"),
        ("Name eq Spring", "unknown property 'Spring'"),
        ("", "empty"),
        ("Subscriptions eq null", "unknown property 'Subscriptions'"),
    ],
)
def test_malformed_filter_is_400_naming_filter(emu, three, expression, words):
    response = emu.api("GET", emu.campaigns, params={"$filter": expression})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "$filter", "Campaign")
    assert words in response.json()[0]["ErrorMessage"]


def test_bad_filter_and_paging_are_listed_together(emu):
    response = emu.api("GET", emu.campaigns, params={"$filter": "Id eq", "$top": "x", "$skip": "-1"})
    assert response.status_code == 400
    assert [e["PropertyName"] for e in response.json()] == ["$filter", "$top", "$skip"]
    unknown_account = emu.api("GET", "/account/999/campaign", params={"$filter": "Id eq"})
    assert emu.error(unknown_account, 404)[2] == "Account"  # 404 before 400


@pytest.mark.parametrize("option", ["$select", "$orderby", "$foo", "$Filter", "$TOP", "$expand", "$count"])
def test_unsupported_dollar_options_are_400_naming_them(emu, three, option):
    response = emu.api("GET", emu.campaigns, params={option: "Name"})
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, option, None)
    assert "$filter, $skip, $top" in response.json()[0]["ErrorMessage"]


def test_every_unsupported_option_is_named_at_once_and_a_repeated_one_is_refused(emu, three):
    url = f"{emu.server.base_url}{emu.campaigns}?$select=Name&$orderby=Id&onlyMine=true&$filter=Id%20eq%201"
    response = emu.http.get(url, timeout=10)
    assert [e["PropertyName"] for e in response.json()] == ["$select", "$orderby"]
    twice = emu.http.get(f"{emu.server.base_url}{emu.campaigns}?$top=1&$top=2", timeout=10)
    assert emu.error(twice) == (PROPERTY_INVALID_VALUE, "$top", None)
    assert "more than once" in twice.json()[0]["ErrorMessage"]
    unauthorised = requests.get(f"{emu.server.base_url}{emu.campaigns}?$select=Name", timeout=10)
    assert unauthorised.status_code == 401  # authentication comes first
