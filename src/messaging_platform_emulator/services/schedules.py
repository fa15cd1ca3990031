"""Action schedule rules: validation, CRUD, and the run lifecycle controls."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..errors import ControlConflict, ControlNotFound, not_found
from ..lifecycle import TERMINAL, Behaviour, Outcome, RunPlan
from ..models import (
    AUDIT_PROPERTIES,
    NOT_APPLICABLE,
    SCHEDULE_MONTHLY,
    SCHEDULE_ONE_TIME,
    SCHEDULE_TYPES,
    SCHEDULE_WEEKLY,
    ApiKey,
    Audit,
    Schedule,
    ScheduleFields,
)
from ..store import Store
from ..validation import Body, parse_json_object
from .access import require_action

OBJECT_TYPE = "ActionSchedule"
WEEK_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_RUN_AT = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")
_ALLOWED_TYPES = ", ".join(f"{number} ({name})" for number, name in SCHEDULE_TYPES.items())


class ScheduleNotFound(ControlNotFound):
    """No schedule with that id."""


class ScheduleFinished(ControlConflict):
    """The schedule's run already ended, so it cannot be aborted."""


def _day_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def read_schedule_fields(body: Body) -> ScheduleFields:
    """Validate a create or PUT body (both carry every client field)."""
    fields = collect_schedule_fields(body)
    body.check()
    assert fields is not None
    return fields


def collect_schedule_fields(body: Body) -> ScheduleFields | None:
    """The schedule in ``body``, or None when it has problems (recorded in ``body.errors``, not raised)."""
    errors_before = len(body.errors)
    type_id = body.integer("ScheduleTypeId", required=True)
    if type_id is not None and type_id not in SCHEDULE_TYPES:
        body.invalid("ScheduleTypeId", f"ScheduleTypeId must be one of {_ALLOWED_TYPES}; got {type_id}.")
        type_id = None
    run_at = body.string("RunAt", required=True)
    if run_at is not None and not _RUN_AT.match(run_at):
        body.invalid("RunAt", f"RunAt must be a time of day shaped HH:mm:ss, such as 17:30:00; got {run_at!r}.")
    start_from = body.date_time("StartFrom", required=True)
    end_after = body.date_time("EndAfter")
    if start_from is not None and end_after is not None and end_after < start_from:
        body.invalid("EndAfter", "EndAfter must not be before StartFrom.")

    # WeekDay and MonthDay are strings whenever given; required and checked for Weekly (7) and Monthly (8);
    # for other types they do not apply and the answer holds the placeholder "*".
    week_day = NOT_APPLICABLE
    text = body.string("WeekDay", required=type_id == SCHEDULE_WEEKLY)
    if type_id == SCHEDULE_WEEKLY and text is not None:
        if all(day in WEEK_DAYS for day in _day_list(text)):
            week_day = text.strip()
        else:
            body.invalid(
                "WeekDay",
                "WeekDay must be a comma-separated list of upper-case days from "
                + ", ".join(WEEK_DAYS)
                + f"; got {text!r}.",
            )
    month_day = NOT_APPLICABLE
    text = body.string("MonthDay", required=type_id == SCHEDULE_MONTHLY)
    if type_id == SCHEDULE_MONTHLY and text is not None:
        if all(day.isdigit() and 1 <= int(day) <= 31 for day in _day_list(text)):
            month_day = text.strip()
        else:
            body.invalid("MonthDay", f"MonthDay must be a comma-separated list of days 1 to 31; got {text!r}.")
    body.ignore("Id", "AccountId", "ActionId", "ScheduleType", "ProcessStatus", "Logs", *AUDIT_PROPERTIES)
    if len(body.errors) > errors_before:
        return None
    assert type_id is not None and run_at is not None and start_from is not None
    return ScheduleFields(type_id, run_at, start_from, end_after, week_day, month_day)


class ScheduleService:
    """Schedules, and the run behaviour given to those created from now on (a control setting, reset with the
    emulator)."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._default_behaviour = Behaviour()

    def _find(self, key: ApiKey, account_id: int, action_id: int, schedule_id: int) -> Schedule:
        require_action(self._store, key, account_id, action_id)
        schedule = self._store.tables.schedules.get(schedule_id)
        if schedule is None or schedule.action_id != action_id or schedule.account_id != account_id:
            raise not_found(OBJECT_TYPE, schedule_id)
        return schedule

    def list(self, key: ApiKey, account_id: int, action_id: int) -> list[dict[str, Any]]:
        with self._store.lock:
            require_action(self._store, key, account_id, action_id)
            now = self._store.now()
            return [
                s.to_api(now)
                for s in self._store.tables.schedules.values()
                if s.action_id == action_id and s.account_id == account_id
            ]

    def get(self, key: ApiKey, account_id: int, action_id: int, schedule_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, action_id, schedule_id).to_api(self._store.now())

    def create(self, key: ApiKey, account_id: int, action_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            require_action(self._store, key, account_id, action_id)
            fields = read_schedule_fields(parse_json_object(raw_body, OBJECT_TYPE))
            return self.add(account_id, action_id, fields, key.principal).to_api(self._store.now())

    # -- used by the typed action services (caller holds the lock) ------------------------------

    def add(self, account_id: int, action_id: int, fields: ScheduleFields, principal: str) -> Schedule:
        """Store a validated schedule on an action; its run plan starts now."""
        now = self._store.now()
        schedule = Schedule(
            id=self._store.next_id("schedule"),
            account_id=account_id,
            action_id=action_id,
            fields=fields,
            audit=Audit.new(now, principal),
            plan=RunPlan(now, self._default_behaviour, one_time=fields.schedule_type_id == SCHEDULE_ONE_TIME),
        )
        self._store.tables.schedules[schedule.id] = schedule
        return schedule

    def of_action(self, action_id: int) -> Sequence[Schedule]:
        return [s for s in self._store.tables.schedules.values() if s.action_id == action_id]

    def abort_all(self, action_id: int, principal: str) -> None:
        """Abort every schedule of the action whose run has not ended yet."""
        now = self._store.now()
        for schedule in self.of_action(action_id):
            if schedule.plan.status(now) not in TERMINAL:
                schedule.plan.aborted_at = now
                schedule.audit.touch(now, principal)

    def update(self, key: ApiKey, account_id: int, action_id: int, schedule_id: int, raw_body: bytes) -> dict[str, Any]:
        """Replace the client fields. The run plan is kept; a schedule that becomes one-time starts a new one."""
        with self._store.lock:
            schedule = self._find(key, account_id, action_id, schedule_id)
            fields = read_schedule_fields(parse_json_object(raw_body, OBJECT_TYPE))
            now = self._store.now()
            one_time = fields.schedule_type_id == SCHEDULE_ONE_TIME
            if one_time and not schedule.plan.one_time:
                schedule.plan = RunPlan(now, schedule.plan.behaviour, one_time=True)
            schedule.plan.one_time = one_time
            schedule.fields = fields
            schedule.audit.touch(now, key.principal)
            return schedule.to_api(now)

    def delete(self, key: ApiKey, account_id: int, action_id: int, schedule_id: int) -> dict[str, Any]:
        """Remove the schedule; returns it as it was."""
        with self._store.lock:
            schedule = self._find(key, account_id, action_id, schedule_id)
            del self._store.tables.schedules[schedule.id]
            return schedule.to_api(self._store.now())

    # -- emulator controls ------------------------------------------------------------------------

    @property
    def default_behaviour(self) -> Behaviour:
        """Behaviour of schedules created from now on."""
        return self._default_behaviour

    def reset_default_behaviour(self) -> None:
        self._default_behaviour = Behaviour()

    def set_default_behaviour(
        self,
        pending_seconds: float | None = None,
        processing_seconds: float | None = None,
        outcome: Outcome | None = None,
    ) -> Behaviour:
        """Behaviour of schedules created from now on; omitted values stay as they are."""
        with self._store.lock:
            self._default_behaviour = _merge(self._default_behaviour, pending_seconds, processing_seconds, outcome)
            return self._default_behaviour

    def set_behaviour(
        self,
        schedule_id: int,
        pending_seconds: float | None = None,
        processing_seconds: float | None = None,
        outcome: Outcome | None = None,
    ) -> dict[str, Any]:
        """Restart one schedule's run plan from now with the given behaviour (omitted: keep its own)."""
        with self._store.lock:
            schedule = self._control_find(schedule_id)
            behaviour = _merge(schedule.plan.behaviour, pending_seconds, processing_seconds, outcome)
            now = self._store.now()
            schedule.plan = RunPlan(now, behaviour, one_time=schedule.plan.one_time)
            return schedule.to_api(now)

    def abort(self, schedule_id: int) -> dict[str, Any]:
        """Abort a schedule now; ScheduleFinished when its run already ended."""
        with self._store.lock:
            schedule = self._control_find(schedule_id)
            now = self._store.now()
            status = schedule.plan.status(now)
            if status in TERMINAL:
                raise ScheduleFinished(f"schedule {schedule_id} already ended with {status}")
            schedule.plan.aborted_at = now
            return schedule.to_api(now)

    def _control_find(self, schedule_id: int) -> Schedule:
        schedule = self._store.tables.schedules.get(schedule_id)
        if schedule is None:
            raise ScheduleNotFound(f"schedule {schedule_id} does not exist")
        return schedule


def _merge(
    base: Behaviour, pending_seconds: float | None, processing_seconds: float | None, outcome: Outcome | None
) -> Behaviour:
    changes: dict[str, Any] = {}
    if pending_seconds is not None:
        changes["pending_seconds"] = float(pending_seconds)
    if processing_seconds is not None:
        changes["processing_seconds"] = float(processing_seconds)
    if outcome is not None:
        changes["outcome"] = outcome
    return replace(base, **changes)
