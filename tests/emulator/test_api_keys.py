"""API keys: list without secrets, create, rotate the secret, revoke, expiry of temporary keys."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
import requests

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {"Id", "AccountId", "Label", "Key", "TypeId", "Type", "ValidTo", "LastActivity", "UserName"}


def keys(emu) -> str:
    return emu.at("/api-key")


def as_key(emu, created, path: str = "/campaign") -> requests.Response:
    return requests.get(emu.server.base_url + emu.at(path), auth=(created["Key"], created["Secret"]), timeout=10)


def emulator_now(emu) -> datetime:
    return datetime.fromisoformat(emu.ok("GET", "/clock")["now"])


def test_list_shows_the_seeded_key_without_its_secret(emu):
    response = emu.api("GET", keys(emu))
    assert response.status_code == 200
    [seeded] = response.json()
    assert set(seeded) == FIELDS
    assert (seeded["Id"], seeded["AccountId"], seeded["Label"]) == (1, emu.account, "Seeded key")
    assert (seeded["TypeId"], seeded["Type"], seeded["ValidTo"], seeded["UserName"]) == (2, 2, None, None)
    assert seeded["Key"] == emu.seed.api_key
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", seeded["LastActivity"])  # this very request
    assert emu.seed.api_secret not in response.text


def test_get_one_carries_the_secret(emu):
    body = emu.api("GET", f"{keys(emu)}/1").json()
    assert set(body) == FIELDS | {"Secret"}
    assert body["Secret"] == emu.seed.api_secret


def test_create_common_key_which_then_authenticates(emu):
    created = emu.created(keys(emu), {"Label": "Reporting", "TypeId": 2})
    assert set(created) == FIELDS | {"Secret"}
    assert re.fullmatch(r"[0-9a-f]{32}", created["Key"]) and len(created["Secret"]) >= 32
    assert (created["Label"], created["TypeId"], created["Type"], created["AccountId"]) == ("Reporting", 2, 2, 1001)
    assert created["LastActivity"] is None
    assert as_key(emu, created).status_code == 204
    listed = {k["Id"]: k for k in emu.api("GET", keys(emu)).json()}
    assert set(listed) == {1, created["Id"]}
    assert listed[created["Id"]]["LastActivity"] is not None
    assert all("Secret" not in k for k in listed.values())


def test_create_temporary_key_with_type_alias_and_expiry(emu):
    emu.ok("POST", "/clock", json={"scale": 0})
    valid_to = (emulator_now(emu) + timedelta(hours=1)).isoformat(timespec="seconds")
    created = emu.created(keys(emu), {"Label": "Contractor", "Type": 3, "ValidTo": valid_to})
    assert (created["TypeId"], created["ValidTo"]) == (3, valid_to)
    assert as_key(emu, created).status_code == 204
    emu.ok("POST", "/clock", json={"advance_seconds": 3601})
    assert as_key(emu, created).status_code == 401
    assert emu.api("GET", emu.campaigns).status_code == 204  # the common seeded key never expires


@pytest.mark.parametrize(
    ("body", "code", "prop"),
    [
        ({"TypeId": 2}, PROPERTY_REQUIRED, "Label"),
        ({"Label": " ", "TypeId": 2}, PROPERTY_REQUIRED, "Label"),
        ({"Label": "x"}, PROPERTY_REQUIRED, "TypeId"),
        ({"Label": "x", "TypeId": 1}, PROPERTY_INVALID_VALUE, "TypeId"),
        ({"Label": "x", "TypeId": 4}, PROPERTY_INVALID_VALUE, "TypeId"),
        ({"Label": "x", "Type": 1}, PROPERTY_INVALID_VALUE, "Type"),
        ({"Label": "x", "TypeId": 3}, PROPERTY_REQUIRED, "ValidTo"),
        ({"Label": "x", "TypeId": 3, "ValidTo": "2001-01-01T00:00:00"}, PROPERTY_INVALID_VALUE, "ValidTo"),
        ({"Label": "x", "TypeId": 3, "ValidTo": "tomorrow"}, PROPERTY_INVALID_VALUE, "ValidTo"),
    ],
)
@DEPARTS
def test_create_validation(emu, body, code, prop):
    assert emu.error(emu.api("POST", keys(emu), json=body)) == (code, prop, "ApiKey")
    assert len(emu.api("GET", keys(emu)).json()) == 1


@DEPARTS
def test_a_string_type_id_is_read_as_the_platform_converts_it_and_refused_when_strict(emu, strict_emu):
    created = emu.created(keys(emu), {"Label": "x", "TypeId": "2"})
    assert created["TypeId"] == 2
    assert emu.violations() == [(f"/api/v2.1{keys(emu)}", "TypeId", "type-conversion")]
    response = strict_emu.api("POST", keys(strict_emu), json={"Label": "x", "TypeId": "2"})
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, "TypeId", "ApiKey")


def test_master_type_message_lists_the_allowed_types(emu):
    message = emu.api("POST", keys(emu), json={"Label": "x", "TypeId": 1}).json()[0]["ErrorMessage"]
    assert "2 (Common)" in message and "3 (Temporary)" in message


def test_put_makes_a_new_secret_and_the_old_one_stops_at_once(emu):
    created = emu.created(keys(emu), {"Label": "Rotating", "TypeId": 2})
    url = f"{keys(emu)}/{created['Id']}"
    response = emu.api("PUT", url, data=b'{"Secret": "chosen-by-client"}', headers={"Content-Type": "application/json"})
    assert response.status_code == 200
    rotated = response.json()
    assert (rotated["Id"], rotated["Key"]) == (created["Id"], created["Key"])
    assert rotated["Secret"] not in (created["Secret"], "chosen-by-client")
    assert as_key(emu, created).status_code == 401
    assert as_key(emu, rotated).status_code == 204
    assert emu.api("GET", url).json()["Secret"] == rotated["Secret"]


def test_rotating_the_seeded_key_then_reset_restores_it(emu):
    rotated = emu.api("PUT", f"{keys(emu)}/1").json()
    assert emu.api("GET", emu.campaigns).status_code == 401
    assert as_key(emu, rotated).status_code == 204
    emu.ok("POST", "/reset")
    assert emu.api("GET", emu.campaigns).status_code == 204


def test_delete_revokes(emu):
    created = emu.created(keys(emu), {"Label": "Short-lived", "TypeId": 2})
    url = f"{keys(emu)}/{created['Id']}"
    response = emu.api("DELETE", url)
    assert response.status_code == 200
    assert set(response.json()) == FIELDS and response.json()["Id"] == created["Id"]
    assert as_key(emu, created).status_code == 401
    assert [k["Id"] for k in emu.api("GET", keys(emu)).json()] == [1]
    assert emu.error(emu.api("GET", url), 404)[1:] == (None, "ApiKey")
    assert emu.api("DELETE", url).status_code == 404
    assert emu.api("PUT", url).status_code == 404


def test_master_key_cannot_be_deleted(emu):
    master = emu.ok("POST", "/api-keys", json={})
    assert (master["TypeId"], master["Label"], master["AccountId"]) == (1, "Master key", emu.account)
    response = emu.api("DELETE", f"{keys(emu)}/{master['Id']}")
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "TypeId", "ApiKey")
    assert as_key(emu, master).status_code == 204


def test_unknown_and_foreign_keys_are_404(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    for key_id in (other["api_key_id"], 999, "abc"):
        assert emu.error(emu.api("GET", f"{keys(emu)}/{key_id}"), 404)[2] == "ApiKey"
    assert emu.api("GET", f"/account/{other['account_id']}/api-key").status_code == 404
    assert emu.control("POST", "/api-keys", json={"account_id": 424242}).status_code == 404
    assert emu.control("POST", "/api-keys", json={"type_id": 3}).status_code == 422
