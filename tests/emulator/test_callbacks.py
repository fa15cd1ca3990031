"""Callback records: create, list, read, replace, hard delete."""

from __future__ import annotations

import pytest

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {"Id", "AccountId", "CallbackType", "URL", "Active"}
VALID = {"CallbackType": 1, "URL": "https://example.com/hooks/keyword", "Active": True}


def callbacks(emu) -> str:
    return emu.at("/callback")


def test_empty_list_is_204(emu):
    response = emu.api("GET", callbacks(emu))
    assert (response.status_code, response.content) == (204, b"")


def test_create_get_and_list(emu):
    created = emu.created(callbacks(emu), VALID)
    assert set(created) == FIELDS
    assert created == {**VALID, "Id": created["Id"], "AccountId": emu.account}
    same_type = emu.created(callbacks(emu), {"CallbackType": 1, "URL": "http://example.com/second", "Active": False})
    assert (same_type["URL"], same_type["Active"]) == ("http://example.com/second", False)
    assert emu.api("GET", f"{callbacks(emu)}/{created['Id']}").json() == created
    assert emu.api("GET", callbacks(emu)).json() == [created, same_type]


@pytest.mark.parametrize("callback_type", [1, 3, 6, 8, 11])
def test_every_documented_type_is_accepted(emu, callback_type):
    assert emu.created(callbacks(emu), {**VALID, "CallbackType": callback_type})["CallbackType"] == callback_type


@pytest.mark.parametrize(
    ("fields", "code", "prop"),
    [
        ({"CallbackType": None}, PROPERTY_REQUIRED, "CallbackType"),
        ({"CallbackType": 2}, PROPERTY_INVALID_VALUE, "CallbackType"),
        ({"URL": None}, PROPERTY_REQUIRED, "URL"),
        ({"URL": ""}, PROPERTY_REQUIRED, "URL"),
        ({"URL": "ftp://example.com/x"}, PROPERTY_INVALID_VALUE, "URL"),
        ({"URL": "/relative/path"}, PROPERTY_INVALID_VALUE, "URL"),
        ({"URL": "https://"}, PROPERTY_INVALID_VALUE, "URL"),
        ({"Active": None}, PROPERTY_REQUIRED, "Active"),
        ({"CallbackType": 1.0}, PROPERTY_INVALID_VALUE, "CallbackType"),
    ],
)
@DEPARTS
def test_validation(emu, fields, code, prop):
    body = {k: v for k, v in {**VALID, **fields}.items() if v is not None}
    assert emu.error(emu.api("POST", callbacks(emu), json=body)) == (code, prop, "Callback")
    assert emu.api("GET", callbacks(emu)).status_code == 204


#: Taken as the platform's reader takes them, each noted as a violation; refused in strict mode.
READ_AS_THE_PLATFORM_READS = [
    ({"CallbackType": "1"}, "CallbackType", "type-conversion"),
    ({"Active": "true"}, "Active", "type-conversion"),
    ({"URL": None, "Url": "https://example.com/hook"}, "URL", "property-case"),
    ({"URL": "https://example.com/a", "url": "https://example.com/b"}, "URL", "property-case"),
]


@pytest.mark.parametrize(("fields", "prop", "rule"), READ_AS_THE_PLATFORM_READS)
@DEPARTS
def test_what_the_platform_reads_is_taken_and_recorded(emu, fields, prop, rule):
    body = {k: v for k, v in {**VALID, **fields}.items() if v is not None}
    created = emu.created(callbacks(emu), body)
    assert (created["CallbackType"], created["Active"]) == (VALID["CallbackType"], VALID["Active"])
    assert created["URL"] == list(body.values())[-1] if rule == "property-case" else VALID["URL"]
    assert (prop, rule) in [(name, rule) for _, name, rule in emu.violations()]


@pytest.mark.parametrize(("fields", "prop", "rule"), READ_AS_THE_PLATFORM_READS)
def test_what_the_platform_reads_is_refused_when_strict(strict_emu, fields, prop, rule):
    body = {k: v for k, v in {**VALID, **fields}.items() if v is not None}
    response = strict_emu.api("POST", callbacks(strict_emu), json=body)
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, prop, "Callback")
    assert strict_emu.api("GET", callbacks(strict_emu)).status_code == 204


def test_type_message_lists_the_allowed_types(emu):
    message = emu.api("POST", callbacks(emu), json={**VALID, "CallbackType": 2}).json()[0]["ErrorMessage"]
    for allowed in ("1 (Keyword)", "3 (Dialog)", "6 (Stop)", "8 (NewAccount)", "11 (IncomingMessage)"):
        assert allowed in message


@DEPARTS
def test_put_replaces_the_record(emu):
    created = emu.created(callbacks(emu), VALID)
    url = f"{callbacks(emu)}/{created['Id']}"
    response = emu.api("PUT", url, json={"CallbackType": 6, "URL": "https://example.com/stop", "Active": False})
    assert response.status_code == 200
    assert response.json() == {**created, "CallbackType": 6, "URL": "https://example.com/stop", "Active": False}
    assert emu.error(emu.api("PUT", url, json={"CallbackType": 6, "URL": "https://example.com/stop"}))[1] == "Active"
    assert emu.api("GET", url).json()["Active"] is False


def test_delete_is_hard(emu):
    created = emu.created(callbacks(emu), VALID)
    url = f"{callbacks(emu)}/{created['Id']}"
    response = emu.api("DELETE", url)
    assert (response.status_code, response.json()) == (200, created)
    assert emu.error(emu.api("GET", url), 404)[2] == "Callback"
    assert emu.api("DELETE", url).status_code == 404
    assert emu.api("PUT", url, json=VALID).status_code == 404
    assert emu.api("GET", callbacks(emu)).status_code == 204
