"""
A value of the wrong shape written in the DAG file (issue 36), refused when the operator is built: the error names
the parameter the user wrote and says exactly what it got, shown in full up to 60 characters and cut beyond, and how
to pass the right shape. The messages are the behaviour here, so they are written out in full.
"""

from __future__ import annotations

from typing import Any

import pytest

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.values import spelled_collection
from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
)

#: What follows a refusal of text where a list or a mapping belongs.
TEXT_FIX = (
    "or an upstream task's output (an XComArg); a Jinja template renders to text unless the DAG sets "
    "render_template_as_native_obj=True"
)
#: What follows a refusal of a value of another type (no template made it: no word of rendering).
VALUE_FIX = "or an upstream task's output (an XComArg)"
SCHEDULE = {"task_id": "t", "action_id": 5001, "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}
CAMPAIGN = {"task_id": "t", "name": "Spring", "campaign_type": "Basic"}
CALL = {"task_id": "t", "channels": ["+15125550100"]}


def refusal(build: Any) -> MessagingPlatformValidationError:
    """The error building the operator raises (its literal values are checked then)."""
    with pytest.raises(MessagingPlatformValidationError) as raised:
        build()
    return raised.value


# -- the day lists of a schedule: the text of a list is refused under the parameter's name ---------------------------


@pytest.mark.parametrize(
    ("values", "field", "shown"),
    [
        ({"schedule_type": "Weekly", "week_day": "['MON', 'THU']"}, "week_day", "\"['MON', 'THU']\""),
        ({"schedule_type": "Monthly", "month_day": "[1, 15]"}, "month_day", "'[1, 15]'"),
    ],
    ids=["week_day", "month_day"],
)
def test_a_day_list_given_the_text_of_a_list_is_refused_naming_the_parameter(
    values: dict[str, Any], field: str, shown: str
) -> None:
    error = refusal(lambda: MessagingPlatformCreateScheduleOperator(**SCHEDULE, **values))
    assert error.field == field
    assert str(error) == f"{field}: must be a list, got the text of a list, {shown}: pass a list {TEXT_FIX}"


# -- a list of ids (int_list) ----------------------------------------------------------------------------------------


def test_a_list_of_ids_given_the_text_of_a_list_is_refused_naming_the_parameter() -> None:
    error = refusal(lambda: MessagingPlatformCreatePushVoiceCallOperator(**CALL, contact_list_ids="[4001, 4002]"))
    assert error.field == "contact_list_ids"
    assert str(error) == (
        f"contact_list_ids: must be a list, got the text of a list, '[4001, 4002]': pass a list {TEXT_FIX}"
    )


@pytest.mark.parametrize(
    ("value", "got"),
    [({"id": 4001}, "dict {'id': 4001}"), (4001.0, "float 4001.0")],
    ids=["mapping", "float"],
)
def test_a_list_of_ids_given_a_mapping_or_a_lone_value_says_its_type_and_value(value: Any, got: str) -> None:
    error = refusal(lambda: MessagingPlatformCreatePushVoiceCallOperator(**CALL, exclude_list_ids=value))
    assert error.field == "exclude_list_ids"
    assert str(error) == f"exclude_list_ids: must be a list, got {got}: pass a list {VALUE_FIX}"


# -- lists of text (string_list) and of anything (a_list) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (
            lambda: MessagingPlatformCreatePushVoiceCallOperator(**CALL, targets={"+15550100001": "Ann"}),
            f"targets: must be a list, got dict {{'+15550100001': 'Ann'}}: pass a list {VALUE_FIX}",
        ),
        (
            lambda: MessagingPlatformCreateExternalCouponListOperator(task_id="t", name="L", coupon_codes=12345),
            f"coupon_codes: must be a list, got int 12345: pass a list {VALUE_FIX}",
        ),
        (
            lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, links={"Url": "https://example.com"}),
            f"links: must be a list, got dict {{'Url': 'https://example.com'}}: pass a list {VALUE_FIX}",
        ),
        (
            lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, links="https://example.com"),
            f"links: must be a list, got the text 'https://example.com': pass a list {TEXT_FIX}",
        ),
    ],
    ids=["targets-mapping", "codes-a-number", "links-mapping", "links-plain-text"],
)
def test_a_list_field_given_another_shape_is_refused_naming_the_parameter_and_what_it_got(
    build: Any, message: str
) -> None:
    error = refusal(build)
    assert error.field == message.split(":")[0]
    assert str(error) == message


# -- how much of the value the message repeats: up to 60 characters in full, then the first 50 and the length ----------

#: Text of a list whose repr is 60 characters (shown in full) and one of 61 (cut).
SIXTY = "['+15550100001', '+15550100002', '+15550100003', '600123']"
SIXTY_ONE = "['+15550100001', '+15550100002', '+15550100003', '6001234']"


@pytest.mark.parametrize(
    ("targets", "shown"),
    [
        (SIXTY, "\"['+15550100001', '+15550100002', '+15550100003', '600123']\""),
        (SIXTY_ONE, "\"['+15550100001', '+15550100002', '+15550100003', … (61 characters)"),
    ],
    ids=["60-in-full", "61-cut"],
)
def test_a_refused_value_is_repeated_in_full_up_to_60_characters_and_cut_beyond(targets: str, shown: str) -> None:
    assert (len(repr(SIXTY)), len(repr(SIXTY_ONE))) == (60, 61)
    error = refusal(lambda: MessagingPlatformCreatePushVoiceCallOperator(**CALL, targets=targets))
    assert str(error) == f"targets: must be a list, got the text of a list, {shown}: pass a list {TEXT_FIX}"


# -- a mapping field: the value is never repeated (it may carry a token), only what it is -----------------------------


@pytest.mark.parametrize(
    ("content", "got", "fix"),
    [
        ("{'Text': 'hi'}", "the text of a mapping (14 characters)", TEXT_FIX),
        ("Hello", "the text (5 characters)", TEXT_FIX),
        (["Text", "hi"], "a value of type list", VALUE_FIX),
    ],
    ids=["text-of-a-dict", "plain-text", "a-list"],
)
def test_a_mapping_field_given_another_shape_says_what_it_got_without_repeating_it(
    content: Any, got: str, fix: str
) -> None:
    error = refusal(lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, content=content))
    assert error.field == "content"
    assert str(error) == f"content: must be a mapping (a dict), got {got}: pass a mapping (a dict) {fix}"


# -- what is the text of a collection ------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [["A1", "B2"], ("A1",), {"Text": "hi"}, None, 7])
def test_only_text_spells_a_collection_a_collection_itself_does_not(value: Any) -> None:
    """``spelled_collection`` takes any value: what is not text spells nothing (is never read as text)."""
    assert spelled_collection(value) is None


# -- a "Z" is the UTC designator, never the character between date and time -------------------------------------------


def test_a_z_between_date_and_time_is_refused_not_read_as_a_separator() -> None:
    """Python reads any one character between date and time as the separator: "Z" there would give 09:30, no zone."""
    error = refusal(
        lambda: MessagingPlatformCreateScheduleOperator(task_id="t", action_id=5001, run_once_at="2026-12-01Z09:30:00")
    )
    assert error.field == "run_once_at"
    assert str(error) == (
        "run_once_at: '2026-12-01Z09:30:00' is not a date-time; "
        "give a datetime, a pendulum DateTime or an ISO 8601 string"
    )
