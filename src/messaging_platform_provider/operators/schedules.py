"""Operators for action schedules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.schedules import (
    SCHEDULE_REQUIRED,
    ScheduleOptions,
    check_run_once_alone,
    run_once,
)
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.operators.links import MessagingPlatformScheduleLink
from messaging_platform_provider.operators.literals import is_literal
from messaging_platform_provider.waiting.completion import WaitForSchedulesMixin

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreateScheduleOperator",
    "MessagingPlatformDeleteScheduleOperator",
    "MessagingPlatformGetScheduleOperator",
    "MessagingPlatformListSchedulesOperator",
    "MessagingPlatformUpdateScheduleOperator",
]


class MessagingPlatformListSchedulesOperator(MessagingPlatformBaseOperator):
    """List the schedules of an action; returns the list. ``action_id`` is templated."""

    operation = Operations.list_schedules
    template_fields = ("account_id", "messaging_platform_conn_id", "action_id")

    def __init__(self, *, action_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_schedules(self.action_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetScheduleOperator(MessagingPlatformBaseOperator):
    """Get one schedule (with its ProcessStatus); returns it. Ids are templated."""

    operation = Operations.get_schedule
    template_fields = ("account_id", "messaging_platform_conn_id", "action_id", "schedule_id")

    def __init__(self, *, action_id: Templated[int], schedule_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_schedule(self.action_id, self.schedule_id, account_id=self.account)
        return self.task_result(context, answer)


class _ScheduleDefinitionOperator(MessagingPlatformBaseOperator):
    """What the create and update operators share: ``run_once_at`` checked with the other literals (it is not a body
    field), and mapped instances named after their definition."""

    run_once_at: Any
    schedule_type: Any
    run_at: Any
    week_day: Any
    month_day: Any

    def check_literal_values(self) -> None:
        super().check_literal_values()
        if self.run_once_at is not None and is_literal(self.run_once_at):
            check_run_once_alone({key: getattr(self, key) for key in SCHEDULE_REQUIRED})
            run_once(self.run_once_at, "UTC")

    @property
    def map_label(self) -> str:
        """``action_id=5001: Weekly MON at 09:30:00``: the ids, then the definition."""
        if self.run_once_at is not None:
            definition = f"once at {self.run_once_at}"
        else:
            days = self.week_day if self.week_day is not None else self.month_day
            if isinstance(days, (list, tuple)):
                days = ", ".join(str(day) for day in days)
            definition = " ".join(str(part) for part in (self.schedule_type, days, "at", self.run_at) if part)
        return f"{self.addressed()}: {definition}"


class MessagingPlatformCreateScheduleOperator(
    WaitForSchedulesMixin, _ScheduleDefinitionOperator, MessagingPlatformCreateOperator
):
    """
    Create a schedule on an action; returns it. Every field is templated.

    :param schedule_type: OneTime, Daily, Weekly, Monthly (or 2, 6, 7, 8).
    :param run_at: time of day, ``HH:mm:ss``.
    :param start_from: datetime, pendulum or ISO string; sent without offset in the connection's time zone.
    :param run_once_at: instead of the three above, "once, at this instant": a datetime, pendulum or ISO string,
        or ``"now"`` for the moment the task runs.
    :param end_after: optional, not before ``start_from``.
    :param week_day: Weekly only (required there): ``"MON, THU"`` or a list of day names.
    :param month_day: Monthly only (required there): ``"1,15"``, an int or a list of ints.
    :param idempotent: a retry adopts a schedule of the action with the same definition instead of adding one.
    :param wait_for_completion: and the other wait options: see ``WaitForSchedulesMixin``; the XCom is then the
        schedule as last read.
    :param stop_on_kill: when Airflow kills the task (marked failed or success, cleared, ``execution_timeout``),
        delete the schedule it created, and nothing else of the action (default ``True``).
    """

    operation = Operations.create_schedule
    operator_extra_links = (MessagingPlatformScheduleLink(),)
    template_fields = (
        "account_id", "messaging_platform_conn_id", "action_id", "schedule_type", "run_at", "start_from", "run_once_at",
        "end_after", "week_day", "month_day", "extra", "wait_timeout",
    )  # fmt: skip

    def __init__(
        self,
        *,
        action_id: Templated[int],
        schedule_type: Templated[int] | None = None,
        run_at: Any = None,
        start_from: Any = None,
        run_once_at: Any = None,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_type = schedule_type
        self.run_at = run_at
        self.start_from = start_from
        self.run_once_at = run_once_at
        self.end_after = end_after
        self.week_day = week_day
        self.month_day = month_day
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        from messaging_platform_provider.tasks.started_work import StartedWork

        with self.failing_fast():
            self.wait_seconds()  # a wait_timeout that is no number is refused before the create is sent
            once = self.once(context)
            schedule = self.hook.create_schedule(
                self.action_id,
                self.schedule_type,
                self.run_at,
                self.start_from,
                run_once_at=self.run_once_at,
                extra=self.extra,
                once=once,
                account_id=self.account,
                **self.declared_values(ScheduleOptions),
            )
            work = StartedWork.schedules(self.action_id, [schedule["Id"]])
            self.remember_started(once, schedule["Id"], work)  # what a kill stops
            answer = self.wait_for(context, self.action_id, [str(schedule["Id"])], schedule)
        return self.task_result(context, answer)

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        return schedules.get(str(result["Id"]), result)

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        (schedule,) = schedules.values()  # the event carries the one schedule as last read
        return schedule


class MessagingPlatformUpdateScheduleOperator(_ScheduleDefinitionOperator):
    """Replace a schedule's definition (the fields of create, ``run_once_at`` too); returns it. Templated."""

    operation = Operations.update_schedule
    template_fields = (
        "account_id", "messaging_platform_conn_id", "action_id", "schedule_id", "schedule_type", "run_at", "start_from",
        "run_once_at", "end_after", "week_day", "month_day", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        action_id: Templated[int],
        schedule_id: Templated[int],
        schedule_type: Templated[int] | None = None,
        run_at: Any = None,
        start_from: Any = None,
        run_once_at: Any = None,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self.schedule_type = schedule_type
        self.run_at = run_at
        self.start_from = start_from
        self.run_once_at = run_once_at
        self.end_after = end_after
        self.week_day = week_day
        self.month_day = month_day
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.update_schedule(
                self.action_id,
                self.schedule_id,
                self.schedule_type,
                self.run_at,
                self.start_from,
                run_once_at=self.run_once_at,
                extra=self.extra,
                account_id=self.account,
                **self.declared_values(ScheduleOptions),
            )
        return self.task_result(context, answer)


class MessagingPlatformDeleteScheduleOperator(MessagingPlatformBaseOperator):
    """Remove a schedule from its action; returns ``True``, or ``False`` if it was already gone."""

    operation = Operations.delete_schedule
    template_fields = ("account_id", "messaging_platform_conn_id", "action_id", "schedule_id")

    def __init__(
        self, *, action_id: Templated[int], schedule_id: Templated[int], missing_ok: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.delete_schedule(
                self.action_id, self.schedule_id, missing_ok=self.missing_ok, account_id=self.account
            )
        return self.task_result(context, answer)
