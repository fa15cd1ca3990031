"""
What a task started on the platform, and how killing the task stops it (``stop_on_kill``): the create-and-wait
operators of push voice calls and schedules remember what they created, and stop it when Airflow kills the task,
in the worker (``BaseOperator.on_kill``) or, while the task is deferred, in the triggerer (``BaseTrigger.on_kill``).
Both paths first read the work's schedules and stop nothing whose every schedule has ended (``still_running``),
then take the deletes from ``StartedWork.deletes`` and take a 404 as already stopped; only the call
differs (sync client or hook, async hook).

Light to import: the schedule trigger imports it on the triggerer's event loop.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.operations import Operation, Operations

#: a schedule's ProcessStatus once it has run its course: nothing is left to stop
ENDED_STATUSES = ("Completed", "Failed", "Aborted")


class InfoLog(Protocol):
    def info(self, msg: str, *args: Any) -> Any: ...


@dataclass(frozen=True)
class StartedWork:
    """
    The platform work one task instance started. ``schedule_ids`` empty: the whole action (a push voice call the
    task created); stopping it deletes the action, which stops the call and all its schedules. Otherwise the
    schedules the task added to an action that is not its own; stopping deletes those schedules and nothing else.
    """

    action_id: str
    schedule_ids: tuple[str, ...] = ()

    @classmethod
    def action(cls, action_id: int | str) -> StartedWork:
        return cls(str(action_id))

    @classmethod
    def schedules(cls, action_id: int | str, schedule_ids: Iterable[int | str]) -> StartedWork:
        return cls(str(action_id), tuple(str(schedule_id) for schedule_id in schedule_ids))

    def still_running(self, schedules: list[dict[str, Any]]) -> bool:
        """
        Whether any of this work's schedules (``schedules``: the action's, as listed) has not ended. Work with no
        schedule listed counts as running. A work whose schedules all ended is left as it is: a trigger that
        Airflow 3.3 cancels after it moved to another triggerer (apache/airflow#73454) may run ``on_kill`` after
        the wait ended well, and deleting would then remove a finished call.
        """
        mine = [s for s in schedules if not self.schedule_ids or str(s.get("Id")) in self.schedule_ids]
        return not mine or any(str(s.get("ProcessStatus")) not in ENDED_STATUSES for s in mine)

    def deletes(self) -> list[tuple[Operation, dict[str, str]]]:
        """The calls that stop this work, each an operation and its path values."""
        if not self.schedule_ids:
            return [(Operations.delete_push_voice_call, {"action_id": self.action_id})]
        return [
            (Operations.delete_schedule, {"action_id": self.action_id, "schedule_id": schedule_id})
            for schedule_id in self.schedule_ids
        ]

    def to_kwargs(self) -> dict[str, Any]:
        """As a trigger's argument (plain JSON: survives the trigger's serialisation)."""
        return {"action_id": self.action_id, "schedule_ids": list(self.schedule_ids)}

    @classmethod
    def from_kwargs(cls, kwargs: Mapping[str, Any]) -> StartedWork:
        return cls.schedules(kwargs["action_id"], kwargs.get("schedule_ids") or ())

    def __str__(self) -> str:
        if not self.schedule_ids:
            return f"action {self.action_id}"
        return f"schedules {', '.join(self.schedule_ids)} of action {self.action_id}"


def ended_already(work: StartedWork, schedules: list[dict[str, Any]], log: InfoLog) -> bool:
    """Whether ``work``'s schedules, as read before stopping it, have all ended (then nothing is stopped)."""
    if schedules and not work.still_running(schedules):
        log.info("Killed: %s had ended already; nothing to stop.", work)
        return True
    return False


def stop(caller: Any, work: StartedWork, account_id: int | None, log: InfoLog) -> None:
    """Stop ``work`` through a sync caller (a client or ``MessagingPlatformHook``: ``call``), in the worker."""
    try:
        schedules = caller.call(Operations.list_schedules, account_id=account_id, action_id=work.action_id)
    except MessagingPlatformApiError as exc:
        if not exc.is_not_found:  # a 404: already gone, which is what stopping wants
            raise
        schedules = []
    if ended_already(work, schedules, log):
        return
    for operation, path in work.deletes():
        try:
            caller.call(operation, account_id=account_id, **path)
        except MessagingPlatformApiError as exc:
            if not exc.is_not_found:  # a 404: already gone, which is what stopping wants
                raise
    log.info("Killed: stopped %s, which this task started.", work)


async def astop(hook: Any, work: StartedWork, account_id: int | None, log: InfoLog) -> None:
    """Stop ``work`` through the async hook (``MessagingPlatformAsyncHook.call``), in the triggerer."""
    try:
        schedules = await hook.call(Operations.list_schedules, account_id=account_id, action_id=work.action_id)
    except MessagingPlatformApiError as exc:
        if not exc.is_not_found:  # a 404: already gone, which is what stopping wants
            raise
        schedules = []
    if ended_already(work, schedules, log):
        return
    for operation, path in work.deletes():
        try:
            await hook.call(operation, account_id=account_id, **path)
        except MessagingPlatformApiError as exc:
            if not exc.is_not_found:  # a 404: already gone, which is what stopping wants
                raise
    log.info("Killed: stopped %s, which this task started.", work)
