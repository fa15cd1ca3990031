"""
The schedule vocabulary, one for every place a schedule is written: the schedule operators and hook methods, and
each item of a push voice call's ``schedules``.

A schedule is ``schedule_type`` (OneTime, Daily, Weekly, Monthly, or 2, 6, 7, 8), ``run_at`` (time of day) and
``start_from`` (first day it may run), with ``end_after``, ``week_day`` (Weekly) and ``month_day`` (Monthly).
``run_once_at`` says "once, at this instant" in one value: it stands for a OneTime schedule whose ``start_from`` is
that instant and whose ``run_at`` is its time of day, both in the platform's time zone; ``"now"`` is the moment the
task runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Annotated, Any, TypedDict

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.fields import (
    Named,
    Wire,
    day_names,
    day_numbers,
    declared,
    extra_fields,
    keys,
    moment,
    pascal,
    time_of_day,
    to_wire,
)
from messaging_platform_provider.client.values import (
    SCHEDULE_TYPES,
    WEEK_DAYS,
    a_list,
    a_mapping,
    format_datetime,
    platform_datetime,
)


class ScheduleOptions(TypedDict, total=False):
    """
    An action schedule's optional fields: ``week_day`` (Weekly) takes ``"SUN, MON"`` or a list of day names;
    ``month_day`` (Monthly) takes ``"1,15"``, a number or a list of numbers.
    """

    end_after: Annotated[Any, moment]
    week_day: Annotated[Any, day_names]
    month_day: Annotated[Any, day_numbers]


class ScheduleFields(ScheduleOptions, total=False):
    schedule_type: Annotated[int | str, Named(SCHEDULE_TYPES), Wire("ScheduleTypeId")]
    run_at: Annotated[Any, time_of_day]
    start_from: Annotated[Any, moment]


#: What a schedule cannot be without: its type, the time of day it runs at and the first day it may run.
SCHEDULE_REQUIRED = ("schedule_type", "run_at", "start_from")
#: The keys of one item of a push voice call's ``schedules``.
SCHEDULE_ITEM_KEYS = (*keys(ScheduleFields), "run_once_at")


def schedule_rules(body: dict[str, Any]) -> dict[str, Any]:
    """week_day for Weekly only and always, month_day likewise for Monthly, end_after not before start_from."""
    if "EndAfter" in body and body["EndAfter"] < body["StartFrom"]:  # same fixed-width format
        raise MessagingPlatformValidationError(
            "end_after", f"{body['EndAfter']} is before start_from {body['StartFrom']}"
        )
    for key, kind, allowed in (("week_day", "Weekly", WEEK_DAYS), ("month_day", "Monthly", ("1..31",))):
        wire = pascal(key)
        if body["ScheduleTypeId"] == SCHEDULE_TYPES[kind] and wire not in body:
            raise MessagingPlatformValidationError(key, f"is required for a {kind} schedule", allowed)
        if body["ScheduleTypeId"] != SCHEDULE_TYPES[kind] and wire in body:
            raise MessagingPlatformValidationError(key, f"is only for a {kind} schedule")
    return body


def run_once(run_once_at: Any, platform_timezone: str) -> dict[str, Any]:
    """
    The three fields ``run_once_at`` stands for: OneTime, its time of day and the instant itself. ``"now"`` is the
    moment this is called (when the task runs).
    """
    if isinstance(run_once_at, str) and run_once_at.strip().lower() == "now":
        run_once_at = datetime.now(timezone.utc)
    instant = platform_datetime(run_once_at, "run_once_at", platform_timezone)
    return {"schedule_type": "OneTime", "run_at": instant.time(), "start_from": format_datetime(instant)}


def check_run_once_alone(values: Mapping[str, Any]) -> None:
    """``run_once_at`` comes without the fields it stands for."""
    given = [key for key in SCHEDULE_REQUIRED if values.get(key) is not None]
    if given:
        raise MessagingPlatformValidationError(
            "run_once_at", f"stands for schedule_type, run_at and start_from; give it alone, not with {given[0]}"
        )


def schedule_body(
    schedule_type: int | str | None = None,
    run_at: Any = None,
    start_from: Any = None,
    *,
    run_once_at: Any = None,
    platform_timezone: str | None = "UTC",
    extra: Mapping[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """
    Build and check a schedule body (``ScheduleFields``), or the one ``run_once_at`` stands for. Date-times given
    with an offset are converted to ``platform_timezone``; ``extra`` is merged on top, for fields this model does
    not know.
    """
    zone = platform_timezone or "UTC"
    values = {"schedule_type": schedule_type, "run_at": run_at, "start_from": start_from, **options}
    if run_once_at is not None:
        check_run_once_alone(values)
        values.update(run_once(run_once_at, zone))
    body = schedule_rules(to_wire(ScheduleFields, values, None, zone, SCHEDULE_REQUIRED))
    body.update(extra_fields(extra))
    return body


def schedule_item(name: str, item: Any, platform_timezone: str) -> dict[str, Any]:
    """One item of a push voice call's ``schedules``, written with the keys a schedule operator takes."""
    item = a_mapping(name, item, "a mapping of schedule keys")
    unknown = [key for key in item if key not in SCHEDULE_ITEM_KEYS]
    if unknown:
        written = {field.wire: field.key for field in declared(ScheduleFields)}.get(unknown[0])
        hint = f"; write {written}" if written else ""
        raise MessagingPlatformValidationError(
            name, f"{unknown[0]!r} is not a schedule key{hint}", None if written else SCHEDULE_ITEM_KEYS
        )
    try:
        return schedule_body(**item, platform_timezone=platform_timezone)
    except MessagingPlatformValidationError as error:
        raise error.within(name) from None


def schedule_list(name: str, value: Any, platform_timezone: str) -> list[dict[str, Any]]:
    """A push voice call's ``schedules``: one ``schedule_item`` each, named by position in errors."""
    items = a_list(name, value, "a list of schedules (mappings of schedule keys)")
    return [schedule_item(f"{name}[{index}]", item, platform_timezone) for index, item in enumerate(items)]
