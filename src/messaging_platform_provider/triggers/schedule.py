"""The deferrable half of waiting on action schedules; decisions come from ``waiting.decide``."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterable
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.triggers.heap import freeze_startup_heap
from messaging_platform_provider.waiting import WaitRules, Watch, seconds_left, timeout_step

FIRST_POLL_SPREAD = 2.0  # seconds, at most


class MessagingPlatformScheduleTrigger(BaseTrigger):
    """
    Poll schedules of one action until their ProcessStatus is terminal, without blocking the event loop.

    :param conn_id: ``messaging_platform`` connection; triggers of one connection share one HTTP pool.
    :param action_id: the action the schedules belong to.
    :param schedule_ids: the schedules to wait on; the wait succeeds when all succeeded, fails on the first failure.
    :param deadline: absolute UTC instant (ISO text) after which the trigger reports ``timeout``; ``None``: no limit.
    :param try_number: the task try that deferred, repeated in the event (see ``resumed_by_earlier_try``).
    """

    def __init__(
        self,
        *,
        conn_id: str,
        action_id: int | str,
        schedule_ids: Iterable[int | str],
        account_id: int | None = None,
        success_statuses: Iterable[str] | None = None,
        failure_statuses: Iterable[str] | None = None,
        max_transient_errors: int = 5,
        poll_interval: float = 10.0,
        deadline: str | None = None,
        try_number: int | None = None,
    ) -> None:
        super().__init__()
        self.conn_id = conn_id
        self.action_id = action_id
        self.schedule_ids = [str(s) for s in schedule_ids]
        self.account_id = account_id
        self.rules = WaitRules.build(success_statuses, failure_statuses, max_transient_errors)
        self.poll_interval = float(poll_interval)
        self.deadline = deadline
        self.try_number = try_number

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "conn_id": self.conn_id,
                "action_id": self.action_id,
                "schedule_ids": list(self.schedule_ids),
                "account_id": self.account_id,
                "success_statuses": list(self.rules.success),
                "failure_statuses": list(self.rules.failure),
                "max_transient_errors": self.rules.max_transient_errors,
                "poll_interval": self.poll_interval,
                "deadline": self.deadline,
                "try_number": self.try_number,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from messaging_platform_provider.triggers.pool import shared_client

        freeze_startup_heap()
        watch = Watch(self.rules, self.action_id, self.schedule_ids)
        async with shared_client(self.conn_id) as client:
            # Triggers restored together (a triggerer start) would all poll at once: spread the first poll, but
            # never past the deadline.
            spread = min(self.poll_interval, FIRST_POLL_SPREAD)
            left = seconds_left(self.deadline)
            await asyncio.sleep(random.uniform(0, spread if left is None else max(0.0, min(spread, left))))
            while True:
                for schedule_id in watch.pending():
                    try:
                        schedule = await client.call(
                            "get_schedule",
                            account_id=self.account_id,
                            action_id=self.action_id,
                            schedule_id=schedule_id,
                        )
                        warning = watch.record(schedule_id, schedule=schedule)
                    except MessagingPlatformApiError as exc:
                        warning = watch.record(schedule_id, error_status=exc.status, error_text=str(exc))
                    if warning:
                        self.log.warning(warning)
                final = watch.verdict()
                left = seconds_left(self.deadline)
                if final is None and left is not None and left <= 0:
                    final = timeout_step(self.deadline)
                if final is not None:
                    yield TriggerEvent({**watch.payload(final), "try_number": self.try_number})
                    return
                pause = watch.pause(self.poll_interval)
                await asyncio.sleep(pause if left is None else max(0.0, min(pause, left)))
