"""The value conversions at their edges: date-times, times of day, time zones and string lists, values written out."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.client.values import platform_datetime, run_at, string_list, to_datetime, zone

# -- to_datetime -------------------------------------------------------------------------------------------------------


def test_a_date_is_taken_as_midnight_of_that_day():
    moment = to_datetime(date(2024, 3, 9), "ValidFrom")
    assert type(moment) is datetime
    assert moment == datetime(2024, 3, 9, 0, 0, 0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-03-01T10:00:00Z", datetime(2024, 3, 1, 10, 0, 0, tzinfo=timezone.utc)),  # "Z" is UTC
        (" 2024-03-01T10:00:00+02:00 ", datetime(2024, 3, 1, 10, 0, 0, tzinfo=timezone(timedelta(hours=2)))),
        ("2024-03-01T10:00:00", datetime(2024, 3, 1, 10, 0, 0)),
    ],
    ids=["zulu", "offset", "naive"],
)
def test_iso_text_is_read_with_its_offset(text, expected):
    moment = to_datetime(text, "ValidFrom")
    assert moment == expected
    assert moment.utcoffset() == expected.utcoffset()


def test_a_lowercase_z_is_not_taken_for_utc():
    """ISO 8601 writes the UTC designator as "Z"; a lowercase "z" is refused, not guessed at."""
    with pytest.raises(MessagingPlatformValidationError) as caught:
        to_datetime("2024-03-01T10:00:00z", "ValidFrom")
    assert str(caught.value) == (
        "ValidFrom: '2024-03-01T10:00:00z' is not a date-time; "
        "give a datetime, a pendulum DateTime or an ISO 8601 string"
    )


# -- platform_datetime -------------------------------------------------------------------------------------------------


def test_the_platform_zone_defaults_to_utc():
    assert platform_datetime("2024-03-01T10:00:00+02:00", "ValidFrom") == datetime(2024, 3, 1, 8, 0, 0)
    assert platform_datetime(datetime(2024, 7, 1, 23, 30, tzinfo=ZoneInfo("Europe/Berlin")), "ValidTo") == datetime(
        2024, 7, 1, 21, 30, 0
    )


def test_minutes_and_seconds_are_kept_and_microseconds_dropped():
    berlin = ZoneInfo("Europe/Berlin")
    moment = datetime(2024, 3, 1, 10, 17, 42, 123456, tzinfo=berlin)
    sent = platform_datetime(moment, "ValidTo", "America/New_York")
    assert sent == datetime(2024, 3, 1, 4, 17, 42)
    assert sent.tzinfo is None
    assert sent.microsecond == 0


def test_a_naive_value_is_kept_to_the_second():
    assert platform_datetime("2024-03-01T10:17:42.987", "ValidFrom", "Europe/Berlin") == datetime(
        2024, 3, 1, 10, 17, 42
    )


# -- run_at ------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (time(9, 5, 7), "09:05:07"),
        (time(23, 59, 58, 999999), "23:59:58"),
        (time(0, 0, 0), "00:00:00"),
        (" 09:30:00 ", "09:30:00"),
    ],
    ids=["time", "time-late", "time-midnight", "text"],
)
def test_run_at_is_sent_as_hh_mm_ss(value, expected):
    assert run_at(value, "RunAt") == expected


# -- zone --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [None, ""])
def test_no_zone_name_means_utc(name):
    assert zone(name).key == "UTC"
    assert zone(name) == ZoneInfo("UTC")


def test_a_named_zone_is_looked_up():
    assert zone("Europe/Berlin").key == "Europe/Berlin"


# -- string_list -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("SPRING24", ["SPRING24"]),  # one string is one item, not a list of characters
        (" sms ", ["sms"]),
        (["b", "a", "b"], ["b", "a"]),
    ],
    ids=["one-string", "one-string-padded", "list"],
)
def test_string_list_items(value, expected):
    assert string_list("Channels", value) == expected


def test_a_code_of_exactly_the_maximum_length_is_accepted():
    assert string_list("CouponCodes", ["ABCD", "XYZ"], max_length=4) == ["ABCD", "XYZ"]
    assert string_list("CouponCodes", "ABCD", max_length=4) == ["ABCD"]


def test_a_code_one_past_the_maximum_length_is_refused():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        string_list("CouponCodes", ["ABCD", "ABCDE"], max_length=4)
    assert str(caught.value) == "CouponCodes: 'ABCDE'… is longer than 4 characters"
