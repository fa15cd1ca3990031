"""
Reconciling declared recurring schedules with an action's schedules on the platform.

Declared schedules are written in the schedule vocabulary of the operators (``client/schedules.py``:
``schedule_type``, ``run_at``, ``start_from``, ``end_after``, ``week_day``, ``month_day``). A schedule is identified by
its type and its days: a declared Weekly MON,THU and the platform's Weekly MON,THU are the same schedule; if their
time of day or dates differ it is updated. One-time schedules are runs, not declarations, and are left alone.

The plan's lists are keyword arguments of the schedule operators, ready for ``.expand_kwargs``: ``create`` for
``MessagingPlatformCreateScheduleOperator``, ``update`` (with ``schedule_id``) for
``MessagingPlatformUpdateScheduleOperator``, ``delete`` (``schedule_id`` only) for
``MessagingPlatformDeleteScheduleOperator``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.schedules import schedule_item
from messaging_platform_provider.client.values import SCHEDULE_TYPES, comparable

RECURRING = frozenset({SCHEDULE_TYPES["Daily"], SCHEDULE_TYPES["Weekly"], SCHEDULE_TYPES["Monthly"]})
_IDENTITY = ("ScheduleTypeId", "WeekDay", "MonthDay")
_SETTINGS = ("RunAt", "StartFrom", "EndAfter")


def identity(schedule: Mapping[str, Any]) -> tuple[Any, ...]:
    """What identifies a schedule (as the platform writes it): its type and its days."""
    return tuple(comparable(f, schedule.get(f)) for f in _IDENTITY)


@dataclass
class SchedulePlan:
    create: list[dict[str, Any]] = field(default_factory=list)
    update: list[dict[str, Any]] = field(default_factory=list)
    delete: list[dict[str, Any]] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)

    def to_dict(self) -> dict[str, list[Any]]:
        return {"create": self.create, "update": self.update, "delete": self.delete, "unchanged": self.unchanged}


def plan_schedules(
    declared: Iterable[Mapping[str, Any]],
    existing: Iterable[Mapping[str, Any]],
    *,
    name: str = "schedules",
    platform_timezone: str = "UTC",
) -> SchedulePlan:
    """
    What to send so that the action's recurring schedules (``existing``, as ``list_schedules`` answers) are exactly
    ``declared``. Every declared entry is checked first; an error names it as ``{name}[i]``. Raises
    ``MessagingPlatformValidationError`` for a bad entry, a one-time entry, or two entries with the same type
    and days.
    """
    wanted: dict[tuple[Any, ...], tuple[dict[str, Any], dict[str, Any]]] = {}
    for index, entry in enumerate(declared):
        body = schedule_item(f"{name}[{index}]", entry, platform_timezone)
        if body["ScheduleTypeId"] not in RECURRING:
            raise MessagingPlatformValidationError(f"{name}[{index}]", "declares a recurring schedule only")
        key = identity(body)
        if key in wanted:
            raise MessagingPlatformValidationError(
                f"{name}[{index}]", "has the type and days of an earlier entry; give each its own days"
            )
        wanted[key] = (dict(entry), body)
    plan = SchedulePlan()
    for item in existing:
        if int(item.get("ScheduleTypeId", 0)) not in RECURRING:
            continue
        schedule_id = int(item["Id"])
        match = wanted.pop(identity(item), None)
        if match is None:
            plan.delete.append({"schedule_id": schedule_id})
        elif any(comparable(f, item.get(f)) != comparable(f, match[1].get(f)) for f in _SETTINGS):
            plan.update.append({"schedule_id": schedule_id, **match[0]})
        else:
            plan.unchanged.append(schedule_id)
    plan.create.extend(entry for entry, _ in wanted.values())
    return plan
