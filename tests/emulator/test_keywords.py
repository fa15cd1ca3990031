"""Keywords of the seeded channel and their attachment to a campaign (body: a bare JSON integer)."""

from __future__ import annotations

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {
    "Id",
    "AccountId",
    "ChannelId",
    "ChannelCode",
    "CampaignId",
    "Name",
    "CallbackRequired",
    "StatusId",
    "Created",
    "Modified",
    "CreatedBy",
    "ModifiedBy",
}


def keyword(emu, channel: object = 22, name: object = 8001) -> str:
    return emu.at(f"/channel/{channel}/keyword/{name}")


def attach(emu, raw: bytes, path: str | None = None):
    return emu.api("POST", (path or keyword(emu)) + "/campaign", data=raw, headers={"Content-Type": "application/json"})


def test_seeded_keyword(emu):
    seeded = emu.api("GET", keyword(emu)).json()
    assert set(seeded) == FIELDS
    assert (seeded["Id"], seeded["Name"], seeded["ChannelId"], seeded["ChannelCode"]) == (8001, "JOIN", 22, "55222")
    assert (seeded["CampaignId"], seeded["CallbackRequired"], seeded["StatusId"]) == (None, True, 0)
    for channel, name in [("55222", "JOIN"), ("22", "join"), ("55222", "8001")]:
        assert emu.api("GET", keyword(emu, channel, name)).json() == seeded


def test_attach_with_a_bare_integer(emu):
    campaign = emu.create_campaign(CampaignTypeId=0)
    response = emu.api("POST", keyword(emu, "55222", "JOIN") + "/campaign", json=campaign["Id"])
    assert response.status_code == 200
    attached = response.json()
    assert (attached["Id"], attached["CampaignId"], attached["ModifiedBy"]) == (8001, campaign["Id"], "api-key-1")
    assert emu.api("GET", keyword(emu)).json() == attached


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        (b'{"CampaignId": 3001}', PROPERTY_INVALID_VALUE),
        (b"3001.0", PROPERTY_INVALID_VALUE),
        (b"true", PROPERTY_INVALID_VALUE),
        (b"[3001]", PROPERTY_INVALID_VALUE),
        (b"null", PROPERTY_INVALID_VALUE),
        (b"{not json", PROPERTY_INVALID_VALUE),
        (b"", PROPERTY_REQUIRED),
    ],
)
@DEPARTS
def test_anything_but_a_bare_integer_is_400(emu, raw, code):
    emu.create_campaign()
    assert emu.error(attach(emu, raw)) == (code, "CampaignId", "Keyword")
    assert emu.api("GET", keyword(emu)).json()["CampaignId"] is None


@DEPARTS
def test_a_string_of_the_id_is_read_as_the_id_and_refused_when_strict(emu, strict_emu):
    emu.create_campaign()
    assert attach(emu, b'"3001"').json()["CampaignId"] == 3001
    assert [(name, rule) for _, name, rule in emu.violations()] == [("CampaignId", "type-conversion")]
    strict_emu.create_campaign()
    assert strict_emu.error(attach(strict_emu, b'"3001"')) == (PROPERTY_INVALID_VALUE, "CampaignId", "Keyword")


def test_unknown_channel_keyword_or_campaign_is_404(emu):
    campaign = emu.create_campaign()
    body = str(campaign["Id"]).encode()
    assert emu.error(attach(emu, body, keyword(emu, 99)), 404)[2] == "Channel"
    assert emu.error(attach(emu, body, keyword(emu, 22, "NOPE")), 404)[2] == "Keyword"
    assert emu.error(emu.api("GET", keyword(emu, 22, 8999)), 404)[2] == "Keyword"
    assert emu.error(attach(emu, b"424242"), 404)[2] == "Campaign"
    emu.api("DELETE", f"{emu.campaigns}/{campaign['Id']}")
    assert emu.error(attach(emu, body), 404)[2] == "Campaign"


def test_other_accounts_cannot_see_the_channel(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    assert emu.error(emu.api("GET", f"/account/{other['account_id']}/channel/22/keyword/JOIN"), 404)[2] == "Account"


def test_control_adds_keywords(emu):
    added = emu.control("POST", "/keywords", json={"name": "SALE"})
    assert added.status_code == 201
    sale = added.json()
    assert set(sale) == FIELDS
    assert (sale["Name"], sale["ChannelId"], sale["AccountId"], sale["CallbackRequired"]) == ("SALE", 22, 1001, False)
    campaign = emu.create_campaign()
    assert attach(emu, str(campaign["Id"]).encode(), keyword(emu, 22, "sale")).json()["CampaignId"] == campaign["Id"]
    assert emu.control("POST", "/keywords", json={"name": "sale"}).status_code == 409
    assert emu.control("POST", "/keywords", json={"name": "X", "channel_id": 99}).status_code == 404
    assert emu.control("POST", "/keywords", json={"name": "TWO WORDS"}).status_code == 422
    flagged = emu.ok("POST", "/keywords", json={"name": "HOOK", "channel_id": 22, "callback_required": True})
    assert flagged["CallbackRequired"] is True
