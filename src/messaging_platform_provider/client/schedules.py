"""The action schedule request body (spec 2.1), built and checked before it is sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.values import (
    SCHEDULE_TYPES,
    enum_value,
    format_datetime,
    month_days,
    platform_datetime,
    run_at,
    week_days,
)


def schedule_body(
    schedule_type: int | str,
    run_at_time: Any,
    start_from: Any,
    *,
    end_after: Any = None,
    week_day: Any = None,
    month_day: Any = None,
    platform_timezone: str | None = "UTC",
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """
    Build a schedule body. ``schedule_type`` is a name (OneTime, Daily, Weekly, Monthly) or its number
    (2, 6, 7, 8). ``week_day`` (Weekly) takes ``"SUN, MON"`` or a list of day names; ``month_day`` (Monthly)
    takes ``"1,15"``, an int or a list of ints. ``extra`` is merged on top, for fields this model does not know.
    """
    type_id = enum_value("ScheduleTypeId", schedule_type, SCHEDULE_TYPES)
    start = platform_datetime(start_from, "StartFrom", platform_timezone)
    body: dict[str, Any] = {
        "ScheduleTypeId": type_id,
        "RunAt": run_at(run_at_time),
        "StartFrom": format_datetime(start),
    }
    if end_after is not None:
        end = platform_datetime(end_after, "EndAfter", platform_timezone)
        if end < start:
            raise MessagingPlatformValidationError(
                "EndAfter", f"{format_datetime(end)} is before StartFrom {format_datetime(start)}"
            )
        body["EndAfter"] = format_datetime(end)
    if type_id == SCHEDULE_TYPES["Weekly"]:
        if week_day is None:
            raise MessagingPlatformValidationError(
                "WeekDay", "is required for a Weekly schedule", ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"]
            )
        body["WeekDay"] = week_days(week_day)
    elif week_day is not None:
        raise MessagingPlatformValidationError("WeekDay", "is only for a Weekly schedule")
    if type_id == SCHEDULE_TYPES["Monthly"]:
        if month_day is None:
            raise MessagingPlatformValidationError("MonthDay", "is required for a Monthly schedule", ["1..31"])
        body["MonthDay"] = month_days(month_day)
    elif month_day is not None:
        raise MessagingPlatformValidationError("MonthDay", "is only for a Monthly schedule")
    body.update(extra or {})
    return body
