"""Push voice call actions: create with inline schedules, read, and delete (stops the action and its schedules)."""

from __future__ import annotations

import pytest
import requests

#: The test sends, on purpose, requests that depart from the API reference (the emulator records each as a violation).
DEPARTS = pytest.mark.messaging_platform_allow_violations(
    "checks how the emulator takes a request the API reference does not describe"
)

PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000
FIELDS = {
    "Id",
    "AccountId",
    "StatusId",
    "Channels",
    "Targets",
    "ContactListIds",
    "ExcludeListIds",
    "TargetsUrl",
    "Message",
    "AudioUrl",
    "CampaignId",
    "Execute",
    "Schedules",
    "Created",
    "Modified",
    "CreatedBy",
    "ModifiedBy",
}
DAILY = {"ScheduleTypeId": 6, "RunAt": "09:00:00", "StartFrom": "2026-12-01T00:00:00"}
ONE_TIME = {"ScheduleTypeId": 2, "RunAt": "17:30:00", "StartFrom": "2026-12-01T17:30:00"}


def calls(emu) -> str:
    return emu.at("/action-pushvoicecall")


def body(**fields):
    """A valid voice call request; a field given as None is left out."""
    request = {"Channels": ["+15125550100"], "Targets": ["+15125550111", "6001"], "Message": "Your table is ready."}
    request.update(fields)
    return {k: v for k, v in request.items() if v is not None}


def test_empty_list_is_204(emu):
    response = emu.api("GET", calls(emu))
    assert (response.status_code, response.content) == (204, b"")


def test_create_with_schedules(emu):
    campaign = emu.create_campaign()
    created = emu.created(
        calls(emu),
        body(
            Channels=["23", "+15125550100"],
            ContactListIds=[4001],
            ExcludeListIds=[4001],
            TargetsUrl="https://example.com/targets.csv",
            CampaignId=campaign["Id"],
            Execute=True,
            Schedules=[DAILY, ONE_TIME],
        ),
    )
    assert set(created) == FIELDS
    assert created["Id"] == emu.action + 1  # same counter as the seeded action
    assert (created["AccountId"], created["StatusId"], created["Execute"]) == (emu.account, 0, True)
    assert created["Channels"] == ["23", "+15125550100"]
    assert created["Targets"] == ["+15125550111", "6001"]
    assert (created["ContactListIds"], created["ExcludeListIds"]) == ([4001], [4001])
    assert (created["TargetsUrl"], created["CampaignId"]) == ("https://example.com/targets.csv", campaign["Id"])
    assert (created["Message"], created["AudioUrl"]) == ("Your table is ready.", None)
    assert [(s["ScheduleType"], s["ActionId"], s["ProcessStatus"]) for s in created["Schedules"]] == [
        ("Daily", created["Id"], "Pending"),
        ("OneTime", created["Id"], "Pending"),
    ]
    schedules = emu.api("GET", emu.at(f"/action/{created['Id']}/schedule")).json()
    assert [s["Id"] for s in schedules] == [s["Id"] for s in created["Schedules"]]
    assert emu.api("GET", f"{calls(emu)}/{created['Id']}").json() == created
    assert emu.api("GET", calls(emu)).json() == [created]


def test_create_with_audio_and_defaults(emu):
    created = emu.created(calls(emu), body(Message=None, AudioUrl="https://cdn.example.com/a/greeting.MP3?v=2"))
    assert (created["Message"], created["AudioUrl"]) == (None, "https://cdn.example.com/a/greeting.MP3?v=2")
    assert (created["Execute"], created["Schedules"], created["CampaignId"]) == (False, [], None)
    assert (created["ContactListIds"], created["ExcludeListIds"], created["TargetsUrl"]) == ([], [], None)


def test_schedules_added_later_show_on_the_action(emu):
    created = emu.created(calls(emu), body())
    schedule = emu.created(emu.at(f"/action/{created['Id']}/schedule"), DAILY)
    assert emu.api("GET", f"{calls(emu)}/{created['Id']}").json()["Schedules"] == [schedule]


@pytest.mark.parametrize(
    ("fields", "code", "prop"),
    [
        ({"Channels": None}, PROPERTY_REQUIRED, "Channels"),
        ({"Channels": []}, PROPERTY_REQUIRED, "Channels"),
        ({"Channels": "22"}, PROPERTY_INVALID_VALUE, "Channels"),
        ({"Channels": ["short code"]}, PROPERTY_INVALID_VALUE, "Channels"),
        ({"Targets": ["555-0100"]}, PROPERTY_INVALID_VALUE, "Targets"),
        ({"Targets": None}, PROPERTY_REQUIRED, "Targets"),
        ({"Targets": []}, PROPERTY_REQUIRED, "Targets"),
        ({"ExcludeListIds": [0]}, PROPERTY_INVALID_VALUE, "ExcludeListIds"),
        ({"TargetsUrl": "ftp://example.com/t.csv"}, PROPERTY_INVALID_VALUE, "TargetsUrl"),
        ({"Message": None}, PROPERTY_REQUIRED, "Message"),
        ({"Message": "  "}, PROPERTY_REQUIRED, "Message"),
        ({"AudioUrl": "https://example.com/a.mp3"}, PROPERTY_INVALID_VALUE, "Message"),
        ({"Message": None, "AudioUrl": "https://example.com/a.ogg"}, PROPERTY_INVALID_VALUE, "AudioUrl"),
        ({"Message": None, "AudioUrl": "file:///a.wav"}, PROPERTY_INVALID_VALUE, "AudioUrl"),
        ({"CampaignId": 424242}, PROPERTY_INVALID_VALUE, "CampaignId"),
        ({"Execute": "yes"}, PROPERTY_INVALID_VALUE, "Execute"),
        ({"Schedules": {"RunAt": "09:00:00"}}, PROPERTY_INVALID_VALUE, "Schedules"),
        ({"Schedules": [DAILY, "daily"]}, PROPERTY_INVALID_VALUE, "Schedules"),
        ({"Schedules": [DAILY, {**DAILY, "RunAt": "9am"}]}, PROPERTY_INVALID_VALUE, "Schedules[1].RunAt"),
        ({"Schedules": [{**DAILY, "ScheduleTypeId": 7}]}, PROPERTY_REQUIRED, "Schedules[0].WeekDay"),
    ],
)
@DEPARTS
def test_validation(emu, fields, code, prop):
    response = emu.api("POST", calls(emu), json=body(**fields))
    assert response.status_code == 400, response.text
    [error] = response.json()
    expected_type = "ActionSchedule" if prop.startswith("Schedules[") else "ActionPushVoiceCall"
    assert (error["ErrorCodeId"], error["PropertyName"], error["ObjectType"]) == (code, prop, expected_type)
    assert emu.api("GET", calls(emu)).status_code == 204


@pytest.mark.parametrize(
    ("fields", "prop", "stored"),
    [
        ({"Targets": [6001]}, "Targets[0]", ("Targets", ["6001"])),
        ({"ContactListIds": ["4001"]}, "ContactListIds[0]", ("ContactListIds", [4001])),
        ({"Channels": [23]}, "Channels[0]", ("Channels", ["23"])),
        ({"Execute": "true"}, "Execute", ("Execute", True)),
    ],
)
@DEPARTS
def test_values_the_platform_converts_are_taken_recorded_and_refused_when_strict(emu, strict_emu, fields, prop, stored):
    created = emu.created(calls(emu), body(**fields))
    assert created[stored[0]] == stored[1]
    assert emu.violations() == [(f"/api/v2.1{calls(emu)}", prop, "type-conversion")]
    refused = strict_emu.api("POST", calls(strict_emu), json=body(**fields))
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, prop, "ActionPushVoiceCall")


# -- what the call refers to is the account's ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "prop", "says"),
    [
        ({"Channels": ["15125550100"]}, "Channels", "(a long code is written in E.164 form, +15125550100)"),
        ({"Channels": ["+15125550999"]}, "Channels", "has no channel +15125550999"),
        ({"Channels": ["+15125550100", "424242"]}, "Channels", "Channels[1]: account 1001 has no channel 424242"),
        ({"Channels": ["22"]}, "Channels", "channel 22 is the short code 55222"),
        ({"Channels": ["55222"]}, "Channels", "a voice call is placed from a long code"),
        ({"ContactListIds": [4999]}, "ContactListIds", "has no contact list 4999"),
        ({"ExcludeListIds": [4001, 4998]}, "ExcludeListIds", "ExcludeListIds[1]: account 1001 has no contact list"),
    ],
)
def test_a_channel_or_list_the_account_does_not_have_is_refused(emu, fields, prop, says):
    response = emu.api("POST", calls(emu), json=body(**fields))
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, prop, "ActionPushVoiceCall")
    assert says in response.json()[0]["ErrorMessage"]
    assert emu.api("GET", calls(emu)).status_code == 204


def test_another_accounts_long_code_list_and_campaign_are_refused(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    theirs = emu.ok("POST", "/channels", json={"code": "+15125550177", "account_id": other["account_id"]})
    assert theirs == {"channel_id": 24, "account_id": other["account_id"], "code": "+15125550177", "long_code": True}
    their_call = {**body(), "Channels": ["+15125550177"]}
    their_url = f"{emu.server.base_url}/account/{other['account_id']}/action-pushvoicecall"
    made = requests.post(their_url, json=their_call, auth=(other["api_key"], other["api_secret"]), timeout=10)
    assert made.status_code == 201  # their own long code places their call
    for channel in ("+15125550177", "24"):
        assert emu.error(emu.api("POST", calls(emu), json=body(Channels=[channel])))[1] == "Channels"
    their_campaign = requests.post(
        f"{emu.server.base_url}/account/{other['account_id']}/campaign",
        json={"Name": "Theirs", "CampaignTypeId": 1},
        auth=(other["api_key"], other["api_secret"]),
        timeout=10,
    ).json()
    assert emu.error(emu.api("POST", calls(emu), json=body(CampaignId=their_campaign["Id"])))[1] == "CampaignId"


def test_a_long_code_added_to_the_account_places_calls(emu):
    assert emu.error(emu.api("POST", calls(emu), json=body(Channels=["+15125550101"])))[1] == "Channels"
    emu.ok("POST", "/channels", json={"code": "+15125550101"})
    assert emu.created(calls(emu), body(Channels=["+15125550101"]))["Channels"] == ["+15125550101"]


@DEPARTS
def test_target_message_names_the_three_sources(emu):
    response = emu.api("POST", calls(emu), json=body(Targets=None))
    message = response.json()[0]["ErrorMessage"]
    assert all(name in message for name in ("Targets", "ContactListIds", "TargetsUrl"))


def test_delete_aborts_open_schedules_and_removes_the_action(emu):
    emu.ok("POST", "/clock", json={"scale": 0})
    created = emu.created(calls(emu), body(Schedules=[ONE_TIME, DAILY]))
    done, daily = created["Schedules"]
    emu.ok("POST", "/clock", json={"advance_seconds": 5})  # the one-time run completes
    pending = emu.created(emu.at(f"/action/{created['Id']}/schedule"), ONE_TIME)

    url = f"{calls(emu)}/{created['Id']}"
    response = emu.api("DELETE", url)
    assert response.status_code == 200
    stopped = response.json()
    assert (stopped["Id"], stopped["StatusId"]) == (created["Id"], 2)
    statuses = {s["Id"]: s["ProcessStatus"] for s in stopped["Schedules"]}
    assert statuses == {done["Id"]: "Completed", daily["Id"]: "Aborted", pending["Id"]: "Aborted"}
    aborted = next(s for s in stopped["Schedules"] if s["Id"] == pending["Id"])
    assert [log["Message"] for log in aborted["Logs"]] == ["Run aborted by user."]

    assert emu.error(emu.api("GET", url), 404)[2] == "Action"
    assert emu.api("GET", calls(emu)).status_code == 204
    assert emu.error(emu.api("GET", emu.at(f"/action/{created['Id']}/schedule")), 404)[2] == "Action"
    assert emu.api("GET", emu.at(f"/action/{created['Id']}/schedule/{daily['Id']}")).status_code == 404
    assert emu.api("POST", emu.at(f"/action/{created['Id']}/schedule"), json=DAILY).status_code == 404
    assert emu.api("DELETE", url).status_code == 404
    emu.ok("POST", "/clock", json={"advance_seconds": 3600})
    assert emu.control("POST", f"/schedules/{daily['Id']}/abort").status_code == 409  # stays aborted


def test_other_actions_are_not_voice_calls(emu):
    assert emu.error(emu.api("GET", f"{calls(emu)}/{emu.action}"), 404)[2] == "Action"
    assert emu.api("DELETE", f"{calls(emu)}/{emu.action}").status_code == 404
    assert emu.api("GET", f"{calls(emu)}/not-a-number").status_code == 404
    assert emu.api("GET", emu.schedules).status_code == 204  # the seeded action is untouched
