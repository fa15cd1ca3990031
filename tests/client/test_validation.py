"""Bad input fails before any request, naming the field and the allowed values."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pendulum
import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.client.schedules import schedule_body, schedule_list
from messaging_platform_provider.client.values import comparable, http_url, int_list, month_days, positive_int
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook


@pytest.mark.parametrize(
    ("kwargs", "field", "hint"),
    [
        ({"schedule_type": "Hourly"}, "schedule_type", "OneTime (2), Daily (6), Weekly (7), Monthly (8)"),
        ({"schedule_type": 3}, "schedule_type", "Weekly (7)"),
        ({"run_at": "9:30"}, "run_at", "HH:mm:ss"),
        ({"run_at": "24:00:00"}, "run_at", "HH:mm:ss"),
        ({"schedule_type": "Weekly"}, "week_day", "SUN, MON, TUE, WED, THU, FRI, SAT"),
        ({"schedule_type": "Weekly", "week_day": "MON, FUNDAY"}, "week_day", "SUN, MON"),
        ({"schedule_type": "Monthly"}, "month_day", "1..31"),
        ({"schedule_type": "Monthly", "month_day": "0"}, "month_day", "1..31"),
        ({"week_day": "MON"}, "week_day", "only for a Weekly"),
        ({"start_from": "next tuesday"}, "start_from", "ISO 8601"),
        ({"end_after": "2026-11-30T00:00:00"}, "end_after", "before start_from"),
    ],
)
def test_schedule_input_errors_name_the_field(platform, kwargs, field, hint):
    args = {"schedule_type": "Daily", "run_at": "09:30:00", "start_from": "2026-12-01T00:00:00", **kwargs}
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().create_schedule(platform.seed.action_id, **args)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}:") and hint in str(caught.value)
    assert platform.control.requests() == []  # nothing was sent


def test_schedule_body_accepts_names_numbers_and_zone_aware_dates():
    berlin = pendulum.datetime(2026, 7, 1, 12, 0, tz="Europe/Berlin")
    body = schedule_body(
        "monthly", "06:00:00", berlin, end_after=datetime(2026, 8, 1, tzinfo=timezone.utc), month_day=[15, 1, 15]
    )
    assert body == {
        "ScheduleTypeId": 8,
        "RunAt": "06:00:00",
        "StartFrom": "2026-07-01T10:00:00",
        "EndAfter": "2026-08-01T00:00:00",
        "MonthDay": "15,1",
    }
    assert (
        schedule_body(2, "06:00:00", "2026-07-01T12:00:00+02:00", platform_timezone="America/New_York")["StartFrom"]
        == "2026-07-01T06:00:00"
    )
    assert schedule_body("OneTime", "06:00:00", "2026-07-01T12:00:00")["StartFrom"] == "2026-07-01T12:00:00"


#: Every hook method that takes ``extra``, each called with what it needs besides.
WITH_EXTRA = {
    "create_campaign": lambda h, extra: h.create_campaign("N", "Basic", extra=extra),
    "update_campaign": lambda h, extra: h.update_campaign(3001, name="N", extra=extra),
    "create_coupon_definition": lambda h, extra: h.create_coupon_definition(3001, "Dynamic", extra=extra),
    "update_coupon_definition": lambda h, extra: h.update_coupon_definition(3001, "Dynamic", extra=extra),
    "create_api_key": lambda h, extra: h.create_api_key("L", extra=extra),
    "create_push_voice_call": lambda h, extra: h.create_push_voice_call(
        ["+15125550100"], targets=["+15550100001"], message="Hi", extra=extra
    ),
    "create_schedule": lambda h, extra: h.create_schedule(5001, "Daily", "09:00:00", "2026-12-01", extra=extra),
    "update_schedule": lambda h, extra: h.update_schedule(5001, 7001, "Daily", "09:00:00", "2026-12-01", extra=extra),
    "create_external_coupon_list": lambda h, extra: h.create_external_coupon_list("N", extra=extra),
    "update_external_coupon_list": lambda h, extra: h.update_external_coupon_list(2001, name="N", extra=extra),
    "create_callback": lambda h, extra: h.create_callback("Dialog", "https://example.com/cb", extra=extra),
    "update_filter_group": lambda h, extra: h.update_filter_group(4001, 4101, operator="AND", extra=extra),
}


@pytest.mark.parametrize("name", list(WITH_EXTRA))
def test_extra_given_text_is_refused_before_sending(platform, name):
    """``extra="{{ params.extra }}"`` renders to the text of a dict, unless the DAG renders native objects."""
    with pytest.raises(MessagingPlatformValidationError) as caught:
        WITH_EXTRA[name](MessagingPlatformHook(), "{'IsDefault': True}")
    assert caught.value.field == "extra" and "render_template_as_native_obj=True" in str(caught.value)
    assert platform.control.requests() == []


def test_campaign_type_and_ids_are_checked_before_sending(platform):
    hook = MessagingPlatformHook()
    with pytest.raises(MessagingPlatformValidationError, match=r"campaign_type: 'Newsletter' is not valid"):
        hook.create_campaign(name="x", campaign_type="Newsletter")
    with pytest.raises(MessagingPlatformValidationError, match="campaign_id: must be a positive integer"):
        hook.get_campaign("12; DROP")  # type: ignore[arg-type]
    with pytest.raises(MessagingPlatformValidationError, match="name: must not be empty"):
        hook.create_campaign(name=" ", campaign_type="Basic")
    with pytest.raises(MessagingPlatformValidationError, match="at least one field"):
        hook.update_campaign(1)
    assert platform.control.requests() == []


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("12; DROP", "'12; DROP'"),
        ("x" * 38, "'" + "x" * 38 + "'"),  # 40 characters as written in the message: in full
        ("y" * 39, "'" + "y" * 29 + "… (41 characters)"),  # longer: the first 30, and the length
    ],
    ids=["short", "40", "41"],
)
def test_a_bad_id_is_quoted_in_the_message_and_a_long_one_cut(platform, value, shown):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().get_campaign(value)  # type: ignore[arg-type]
    assert str(caught.value) == f"campaign_id: must be a positive integer, got {shown}"
    assert platform.control.requests() == []


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"base_url": "http://127.0.0.1:1/api/v2"}, "must end with /api/v2.1"),
        ({"base_url": "127.0.0.1/api/v2.1"}, "not an absolute URL"),
        ({"base_url": ""}, "base_url: is not set"),
        ({"account_id": "abc"}, "account_id: 'abc' is not a positive integer"),
        ({"timezone": "Mars/Olympus"}, "timezone: 'Mars/Olympus' is not an IANA time zone name"),
        ({"read_timeout": "-1"}, "read_timeout"),
    ],
)
def test_bad_connection_settings_are_named(platform, monkeypatch, extra, message):
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(extra=extra))
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().list_campaigns()
    assert message in str(caught.value)
    assert platform.control.requests() == []


def test_missing_account_id_is_named(platform, monkeypatch):
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(extra={"account_id": None}))
    with pytest.raises(MessagingPlatformValidationError, match="account_id: is not set") as sync_error:
        MessagingPlatformHook().list_campaigns()
    assert MessagingPlatformHook().list_campaigns(account_id=platform.seed.account_id) == []

    async def read_async() -> None:
        hook = MessagingPlatformAsyncHook()
        try:
            await hook.call("list_campaigns")
        finally:
            await hook.aclose()

    with pytest.raises(MessagingPlatformValidationError) as async_error:
        asyncio.run(read_async())
    assert str(async_error.value) == str(sync_error.value)  # the deferrable path says the same
    with pytest.raises(MessagingPlatformValidationError) as stream_error:
        next(MessagingPlatformHook().stream_contacts())  # checked as the reading starts, before any request
    assert str(stream_error.value) == str(sync_error.value)  # and so does the read-ahead export
    assert [r["method"] for r in platform.control.requests()] == ["GET"]  # only the call that named its account


def test_base_url_given_as_a_full_host_is_accepted(platform, monkeypatch):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(host=platform.base_url + "/", extra={"base_url": None}),
    )
    assert MessagingPlatformHook().list_campaigns() == []


# -- the value checks at their edges, with the values written out ---------------------------------------------------


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (lambda v: month_days(v, "MonthDay"), 31, "31"),  # one day given as a number
        (lambda v: month_days(v, "MonthDay"), "1, 31, 1", "1,31"),
        (lambda v: positive_int("Field", v), 1, 1),
        (lambda v: positive_int("Field", v), " 7 ", 7),
        (lambda v: int_list("Field", v), 12, [12]),
        (lambda v: int_list("Field", v), "12", [12]),
        (lambda v: int_list("Field", v), [1, "2"], [1, 2]),
        (lambda v: http_url("Field", v), "http://example.com/hook", "http://example.com/hook"),
        (lambda v: http_url("Field", v), " https://example.com ", "https://example.com"),
    ],
    ids=["month-31", "month-list", "positive-1", "positive-text", "ints-one", "ints-text", "ints-list"]
    + ["http", "https"],
)
def test_values_at_the_edge_are_accepted(check, value, expected):
    assert check(value) == expected


@pytest.mark.parametrize(
    ("check", "value", "message"),
    [
        (lambda v: month_days(v, "MonthDay"), 32, "MonthDay: '32' is not a day of the month"),
        (lambda v: month_days(v, "MonthDay"), 0, "MonthDay: '0' is not a day of the month"),
        (lambda v: positive_int("Field", v), 0, "Field: must be a positive integer, got 0"),
        (lambda v: http_url("Field", v), None, "Field: is not an absolute http(s) URL"),
        (lambda v: http_url("Field", v), "ftp://example.com", "Field: is not an absolute http(s) URL"),
    ],
    ids=["month-32", "month-0", "positive-0", "url-none", "url-ftp"],
)
def test_values_past_the_edge_are_refused(check, value, message):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        check(value)
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("WeekDay", "mon, Tue", "MON,TUE"),  # as sent, and as the platform may answer it
        ("WeekDay", "MON,TUE", "MON,TUE"),
        ("MonthDay", "1, 15", "1,15"),
        ("WeekDay", "*", None),  # the platform's placeholder where the field does not apply
        ("MonthDay", "", None),
        ("Name", "", None),
        ("Name", "a b", "a b"),  # other fields exactly as they are
        ("Name", [], None),
    ],
)
def test_comparable_values_of_a_create_retry(field, value, expected):
    """How a retry matches a schedule it may have made: day lists unformatted, empty values as None."""
    assert comparable(field, value) == expected


def test_an_error_in_an_item_of_schedules_names_the_item_and_keeps_the_problem_and_the_allowed_values():
    daily = {"schedule_type": "Daily", "run_at": "09:00:00", "start_from": "2026-12-01"}
    with pytest.raises(MessagingPlatformValidationError) as raised:
        schedule_list("schedules", [daily, {**daily, "schedule_type": "Hourly"}], "UTC")
    error = raised.value
    assert (error.field, error.problem) == ("schedules[1].schedule_type", "'Hourly' is not valid")
    assert str(error) == (
        "schedules[1].schedule_type: 'Hourly' is not valid (allowed: OneTime (2), Daily (6), Weekly (7), Monthly (8))"
    )
