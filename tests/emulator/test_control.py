"""Control endpoints: seed, reset, extra accounts and the request record."""

from __future__ import annotations

import base64
import re
import uuid

import requests


def test_seed_describes_the_seeded_account(emu):
    seed = emu.ok("GET", "/seed")
    assert seed == {
        "account_id": 1001,
        "api_key": emu.seed.api_key,
        "api_secret": emu.seed.api_secret,
        "action_id": 5001,
        "api_key_id": 1,
        "callback_token": emu.seed.callback_token,
        "contact_list_id": 4001,
        "root_group_id": 4101,
        "channel_id": 22,
        "keyword_id": 8001,
        "long_code_channel_id": 23,
        "base_url": emu.server.base_url,
    }
    assert re.fullmatch(r"[0-9a-f]{32}", seed["api_key"])
    assert str(uuid.UUID(seed["callback_token"])) == seed["callback_token"]


def test_reset_restores_the_seed_with_the_same_credentials(emu):
    emu.create_campaign()
    other = emu.ok("POST", "/accounts", json={"name": "Gone after reset"})
    reset = emu.ok("POST", "/reset")
    assert (reset["api_key"], reset["api_secret"]) == (emu.seed.api_key, emu.seed.api_secret)
    assert emu.api("GET", emu.campaigns).status_code == 204
    gone = requests.get(
        f"{emu.server.base_url}/account/{other['account_id']}/campaign",
        auth=(other["api_key"], other["api_secret"]),
        timeout=10,
    )
    assert gone.status_code == 401


def test_accounts_are_created_with_a_key_and_an_action(emu):
    created = emu.control("POST", "/accounts", json={"name": "Tenant B"})
    assert created.status_code == 201
    body = created.json()
    assert set(body) == {"account_id", "api_key", "api_secret", "action_id", "api_key_id", "callback_token"}
    assert body["callback_token"] != emu.seed.callback_token
    assert emu.control("POST", "/accounts", json={}).status_code == 422


def test_request_record(emu):
    emu.ok("DELETE", "/requests")
    emu.create_campaign(Name="Recorded")
    emu.api("GET", emu.campaigns, params={"onlyMine": "true"})
    requests.get(emu.server.base_url + emu.campaigns, timeout=10)  # no credentials: 401
    emu.ok("GET", "/health")  # control traffic is not recorded

    post, get, denied = emu.ok("GET", "/requests")
    assert set(post) == {"seq", "method", "path", "query", "headers", "json", "body", "status", "fault", "time"}
    assert (post["method"], post["path"], post["query"], post["status"]) == (
        "POST",
        "/api/v2.1" + emu.campaigns,
        "",
        201,
    )
    assert post["json"] == {"Name": "Recorded", "CampaignTypeId": 1}
    assert '"Recorded"' in post["body"]
    token = base64.b64encode(f"{emu.seed.api_key}:{emu.seed.api_secret}".encode()).decode()
    assert post["headers"]["authorization"] == f"Basic {token}"
    assert post["headers"]["content-type"] == "application/json"
    assert all(name == name.lower() for name in post["headers"])
    assert (get["query"], get["json"], get["body"], get["status"], get["fault"]) == (
        "onlyMine=true",
        None,
        "",
        200,
        None,
    )
    assert (denied["status"], "authorization" in denied["headers"]) == (401, False)
    assert post["seq"] < get["seq"] < denied["seq"]
    assert post["time"] <= get["time"] <= denied["time"]

    assert [r["seq"] for r in emu.ok("GET", "/requests", params={"since": get["seq"]})] == [denied["seq"]]
    assert emu.ok("DELETE", "/requests") == {"cleared": 3}
    assert emu.ok("GET", "/requests") == []


VOICE_CALL = {"Channels": ["23"], "Targets": ["6001"], "Message": "Hi"}


def test_reset_restores_every_seeded_resource(emu):
    seed = emu.ok("GET", "/seed")
    campaign = emu.create_campaign()
    emu.api("POST", emu.at("/channel/22/keyword/JOIN/campaign"), json=campaign["Id"])
    emu.api("PUT", emu.at("/contactlist/4001/group/4101"), json={"Operator": "OR"})
    emu.ok("POST", "/contacts", json={"count": 5})
    emu.ok("POST", "/keywords", json={"name": "EXTRA"})
    emu.ok("POST", "/channels", json={"code": "+15125550101"})
    emu.created(emu.at("/callback"), {"CallbackType": 6, "URL": "https://example.com/stop", "Active": True})
    emu.created(emu.at("/external-couponlist"), {"Name": "List"})
    emu.created(emu.at("/api-key"), {"Label": "Extra", "TypeId": 2})
    emu.created(emu.at("/action-pushvoicecall"), VOICE_CALL)

    assert emu.ok("POST", "/reset") == seed
    assert emu.api("GET", emu.at("/channel/22/keyword/JOIN")).json()["CampaignId"] is None
    assert emu.api("GET", emu.at("/channel/22/keyword/EXTRA")).status_code == 404
    assert emu.api("GET", emu.at("/contactlist/4001/group/4101")).json()["Operator"] == "AND"
    assert len(emu.api("GET", emu.at("/contact")).json()) == 25
    for path in ("/callback", "/external-couponlist", "/action-pushvoicecall"):
        assert emu.api("GET", emu.at(path)).status_code == 204
    assert [k["Id"] for k in emu.api("GET", emu.at("/api-key")).json()] == [1]
    assert emu.created(emu.at("/action-pushvoicecall"), VOICE_CALL)["Id"] == 5002  # counters restart too
    from_added = emu.api("POST", emu.at("/action-pushvoicecall"), json={**VOICE_CALL, "Channels": ["+15125550101"]})
    assert emu.error(from_added)[1] == "Channels"


def test_new_routes_are_recorded(emu):
    emu.ok("DELETE", "/requests")
    attach_path = emu.at("/channel/22/keyword/JOIN/campaign")
    emu.api("POST", attach_path, data=b"3001", headers={"Content-Type": "application/json"})
    emu.api("GET", emu.at("/contact"), params={"$top": 2})
    attach, contacts = emu.ok("GET", "/requests")
    assert (attach["path"], attach["json"], attach["status"]) == ("/api/v2.1" + attach_path, 3001, 404)
    assert (contacts["query"], contacts["status"]) == ("%24top=2", 200)
