"""
The deferrable half of waiting on action schedules: the trigger, its arguments and its event. The polling loop is
``waiting.async_loop``; the decisions are ``waiting.decision``'s, as on every other waiting path.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Iterable
from typing import Any

from airflow.triggers.base import BaseTrigger, TriggerEvent

from messaging_platform_provider.triggers.heap import freeze_startup_heap
from messaging_platform_provider.waiting.async_loop import wait_until_done
from messaging_platform_provider.waiting.deadline import bounded_pause, seconds_left
from messaging_platform_provider.waiting.decision import WaitRules, Watch
from messaging_platform_provider.waiting.defaults import DEFAULT_MAX_TRANSIENT_ERRORS

FIRST_POLL_SPREAD = 2.0  # seconds, at most


class MessagingPlatformScheduleTrigger(BaseTrigger):
    """
    Poll schedules of one action until their ProcessStatus is terminal, without blocking the event loop.

    :param conn_id: ``messagingplatform`` connection; triggers of one connection share one HTTP pool.
    :param action_id: the action the schedules belong to.
    :param schedule_ids: the schedules to wait on; the wait succeeds when all succeeded, fails on the first failure.
    :param deadline: absolute UTC instant (ISO text) after which the trigger reports ``timeout``; ``None``: no limit.
    :param try_number: the task try that deferred, repeated in the event (see ``resumed_by_earlier_try``).
    :param started_work: what the deferred task created (``tasks.started_work.StartedWork.to_kwargs``), which
        ``on_kill`` stops; repeated in the event, for a task that resumes past its ``execution_timeout``. ``None``:
        nothing to stop (a sensor's wait, or ``stop_on_kill=False``).
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
        max_transient_errors: int = DEFAULT_MAX_TRANSIENT_ERRORS,
        poll_interval: float = 10.0,
        deadline: str | None = None,
        try_number: int | None = None,
        started_work: dict[str, Any] | None = None,
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
        self.started_work = started_work

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "conn_id": self.conn_id,
                "action_id": self.action_id,
                "schedule_ids": list(self.schedule_ids),
                "account_id": self.account_id,
                **self.rules.to_kwargs(),
                "poll_interval": self.poll_interval,
                "deadline": self.deadline,
                "try_number": self.try_number,
                "started_work": self.started_work,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from messaging_platform_provider.triggers.pool import shared_hook

        freeze_startup_heap()
        watch = Watch(self.rules, self.action_id, self.schedule_ids)
        async with shared_hook(self.conn_id) as hook:
            # Triggers restored together (a triggerer start) would all poll at once: spread the first poll, but
            # never past the deadline.
            spread = min(self.poll_interval, FIRST_POLL_SPREAD)
            await asyncio.sleep(random.uniform(0, bounded_pause(spread, seconds_left(self.deadline))))
            final = await wait_until_done(
                hook,
                watch,
                account_id=self.account_id,
                poll_interval=self.poll_interval,
                deadline=self.deadline,
                log=self.log,
            )
            event = {**watch.payload(final), "try_number": self.try_number, "started_work": self.started_work}
            yield TriggerEvent(event)

    async def on_kill(self) -> None:
        """
        Airflow 3.3+ calls this when a user marks the deferred task failed or success, or clears it: stop what the
        task created (``started_work``) and nothing else. Not when the task still waits on this trigger: Airflow
        3.3 also calls it on a triggerer that lost a trigger to another one (apache/airflow#73454), where the task
        goes on waiting and its platform work must go on too.
        """
        if self.started_work is None:
            return
        from messaging_platform_provider.tasks.started_work import StartedWork, astop
        from messaging_platform_provider.triggers.pool import shared_hook
        from messaging_platform_provider.triggers.task_state import still_deferred

        work = StartedWork.from_kwargs(self.started_work)
        if await still_deferred(getattr(self, "task_instance", None)):
            self.log.warning("Not stopping %s: the task is still deferred (its trigger moved elsewhere).", work)
            return
        async with shared_hook(self.conn_id) as hook:
            await astop(hook, work, self.account_id, self.log)
