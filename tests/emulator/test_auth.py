"""HTTP Basic authentication and account scoping."""

from __future__ import annotations

import requests

DENIED = [
    {
        "ErrorCodeId": 0,
        "ErrorMessage": "Authorization has been denied for this request.",
        "ObjectType": None,
        "PropertyName": None,
    }
]


def test_missing_credentials_is_401_with_platform_body(emu):
    response = requests.get(emu.server.base_url + emu.campaigns, timeout=10)
    assert response.status_code == 401
    assert response.json() == DENIED
    assert response.headers["WWW-Authenticate"] == 'Basic realm="api"'


def test_wrong_secret_unknown_key_and_other_schemes_are_401(emu):
    url = emu.server.base_url + emu.campaigns
    for auth in [(emu.seed.api_key, emu.seed.api_secret + "x"), ("no-such-key", emu.seed.api_secret)]:
        response = requests.get(url, auth=auth, timeout=10)
        assert (response.status_code, response.json()) == (401, DENIED)
    for header in ["Bearer abc", "Basic not-base64!", "Basic " + "a2V5LW9ubHk="]:  # the last is "key-only"
        response = requests.get(url, headers={"Authorization": header}, timeout=10)
        assert response.status_code == 401


def test_key_reaches_only_its_own_account(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Second account"})
    assert other["account_id"] != emu.account and other["api_key"] != emu.seed.api_key

    response = emu.api("GET", f"/account/{other['account_id']}/campaign")
    assert response.status_code == 404
    [error] = response.json()
    assert (error["ErrorCodeId"], error["ObjectType"]) == (404, "Account")

    own = requests.get(
        f"{emu.server.base_url}/account/{other['account_id']}/action/{other['action_id']}/schedule",
        auth=(other["api_key"], other["api_secret"]),
        timeout=10,
    )
    assert own.status_code == 204


def test_unknown_account_is_404(emu):
    assert emu.api("GET", "/account/999999/campaign").status_code == 404
    assert emu.api("GET", "/account/not-a-number/campaign").json()[0]["ObjectType"] == "Account"


def test_control_endpoints_need_no_credentials(emu):
    assert emu.ok("GET", "/health") == {"status": "ok"}
