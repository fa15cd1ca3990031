"""The value conversions at their edges: date-times, times of day, time zones and string lists, values written out."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.client.bodies import CampaignFields, PushVoiceCallFields
from messaging_platform_provider.client.fields import extra_fields, pascal, to_wire
from messaging_platform_provider.client.values import (
    a_list,
    int_list,
    month_days,
    parse_iso_datetime,
    platform_datetime,
    run_at,
    spelled_collection,
    string_list,
    to_datetime,
    week_days,
    zone,
)

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


def test_a_date_with_the_utc_designator_is_midnight_of_that_day_on_a_utc_platform():
    """An xs:date in UTC ("2024-03-01Z") is a date-time: midnight, UTC."""
    assert platform_datetime("2024-03-01Z", "ValidFrom", "UTC") == datetime(2024, 3, 1, 0, 0, 0)


@pytest.mark.parametrize(
    "text, platform_zone, expected",
    [
        ("2026-12-01+02:00", "UTC", datetime(2026, 11, 30, 22, 0, 0)),
        ("2026-12-01-05:00", "UTC", datetime(2026, 12, 1, 5, 0, 0)),
        ("2026-12-01+0200", "UTC", datetime(2026, 11, 30, 22, 0, 0)),
        ("2026-12-01+02", "UTC", datetime(2026, 11, 30, 22, 0, 0)),
        ("2026-12-01-0530", "UTC", datetime(2026, 12, 1, 5, 30, 0)),
        ("2026-12-01+10:00:00", "UTC", datetime(2026, 11, 30, 14, 0, 0)),
        ("2026-12-01+02:00:30", "UTC", datetime(2026, 11, 30, 21, 59, 30)),
        ("2026-12-01-05:00", "America/Chicago", datetime(2026, 11, 30, 23, 0, 0)),
        ("2026-12-01Z", "America/Chicago", datetime(2026, 11, 30, 18, 0, 0)),
    ],
)
def test_a_date_with_an_offset_is_midnight_at_that_offset_never_the_offset_read_as_a_time(
    text, platform_zone, expected
):
    """Python's reader takes any character between date and time: "+02:00" was read as two o'clock."""
    assert platform_datetime(text, "ValidFrom", platform_zone) == expected


@pytest.mark.parametrize("text", ["2026-12-01+2", "2026-12-01+02:0", "2026-12-01-", "2026-12-01Z+02:00"])
def test_a_date_followed_by_something_that_is_no_offset_is_refused(text):
    with pytest.raises(MessagingPlatformValidationError, match=r"^ValidFrom: .* is not a date-time"):
        to_datetime(text, "ValidFrom")
    with pytest.raises(ValueError) as caught:  # the callback sensor's received_after meets this message
        parse_iso_datetime(text)
    assert str(caught.value) == f"{text!r} has neither a time of day nor a UTC offset after its date"


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


# -- the shape of a rendered value (issue 36): text where a list or a mapping belongs, a number for a phone ----------

#: What a template renders a list param to, without native rendering.
NUMBERS_AS_TEXT = "['+15550100001', '+15550100002']"


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (NUMBERS_AS_TEXT, "a list"),
        (' ["A1", "B2"] ', "a list"),  # JSON, padded
        ("('A1',)", "a list"),
        ("{'Text': 'hi'}", "a mapping"),
        ('{"Active": true}', "a mapping"),  # JSON only
        ("+15125550100", None),
        ("[SPRING]", None),  # a code in brackets is no list
        ("MON, THU", None),
        ("", None),
    ],
)
def test_the_text_of_a_list_or_a_mapping_is_told_from_other_text(text, kind):
    assert spelled_collection(text) == kind


def test_a_list_field_given_the_text_of_a_list_is_refused_with_the_fix():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        string_list("targets", NUMBERS_AS_TEXT, phones=True)
    assert str(caught.value) == (
        "targets: must be a list, got the text of a list, \"['+15550100001', '+15550100002']\": pass a list or an "
        "upstream task's output (an XComArg); a Jinja template renders to text unless the DAG sets "
        "render_template_as_native_obj=True"
    )
    for convert, value in ((int_list, "[4001, 4002]"), (week_days, "['MON', 'THU']"), (month_days, "[1, 15]")):
        with pytest.raises(MessagingPlatformValidationError, match="got the text of a list"):
            convert("f", value) if convert is int_list else convert(value, "f")


@pytest.mark.parametrize("value", ["A1,B2", {"codes": ["A1"]}, 7, b"A1"])
def test_where_only_a_list_goes_text_a_mapping_or_one_value_is_refused(value):
    with pytest.raises(MessagingPlatformValidationError, match="^coupon_codes: must be a list of codes, got "):
        a_list("coupon_codes", value, "a list of codes")
    assert a_list("coupon_codes", ("A1", "B2"), "a list of codes") == ["A1", "B2"]


@pytest.mark.parametrize("text", ["{'Text': 'hi'}", "https://example.com/hook?token=s3cret"])
def test_a_mapping_field_given_text_is_refused_without_repeating_it(text):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        to_wire(CampaignFields, {"content": text})
    message = str(caught.value)
    assert message.startswith("content: must be a mapping (a dict), got the text")
    assert "render_template_as_native_obj=True" in message and text not in message  # a URL's token is not repeated
    with pytest.raises(MessagingPlatformValidationError, match="^extra: must be a mapping"):
        extra_fields(text)
    assert extra_fields(None) == extra_fields("") == {} and extra_fields({"A": 1}) == {"A": 1}


@pytest.mark.parametrize("key", ["subscription_id", "content_id", "single_use_content_id"])
def test_a_number_field_given_text_is_refused(key):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        to_wire(CampaignFields, {key: "[3]"})
    assert str(caught.value) == f"{key}: must be a positive integer, got '[3]'"
    assert to_wire(CampaignFields, {key: "3"}) == {pascal(key): 3}  # a rendered template's digits are the number


def test_a_phone_field_given_a_number_is_refused_naming_its_place_and_the_fix():
    with pytest.raises(MessagingPlatformValidationError) as caught:
        string_list("channels", ["+15125550100", 15125550100], phones=True)
    assert caught.value.field == "channels[1]"
    assert str(caught.value) == (
        "channels[1]: got the number 15125550100 where text belongs (a phone number or long code such as "
        "'+15125550100', or an id as text, '15125550100'): with render_template_as_native_obj=True, Airflow reads "
        "every text of a templated field as a Python literal, so '+15125550100' (a template's or written out) gives "
        "15125550100, without its +; keep it text: write it in quotes inside the text, \"'+15125550100'\" or "
        '"\'{{ params.long_code }}\'", or write "{{ params.long_code | tojson }}" (neither | string nor a Param of '
        "type string keeps it text)"
    )
    with pytest.raises(MessagingPlatformValidationError, match="^channels: got the number 15125550100 "):
        string_list("channels", 15125550100, phones=True)  # one value, as "{{ params.from_long_code }}" renders
    with pytest.raises(MessagingPlatformValidationError, match=r"^targets\[0\]: must be text .*, got bool True"):
        string_list("targets", [True], phones=True)
    assert string_list("targets", ["+15550100001", "6001"], phones=True) == ["+15550100001", "6001"]
    assert string_list("codes", [12345]) == ["12345"]  # only phone fields refuse a number


def test_a_voice_call_refuses_a_number_in_channels_and_targets():
    for values, field in (
        ({"channels": [15125550100], "targets": ["+15550100001"]}, "channels[0]"),
        ({"channels": ["+15125550100"], "targets": ["+15550100001", 15550100002]}, "targets[1]"),
    ):
        with pytest.raises(MessagingPlatformValidationError) as caught:
            to_wire(PushVoiceCallFields, {**values, "message": "Hi"})
        assert caught.value.field == field
