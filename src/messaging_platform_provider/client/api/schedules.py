"""Action schedules (spec 2.1, 4.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.schedules import schedule_body

_DEFINITION = ("end_after", "week_day", "month_day", "extra")


class ScheduleApi(ApiBase):
    def _schedule_body(self, args: Mapping[str, Any]) -> dict[str, Any]:
        """The request body from a create or update call's arguments, in the connection's time zone."""
        return schedule_body(
            args["schedule_type"],
            args["run_at"],
            args["start_from"],
            **{name: args[name] for name in _DEFINITION},
            platform_timezone=self._timezone(),
        )

    def list_schedules(self, action_id: int | str, *, account_id: int | None = None) -> list[dict[str, Any]]:
        return self._many("list_schedules", account_id=account_id, action_id=action_id)

    def get_schedule(
        self, action_id: int | str, schedule_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        return self._one("get_schedule", account_id=account_id, action_id=action_id, schedule_id=schedule_id)

    def create_schedule(
        self,
        action_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        *,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Create a schedule on an action; see ``schedule_body`` for the accepted values."""
        body = self._schedule_body(locals())
        return self._create("create_schedule", body, once, account_id, action_id=action_id)

    def update_schedule(
        self,
        action_id: int | str,
        schedule_id: int | str,
        schedule_type: int | str,
        run_at: Any,
        start_from: Any,
        *,
        end_after: Any = None,
        week_day: Any = None,
        month_day: Any = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Replace a schedule's definition (the PUT carries the whole schedule request)."""
        body = self._schedule_body(locals())
        return self._one(
            "update_schedule", account_id=account_id, action_id=action_id, schedule_id=schedule_id, body=body
        )

    def delete_schedule(
        self, action_id: int | str, schedule_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete(
            "delete_schedule", missing_ok, account_id=account_id, action_id=action_id, schedule_id=schedule_id
        )
