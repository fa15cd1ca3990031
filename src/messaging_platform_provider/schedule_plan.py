"""
Reconciling declared recurring schedules with an action's schedules on the platform.

A schedule is identified by its type and its days (``WeekDay``/``MonthDay``): a declared Weekly MON,THU and the
platform's Weekly MON,THU are the same schedule; if their ``RunAt``, ``StartFrom`` or ``EndAfter`` differ it is
updated. One-time schedules are runs, not declarations, and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from messaging_platform_provider.client.values import SCHEDULE_TYPES, comparable

RECURRING = frozenset({SCHEDULE_TYPES["Daily"], SCHEDULE_TYPES["Weekly"], SCHEDULE_TYPES["Monthly"]})
_IDENTITY = ("ScheduleTypeId", "WeekDay", "MonthDay")
_SETTINGS = ("RunAt", "StartFrom", "EndAfter")


def identity(schedule: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(comparable(f, schedule.get(f)) for f in _IDENTITY)


@dataclass
class SchedulePlan:
    create: list[dict[str, Any]] = field(default_factory=list)
    update: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    delete: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)

    @property
    def changes(self) -> int:
        return len(self.create) + len(self.update) + len(self.delete)

    def summary(self) -> dict[str, int]:
        return {
            "created": len(self.create),
            "updated": len(self.update),
            "deleted": len(self.delete),
            "unchanged": len(self.unchanged),
        }


def plan_schedules(desired: Iterable[Mapping[str, Any]], existing: Iterable[Mapping[str, Any]]) -> SchedulePlan:
    """What to send so that the action's recurring schedules are exactly ``desired`` (schedule request bodies)."""
    plan = SchedulePlan()
    wanted: dict[tuple[Any, ...], dict[str, Any]] = {}
    for body in desired:
        key = identity(body)
        if key in wanted:
            raise ValueError(f"two declared schedules share type and days {key}; give each its own days")
        wanted[key] = dict(body)
    for item in existing:
        if int(item.get("ScheduleTypeId", 0)) not in RECURRING:
            continue
        declared = wanted.pop(identity(item), None)
        if declared is None:
            plan.delete.append(int(item["Id"]))
        elif any(comparable(f, item.get(f)) != comparable(f, declared.get(f)) for f in _SETTINGS):
            plan.update.append((int(item["Id"]), declared))
        else:
            plan.unchanged.append(int(item["Id"]))
    plan.create.extend(wanted.values())
    return plan
