"""Waiting until an action schedule's ProcessStatus is terminal: poke, reschedule or deferrable."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any

from airflow.sdk import PokeReturnValue

from messaging_platform_provider.hooks.names import DEFAULT_CONN_ID
from messaging_platform_provider.sensors.base import MessagingPlatformBaseSensor
from messaging_platform_provider.waiting.defaults import DEFAULT_MAX_TRANSIENT_ERRORS
from messaging_platform_provider.waiting.outcome import conclude

if TYPE_CHECKING:
    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.tasks.templated import Templated
    from messaging_platform_provider.waiting.decision import Watch


class MessagingPlatformScheduleSensor(MessagingPlatformBaseSensor):
    """
    Wait until a schedule's ProcessStatus is one of ``success_statuses`` (default Completed); fail at once on
    ``failure_statuses`` (default Failed, Aborted), on 401/403/404, or after ``max_transient_errors`` transient
    errors (no answer, 429, 5xx) in a row. Any other status, known or not, keeps waiting (an unknown one is
    logged once). The XCom is the schedule as last read.

    ``deferrable`` (default ``[operators] default_deferrable``) hands the wait to the triggerer; the sensor's
    ``timeout`` then becomes an absolute UTC deadline fixed when the wait starts. ``mode="reschedule"`` frees the
    worker slot between pokes (transient-error counting then restarts at each poke).
    """

    template_fields: Sequence[str] = ("account_id", "messaging_platform_conn_id", "action_id", "schedule_id")
    ui_color = "#e3f2fd"

    def __init__(
        self,
        *,
        action_id: Templated[int],
        schedule_id: Templated[int],
        messaging_platform_conn_id: Templated[str] = DEFAULT_CONN_ID,
        account_id: Templated[int] | None = None,
        success_statuses: Iterable[str] | None = None,
        failure_statuses: Iterable[str] | None = None,
        max_transient_errors: int = DEFAULT_MAX_TRANSIENT_ERRORS,
        deferrable: bool | None = None,
        **kwargs: Any,
    ) -> None:
        from messaging_platform_provider.waiting.decision import WaitRules

        super().__init__(deferrable=deferrable, **kwargs)
        self.action_id = action_id
        self.schedule_id = schedule_id
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id
        self.rules = WaitRules.build(success_statuses, failure_statuses, max_transient_errors)

    @property
    def account(self) -> int | None:
        return int(self.account_id) if self.account_id not in (None, "") else None

    @cached_property
    def hook(self) -> MessagingPlatformHook:
        from messaging_platform_provider.waiting.sync_loop import polling_hook

        return polling_hook(self.messaging_platform_conn_id)

    @cached_property
    def watch(self) -> Watch:
        from messaging_platform_provider.waiting.decision import Watch

        return Watch(self.rules, self.action_id, [self.schedule_id])

    def make_trigger(
        self, context: Context, *, poll_interval: float, deadline: str | None, try_number: int
    ) -> BaseTrigger:
        from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger

        return MessagingPlatformScheduleTrigger(
            conn_id=self.messaging_platform_conn_id,
            action_id=self.action_id,
            schedule_ids=[self.schedule_id],
            account_id=self.account,
            **self.rules.to_kwargs(),
            poll_interval=poll_interval,
            deadline=deadline,
            try_number=try_number,
        )

    def poke(self, context: Context) -> bool | PokeReturnValue:
        from messaging_platform_provider.waiting.sync_loop import poll_round

        step = poll_round(self.hook, self.watch, self.account, self.log)
        if step is None:
            return False
        schedules = conclude(self.watch.payload(step), sensor=True)  # raises exactly as after the trigger's event
        return PokeReturnValue(is_done=True, xcom_value=schedules.get(str(self.schedule_id)))

    def result_from_event(self, event: dict[str, Any]) -> Any:
        return conclude(event, sensor=True).get(str(self.schedule_id))
