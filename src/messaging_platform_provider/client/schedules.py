"""The action schedule request body (spec 2.1), built and checked before it is sent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.bodies import ScheduleFields, ScheduleOptions, schedule_rules
from messaging_platform_provider.client.fields import to_wire

#: What a schedule cannot be without: its type, the time of day it runs at and the first day it may run.
SCHEDULE_REQUIRED = ("schedule_type", "run_at", "start_from")


def schedule_body(
    schedule_type: int | str,
    run_at: Any,
    start_from: Any,
    *,
    platform_timezone: str | None = "UTC",
    extra: Mapping[str, Any] | None = None,
    **options: Unpack[ScheduleOptions],
) -> dict[str, Any]:
    """
    Build a schedule body (``ScheduleFields``). ``schedule_type`` is a name (OneTime, Daily, Weekly, Monthly) or its
    number (2, 6, 7, 8); date-times given with an offset are converted to ``platform_timezone``. ``extra`` is merged
    on top, for fields this model does not know.
    """
    values = {"schedule_type": schedule_type, "run_at": run_at, "start_from": start_from, **options}
    body = to_wire(ScheduleFields, values, None, platform_timezone or "UTC", SCHEDULE_REQUIRED)
    body = schedule_rules(body)
    body.update(extra or {})
    return body
