"""Action schedules; ``client/schedules.py`` has the vocabulary they are written in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.schedules import ScheduleOptions, schedule_body


class ScheduleApi(ApiBase):
    def _schedule_options(
        self, run_once_at: Any, extra: Mapping[str, Any] | None, options: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The keywords of ``schedule_body`` beside the three positional fields, with the platform's time zone."""
        return {"run_once_at": run_once_at, "platform_timezone": self._timezone(), "extra": extra, **options}

    def list_schedules(self, action_id: int | str, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The schedules of an action."""
        return self._many(Operations.list_schedules, account_id=account_id, action_id=action_id)

    def get_schedule(
        self, action_id: int | str, schedule_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        """One schedule of an action."""
        return self._one(Operations.get_schedule, account_id=account_id, action_id=action_id, schedule_id=schedule_id)

    def create_schedule(
        self,
        action_id: int | str,
        schedule_type: int | str | None = None,
        run_at: Any = None,
        start_from: Any = None,
        *,
        run_once_at: Any = None,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[ScheduleOptions],
    ) -> dict[str, Any]:
        """
        Create a schedule on an action: ``schedule_type``, ``run_at`` and ``start_from`` (with the options), or
        ``run_once_at`` alone for "once, at this instant"; see ``client/schedules.py``.
        """
        body = schedule_body(schedule_type, run_at, start_from, **self._schedule_options(run_once_at, extra, options))
        return self._create(Operations.create_schedule, body, once, account_id, action_id=action_id)

    def update_schedule(
        self,
        action_id: int | str,
        schedule_id: int | str,
        schedule_type: int | str | None = None,
        run_at: Any = None,
        start_from: Any = None,
        *,
        run_once_at: Any = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **options: Unpack[ScheduleOptions],
    ) -> dict[str, Any]:
        """Replace a schedule's definition (the PUT carries the whole schedule), written as for ``create_schedule``."""
        body = schedule_body(schedule_type, run_at, start_from, **self._schedule_options(run_once_at, extra, options))
        return self._one(
            Operations.update_schedule, account_id=account_id, action_id=action_id, schedule_id=schedule_id, body=body
        )

    def delete_schedule(
        self, action_id: int | str, schedule_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Remove a schedule from its action; ``True`` if it was there."""
        return self._delete(
            Operations.delete_schedule, missing_ok, account_id=account_id, action_id=action_id, schedule_id=schedule_id
        )
