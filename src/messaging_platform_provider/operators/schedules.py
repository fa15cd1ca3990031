"""Operators for action schedules."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.operators.base import (
    BASE_TEMPLATE_FIELDS,
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.waiting.completion import WAIT_ARGUMENTS, WAIT_TEMPLATE_FIELDS, WaitForSchedulesMixin

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

_DEFINITION = ("schedule_type", "run_at", "start_from", "end_after", "week_day", "month_day", "extra")


class _ScheduleDefinition:
    """The schedule request fields that create and update share (spec 2.1)."""

    schedule_type: int | str
    run_at: Any
    start_from: Any
    end_after: Any
    week_day: Any
    month_day: Any
    extra: Mapping[str, Any] | None

    def _set_definition(self, values: Mapping[str, Any]) -> None:
        for name in _DEFINITION:
            setattr(self, name, values[name])

    def definition(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _DEFINITION}


class MessagingPlatformListSchedulesOperator(MessagingPlatformBaseOperator):
    """List the schedules of an action; returns the list. ``action_id`` is templated."""

    operation = "list_schedules"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id")

    def __init__(self, *, action_id: int | str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.list_schedules(self.action_id, account_id=self.account)


class MessagingPlatformGetScheduleOperator(MessagingPlatformBaseOperator):
    """Get one schedule (with its ProcessStatus); returns it. Ids are templated."""

    operation = "get_schedule"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id", "schedule_id")

    def __init__(self, *, action_id: int | str, schedule_id: int | str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.get_schedule(self.action_id, self.schedule_id, account_id=self.account)


class MessagingPlatformCreateScheduleOperator(
    _ScheduleDefinition, WaitForSchedulesMixin, MessagingPlatformCreateOperator
):
    """
    Create a schedule on an action; returns it. Every field is templated.

    :param schedule_type: OneTime, Daily, Weekly, Monthly (or 2, 6, 7, 8).
    :param run_at: time of day, ``HH:mm:ss``.
    :param start_from: datetime, pendulum or ISO string; sent without offset in the connection's time zone.
    :param end_after: optional, not before ``start_from``.
    :param week_day: Weekly only (required there): ``"MON, THU"`` or a list of day names.
    :param month_day: Monthly only (required there): ``"1,15"``, an int or a list of ints.
    :param idempotent: a retry adopts a schedule of the action with the same definition instead of adding one.
    :param wait_for_completion: wait until the schedule's ProcessStatus is terminal; the XCom is then the
        schedule as last read. A retry of a waiting task finds the schedule it created and waits on it again.
    :param deferrable: wait in the triggerer (default ``[operators] default_deferrable``).
    :param poll_interval: seconds between reads while waiting.
    :param wait_timeout: seconds to wait at most (an absolute deadline is fixed when the wait starts).
    :param success_statuses: statuses that end the wait successfully (default Completed).
    :param failure_statuses: statuses that fail the task (default Failed, Aborted).
    :param max_transient_errors: transient errors in a row tolerated while waiting.
    """

    operation = "create_schedule"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id", *_DEFINITION, *WAIT_TEMPLATE_FIELDS)

    def __init__(
        self,
        *,
        action_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Mapping[str, Any] | None = None,
        wait_for_completion: bool = False,
        deferrable: bool | None = None,
        poll_interval: float = 10.0,
        wait_timeout: float | None = None,
        success_statuses: Iterable[str] | None = None,
        failure_statuses: Iterable[str] | None = None,
        max_transient_errors: int = 5,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self._set_definition(locals())
        args = locals()
        self._init_wait(**{name: args[name] for name in WAIT_ARGUMENTS})

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        schedule = hook.create_schedule(
            self.action_id, **self.definition(), once=self.once(context), account_id=self.account
        )
        return self.wait_for(context, self.action_id, [str(schedule["Id"])], schedule)

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        return schedules.get(str(result["Id"]), result)

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        (schedule,) = schedules.values()  # the event carries the one schedule as last read
        return schedule


class MessagingPlatformUpdateScheduleOperator(_ScheduleDefinition, MessagingPlatformBaseOperator):
    """Replace a schedule's definition (same fields as create); returns it. Templated."""

    operation = "update_schedule"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id", "schedule_id", *_DEFINITION)

    def __init__(
        self,
        *,
        action_id: int | str,
        schedule_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self._set_definition(locals())

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.update_schedule(self.action_id, self.schedule_id, **self.definition(), account_id=self.account)


class MessagingPlatformDeleteScheduleOperator(MessagingPlatformBaseOperator):
    """Remove a schedule from its action; returns ``True``, or ``False`` if it was already gone."""

    operation = "delete_schedule"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id", "schedule_id")

    def __init__(self, *, action_id: int | str, schedule_id: int | str, missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self.missing_ok = missing_ok

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.delete_schedule(
            self.action_id, self.schedule_id, missing_ok=self.missing_ok, account_id=self.account
        )
