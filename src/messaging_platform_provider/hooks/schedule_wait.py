"""The synchronous loop of waiting on schedules; the decisions are ``waiting.Watch``'s, as in the trigger."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.waiting import Step, Watch, seconds_left, timeout_step

if TYPE_CHECKING:
    from messaging_platform_provider.client.api import ApiMethods


class _Log(Protocol):
    def warning(self, event: Any, *args: Any, **kw: Any) -> Any: ...


def poll_round(api: ApiMethods, watch: Watch, account_id: int | None, log: _Log) -> Step | None:
    """Read every schedule still pending once; the verdict, or ``None`` to keep waiting."""
    for schedule_id in watch.pending():
        try:
            schedule = api.get_schedule(watch.action_id, schedule_id, account_id=account_id)
            warning = watch.record(schedule_id, schedule=schedule)
        except MessagingPlatformApiError as exc:
            warning = watch.record(schedule_id, error_status=exc.status, error_text=str(exc))
        if warning:
            log.warning(warning)
    return watch.verdict()


def wait_until_done(
    api: ApiMethods,
    watch: Watch,
    *,
    account_id: int | None,
    poll_interval: float,
    deadline: str | None,
    log: _Log,
    sleep: Callable[[float], None] = time.sleep,
) -> Step:
    """Poll until a verdict or the absolute ``deadline`` (UTC ISO text)."""
    while True:
        final = poll_round(api, watch, account_id, log)
        left = seconds_left(deadline)
        if final is None and left is not None and left <= 0:
            final = timeout_step(deadline)
        if final is not None:
            return final
        pause = watch.pause(poll_interval)
        sleep(pause if left is None else max(0.0, min(pause, left)))
