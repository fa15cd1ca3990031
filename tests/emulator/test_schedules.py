"""Action schedule CRUD and validation."""

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
    "Created",
    "Modified",
    "CreatedBy",
    "ModifiedBy",
    "AccountId",
    "ActionId",
    "ScheduleTypeId",
    "ScheduleType",
    "RunAt",
    "StartFrom",
    "EndAfter",
    "WeekDay",
    "MonthDay",
    "ProcessStatus",
    "Logs",
}


def test_empty_list_is_204(emu):
    response = emu.api("GET", emu.schedules)
    assert (response.status_code, response.content) == (204, b"")


def test_create_one_time_schedule(emu):
    created = emu.create_schedule(EndAfter="2026-12-02T00:00:00")
    assert set(created) == FIELDS
    assert (created["AccountId"], created["ActionId"]) == (emu.account, emu.action)
    assert (created["ScheduleTypeId"], created["ScheduleType"]) == (2, "OneTime")
    assert (created["RunAt"], created["StartFrom"], created["EndAfter"]) == (
        "17:30:00",
        "2026-12-01T17:30:00",
        "2026-12-02T00:00:00",
    )
    assert (created["WeekDay"], created["MonthDay"]) == ("*", "*")
    assert (created["ProcessStatus"], created["Logs"]) == ("Pending", None)


#: Timestamps the platform's reader takes although the API reference gives them without an offset, in extended form:
#: each is converted to UTC (the platform's time) and recorded as a violation; refused in strict mode.
READ_AS_THE_PLATFORM_READS = [
    ("StartFrom", "2026-12-01T18:30:00+01:00", "2026-12-01T17:30:00", "date-time-offset"),
    ("StartFrom", "2026-12-01T17:30:00Z", "2026-12-01T17:30:00", "date-time-offset"),
    ("StartFrom", "2026-12-01T00:00:00.000Z", "2026-12-01T00:00:00", "date-time-offset"),  # a JavaScript Date
    ("StartFrom", "2026-12-01T12:30:00.123-05:00", "2026-12-01T17:30:00", "date-time-offset"),
    ("StartFrom", "2026-12-02T01:00:00+02:00", "2026-12-01T23:00:00", "date-time-offset"),
    ("EndAfter", "2026-12-02T00:00:00+0000", "2026-12-02T00:00:00", "date-time-offset"),
    ("StartFrom", "2026-12-01", "2026-12-01T00:00:00", "date-time-form"),
    ("StartFrom", "2026-12-01 17:30:00", "2026-12-01T17:30:00", "date-time-form"),
    ("StartFrom", " 2026-12-01T17:30:00", "2026-12-01T17:30:00", "date-time-form"),
]


@pytest.mark.parametrize(("name", "value", "stored", "rule"), READ_AS_THE_PLATFORM_READS)
@DEPARTS
def test_a_timestamp_the_platform_reads_is_converted_and_recorded(emu, name, value, stored, rule):
    created = emu.create_schedule(**{name: value})
    assert created[name] == stored
    assert emu.api("GET", f"{emu.schedules}/{created['Id']}").json()[name] == stored
    assert emu.violations() == [(f"/api/v2.1{emu.schedules}", name, rule)]


@pytest.mark.parametrize(("name", "value", "stored", "rule"), READ_AS_THE_PLATFORM_READS)
def test_a_timestamp_the_platform_reads_is_refused_when_strict(strict_emu, name, value, stored, rule):
    response = strict_emu.api("POST", strict_emu.schedules, json=strict_emu.schedule_body(**{name: value}))
    assert strict_emu.error(response) == (PROPERTY_INVALID_VALUE, name, "ActionSchedule")
    assert "without a zone offset" in response.json()[0]["ErrorMessage"]
    assert strict_emu.api("GET", strict_emu.schedules).status_code == 204
    assert [(v["property"], v["rule"], v["status"]) for v in strict_emu.server.control.violations()] == [
        (name, rule, 400)
    ]


@pytest.mark.parametrize("value", ["20261201T173000", "2026-12-01T17:30:00+25:00", "2026-13-01T00:00:00", "12/01/2026"])
def test_a_timestamp_the_platform_does_not_read_is_refused(emu, value):
    response = emu.api("POST", emu.schedules, json=emu.schedule_body(StartFrom=value))
    assert emu.error(response) == (PROPERTY_INVALID_VALUE, "StartFrom", "ActionSchedule")
    assert emu.violations() == []


@pytest.mark.parametrize(
    ("fields", "name", "week_day", "month_day"),
    [
        ({"ScheduleTypeId": 6}, "Daily", "*", "*"),
        ({"ScheduleTypeId": 7, "WeekDay": "MON, WED,FRI"}, "Weekly", "MON, WED,FRI", "*"),
        ({"ScheduleTypeId": 8, "MonthDay": "1, 15,31"}, "Monthly", "*", "1, 15,31"),
    ],
)
def test_create_recurring_schedules(emu, fields, name, week_day, month_day):
    created = emu.create_schedule(**fields)
    assert (created["ScheduleType"], created["WeekDay"], created["MonthDay"]) == (name, week_day, month_day)
    assert created["ProcessStatus"] == "Pending"


def test_get_list_put_delete(emu):
    first = emu.create_schedule()
    second = emu.create_schedule(ScheduleTypeId=7, WeekDay="SUN")
    url = f"{emu.schedules}/{second['Id']}"
    assert emu.api("GET", url).json()["WeekDay"] == "SUN"
    assert [s["Id"] for s in emu.api("GET", emu.schedules).json()] == [first["Id"], second["Id"]]

    replaced = emu.api("PUT", url, json=emu.schedule_body(ScheduleTypeId=6, RunAt="08:00:00"))
    assert replaced.status_code == 200
    body = replaced.json()
    assert (body["ScheduleType"], body["RunAt"], body["WeekDay"], body["Id"]) == (
        "Daily",
        "08:00:00",
        "*",
        second["Id"],
    )
    assert emu.api("GET", url).json()["RunAt"] == "08:00:00"

    deleted = emu.api("DELETE", url)
    assert (deleted.status_code, deleted.json()["Id"]) == (200, second["Id"])
    assert emu.api("GET", url).status_code == 404
    assert emu.api("DELETE", url).status_code == 404
    assert [s["Id"] for s in emu.api("GET", emu.schedules).json()] == [first["Id"]]


def test_unknown_action_or_schedule_is_404(emu):
    response = emu.api("GET", f"/account/{emu.account}/action/999/schedule")
    assert (response.status_code, response.json()[0]["ObjectType"]) == (404, "Action")
    response = emu.api("POST", f"/account/{emu.account}/action/999/schedule", json=emu.schedule_body())
    assert response.status_code == 404
    response = emu.api("GET", f"{emu.schedules}/999")
    assert (response.status_code, response.json()[0]["ObjectType"]) == (404, "ActionSchedule")
    response = emu.api("PUT", f"{emu.schedules}/999", json=emu.schedule_body())
    assert response.status_code == 404


def test_other_accounts_action_is_404(emu):
    other = emu.ok("POST", "/accounts", json={"name": "Other"})
    response = emu.api("GET", f"/account/{emu.account}/action/{other['action_id']}/schedule")
    assert (response.status_code, response.json()[0]["ObjectType"]) == (404, "Action")


@pytest.mark.parametrize(
    ("fields", "code", "prop"),
    [
        ({"ScheduleTypeId": None}, PROPERTY_REQUIRED, "ScheduleTypeId"),
        ({"ScheduleTypeId": 1}, PROPERTY_INVALID_VALUE, "ScheduleTypeId"),
        ({"ScheduleTypeId": 9}, PROPERTY_INVALID_VALUE, "ScheduleTypeId"),
        ({"ScheduleTypeId": "Daily"}, PROPERTY_INVALID_VALUE, "ScheduleTypeId"),
        ({"RunAt": None}, PROPERTY_REQUIRED, "RunAt"),
        ({"RunAt": "24:00:00"}, PROPERTY_INVALID_VALUE, "RunAt"),
        ({"RunAt": "17:30"}, PROPERTY_INVALID_VALUE, "RunAt"),
        ({"StartFrom": None}, PROPERTY_REQUIRED, "StartFrom"),
        ({"StartFrom": "next tuesday"}, PROPERTY_INVALID_VALUE, "StartFrom"),
        ({"EndAfter": "2026-11-30T00:00:00"}, PROPERTY_INVALID_VALUE, "EndAfter"),
        ({"EndAfter": "soon"}, PROPERTY_INVALID_VALUE, "EndAfter"),
        ({"ScheduleTypeId": 7}, PROPERTY_REQUIRED, "WeekDay"),
        ({"ScheduleTypeId": 7, "WeekDay": ""}, PROPERTY_REQUIRED, "WeekDay"),
        ({"ScheduleTypeId": 7, "WeekDay": "MON,FUN"}, PROPERTY_INVALID_VALUE, "WeekDay"),
        ({"ScheduleTypeId": 7, "WeekDay": "MON,"}, PROPERTY_INVALID_VALUE, "WeekDay"),
        ({"ScheduleTypeId": 8}, PROPERTY_REQUIRED, "MonthDay"),
        ({"ScheduleTypeId": 8, "MonthDay": "0"}, PROPERTY_INVALID_VALUE, "MonthDay"),
        ({"ScheduleTypeId": 8, "MonthDay": "1,32"}, PROPERTY_INVALID_VALUE, "MonthDay"),
        ({"ScheduleTypeId": 8, "MonthDay": "first"}, PROPERTY_INVALID_VALUE, "MonthDay"),
        ({"ScheduleTypeId": 6.0}, PROPERTY_INVALID_VALUE, "ScheduleTypeId"),
    ],
)
@DEPARTS
def test_validation_errors_name_the_property(emu, fields, code, prop):
    response = emu.api("POST", emu.schedules, json=emu.schedule_body(**fields))
    assert response.status_code == 400, response.text
    [error] = response.json()
    assert (error["ErrorCodeId"], error["PropertyName"], error["ObjectType"]) == (code, prop, "ActionSchedule")
    assert emu.api("GET", emu.schedules).status_code == 204


@pytest.mark.parametrize(
    ("fields", "prop", "rule"),
    [
        ({"ScheduleTypeId": 6, "WeekDay": 1}, "WeekDay", "type-conversion"),
        ({"ScheduleTypeId": 7, "WeekDay": "MON", "MonthDay": 15}, "MonthDay", "type-conversion"),
        ({"RunAt": None, "runAt": "17:30:00"}, "RunAt", "property-case"),
        ({"ScheduleTypeId": "6"}, "ScheduleTypeId", "type-conversion"),
    ],
)
@DEPARTS
def test_what_the_platform_reads_is_taken_recorded_and_refused_when_strict(emu, strict_emu, fields, prop, rule):
    emu.create_schedule(**fields)
    assert emu.violations() == [(f"/api/v2.1{emu.schedules}", prop, rule)]
    refused = strict_emu.api("POST", strict_emu.schedules, json=strict_emu.schedule_body(**fields))
    assert strict_emu.error(refused) == (PROPERTY_INVALID_VALUE, prop, "ActionSchedule")


def test_schedule_type_message_lists_allowed_values(emu):
    response = emu.api("POST", emu.schedules, json=emu.schedule_body(ScheduleTypeId=1))
    message = response.json()[0]["ErrorMessage"]
    for allowed in ("2 (OneTime)", "6 (Daily)", "7 (Weekly)", "8 (Monthly)"):
        assert allowed in message


@DEPARTS
def test_every_problem_is_reported_at_once(emu):
    response = emu.api("POST", emu.schedules, json={"RunAt": "bad"})
    assert sorted(e["PropertyName"] for e in response.json()) == ["RunAt", "ScheduleTypeId", "StartFrom"]


@DEPARTS
def test_put_is_validated_like_post(emu):
    created = emu.create_schedule()
    url = f"{emu.schedules}/{created['Id']}"
    response = emu.api("PUT", url, json=emu.schedule_body(ScheduleTypeId=8))
    assert (response.status_code, response.json()[0]["PropertyName"]) == (400, "MonthDay")
    assert emu.api("GET", url).json()["ScheduleTypeId"] == 2
