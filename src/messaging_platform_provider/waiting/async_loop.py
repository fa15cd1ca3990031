"""
The asynchronous loop of waiting on schedules, run by ``MessagingPlatformScheduleTrigger`` in the triggerer's event
loop. The decisions are ``decision.Watch``'s, as in the worker's loop (``sync_loop``); only the fetching (an async
call, through the connection's shared hook) and the sleeping (without blocking the loop) differ.

Light to import: the triggerer imports it, with the trigger, on its event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any, Protocol

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.operations import Operation, Operations
from messaging_platform_provider.waiting.decision import Step, WarningLog, Watch, after_round


class AsyncCaller(Protocol):
    """What the loop calls the platform through: ``MessagingPlatformAsyncHook.call``."""

    async def call(self, operation: Operation, **kwargs: Any) -> Any: ...


async def poll_round(hook: AsyncCaller, watch: Watch, account_id: int | None, log: WarningLog) -> Step | None:
    """Read every schedule still pending once; the verdict, or ``None`` to keep waiting."""
    for schedule_id in watch.pending():
        try:
            schedule = await hook.call(
                Operations.get_schedule, account_id=account_id, action_id=watch.action_id, schedule_id=schedule_id
            )
        except MessagingPlatformApiError as exc:
            warning = watch.record_error(schedule_id, exc)
        else:
            warning = watch.record(schedule_id, schedule=schedule)
        if warning:
            log.warning(warning)
    return watch.verdict()


async def wait_until_done(
    hook: AsyncCaller,
    watch: Watch,
    *,
    account_id: int | None,
    poll_interval: float,
    deadline: str | None,
    log: WarningLog,
) -> Step:
    """Poll until a verdict or the absolute ``deadline`` (UTC ISO text)."""
    while True:
        verdict = await poll_round(hook, watch, account_id, log)
        final, pause = after_round(watch, verdict, poll_interval=poll_interval, deadline=deadline)
        if final is not None:
            return final
        await asyncio.sleep(pause)
