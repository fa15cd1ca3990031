"""Action schedules (spec 2.1, 4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import ScheduleOptions
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.schedules import schedule_body


class ScheduleApi(ApiBase):
    def list_schedules(self, action_id: int | str, *, account_id: int | None = None) -> list[dict[str, Any]]:
        return self._many(Operations.list_schedules, account_id=account_id, action_id=action_id)

    def get_schedule(
        self, action_id: int | str, schedule_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        return self._one(Operations.get_schedule, account_id=account_id, action_id=action_id, schedule_id=schedule_id)

    def create_schedule(
        self,
        action_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[ScheduleOptions],
    ) -> dict[str, Any]:
        """Create a schedule on an action; see ``schedule_body`` for the accepted values."""
        body = schedule_body(
            schedule_type, run_at, start_from, **options, platform_timezone=self._timezone(), extra=extra
        )
        return self._create(Operations.create_schedule, body, once, account_id, action_id=action_id)

    def update_schedule(
        self,
        action_id: int | str,
        schedule_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **options: Unpack[ScheduleOptions],
    ) -> dict[str, Any]:
        """Replace a schedule's definition (the PUT carries the whole schedule request)."""
        body = schedule_body(
            schedule_type, run_at, start_from, **options, platform_timezone=self._timezone(), extra=extra
        )
        return self._one(
            Operations.update_schedule, account_id=account_id, action_id=action_id, schedule_id=schedule_id, body=body
        )

    def delete_schedule(
        self, action_id: int | str, schedule_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete(
            Operations.delete_schedule, missing_ok, account_id=account_id, action_id=action_id, schedule_id=schedule_id
        )
