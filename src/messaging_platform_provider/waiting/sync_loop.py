"""
The synchronous loop of waiting on schedules, in a worker: the sensor's poke makes one round, the create-and-wait
operators (``deferrable=False``) loop until the verdict. The decisions are ``decision.Watch``'s, as in the trigger's
loop (``async_loop``); only the fetching and the sleeping differ.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.waiting.decision import Step, WarningLog, Watch, after_round

if TYPE_CHECKING:
    from messaging_platform_provider.client.api import ApiMethods
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook


def polling_hook(conn_id: str) -> MessagingPlatformHook:
    """
    The hook a worker polls with: one attempt per poll, as the trigger makes one, so that the transient errors are
    counted by the shared rules (``WaitRules.max_transient_errors``) alike on both paths.
    """
    from messaging_platform_provider.client.retry import RetryPolicy
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

    return MessagingPlatformHook(conn_id, retry_policy=RetryPolicy(max_attempts=1))


def poll_round(hook: ApiMethods, watch: Watch, account_id: int | None, log: WarningLog) -> Step | None:
    """Read every schedule still pending once; the verdict, or ``None`` to keep waiting."""
    for schedule_id in watch.pending():
        try:
            schedule = hook.get_schedule(watch.action_id, schedule_id, account_id=account_id)
        except MessagingPlatformApiError as exc:
            warning = watch.record_error(schedule_id, exc)
        else:
            warning = watch.record(schedule_id, schedule=schedule)
        if warning:
            log.warning(warning)
    return watch.verdict()


def wait_until_done(
    hook: ApiMethods,
    watch: Watch,
    *,
    account_id: int | None,
    poll_interval: float,
    deadline: str | None,
    log: WarningLog,
    sleep: Callable[[float], None] = time.sleep,
) -> Step:
    """Poll until a verdict or the absolute ``deadline`` (UTC ISO text)."""
    while True:
        verdict = poll_round(hook, watch, account_id, log)
        final, pause = after_round(watch, verdict, poll_interval=poll_interval, deadline=deadline)
        if final is not None:
            return final
        sleep(pause)
