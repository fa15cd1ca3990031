"""
Typed methods for each declared operation, shared by ``MessagingPlatformClient`` and the Airflow hook.

Each method builds its body with the checks of ``values``/``schedules`` and hands it to ``call``, which the
class that mixes this in provides. ``account_id=None`` means the default account of the client or connection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.client.schedules import schedule_body
from messaging_platform_provider.client.values import enum_value

CAMPAIGN_TYPES = {"Gateway": 0, "Basic": 1, "Dialog": 2, "Question": 3, "Coupon": 4, "Sweepstakes": 5, "Chat": 6}

_CAMPAIGN_FIELDS = {
    "name": "Name",
    "campaign_type": "CampaignTypeId",
    "subscription_id": "SubscriptionId",
    "content_id": "ContentId",
    "content": "Content",
    "user_data": "UserData",
    "single_use": "SingleUse",
    "single_use_content_id": "SingleUseContentId",
    "links": "Links",
    "is_default": "IsDefault",
}


def campaign_body(fields: Mapping[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    body = {_CAMPAIGN_FIELDS[k]: v for k, v in fields.items() if v is not None}
    if "CampaignTypeId" in body:
        body["CampaignTypeId"] = enum_value("CampaignTypeId", body["CampaignTypeId"], CAMPAIGN_TYPES)
    if "Name" in body and not str(body["Name"]).strip():
        raise MessagingPlatformValidationError("Name", "must not be empty")
    if "ContentId" in body and "Content" in body:
        raise MessagingPlatformValidationError("ContentId", "give ContentId or Content, not both")
    body.update(extra or {})
    return body


class ApiMethods:
    """One typed method per declared operation."""

    def call(
        self,
        operation: str,
        *,
        account_id: int | None = None,
        body: Any = None,
        query: Mapping[str, Any] | None = None,
        **path_params: Any,
    ) -> Any:
        raise NotImplementedError

    def _timezone(self) -> str:
        return "UTC"

    def _delete(self, operation: str, missing_ok: bool, **kwargs: Any) -> bool:
        """Delete; ``True`` if it was there. With ``missing_ok`` a resource already gone counts as success."""
        try:
            self.call(operation, **kwargs)
        except MessagingPlatformApiError as exc:
            if missing_ok and exc.is_not_found:
                return False
            raise
        return True

    # Campaigns -------------------------------------------------------------------------------------------

    def list_campaigns(self, only_mine: bool | None = None, *, account_id: int | None = None) -> list[Any]:
        result: list[Any] = self.call("list_campaigns", account_id=account_id, query={"onlyMine": only_mine})
        return result

    def get_campaign(self, campaign_id: int, *, account_id: int | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.call("get_campaign", account_id=account_id, campaign_id=campaign_id)
        return result

    def create_campaign(
        self,
        name: str,
        campaign_type: int | str,
        *,
        subscription_id: int | None = None,
        content_id: int | None = None,
        content: Mapping[str, Any] | None = None,
        user_data: str | None = None,
        single_use: bool | None = None,
        single_use_content_id: int | None = None,
        links: list[Any] | None = None,
        is_default: bool | None = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Create a campaign. ``campaign_type``: a name of ``CAMPAIGN_TYPES`` or its number."""
        fields = dict(locals())
        for key in ("self", "extra", "account_id"):
            fields.pop(key)
        body = campaign_body(fields, extra)
        result: dict[str, Any] = self.call("create_campaign", account_id=account_id, body=body)
        return result

    def update_campaign(
        self,
        campaign_id: int,
        *,
        name: str | None = None,
        campaign_type: int | str | None = None,
        subscription_id: int | None = None,
        content_id: int | None = None,
        content: Mapping[str, Any] | None = None,
        user_data: str | None = None,
        single_use: bool | None = None,
        single_use_content_id: int | None = None,
        links: list[Any] | None = None,
        is_default: bool | None = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Change the given fields of a campaign; fields left ``None`` are not sent."""
        fields = dict(locals())
        for key in ("self", "extra", "account_id", "campaign_id"):
            fields.pop(key)
        body = campaign_body(fields, extra)
        if not body:
            raise MessagingPlatformValidationError("body", "update_campaign needs at least one field to change")
        result: dict[str, Any] = self.call("update_campaign", account_id=account_id, campaign_id=campaign_id, body=body)
        return result

    def delete_campaign(self, campaign_id: int, *, missing_ok: bool = True, account_id: int | None = None) -> bool:
        return self._delete("delete_campaign", missing_ok, account_id=account_id, campaign_id=campaign_id)

    # Action schedules ------------------------------------------------------------------------------------

    def list_schedules(self, action_id: int, *, account_id: int | None = None) -> list[Any]:
        result: list[Any] = self.call("list_schedules", account_id=account_id, action_id=action_id)
        return result

    def get_schedule(self, action_id: int, schedule_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.call(
            "get_schedule", account_id=account_id, action_id=action_id, schedule_id=schedule_id
        )
        return result

    def create_schedule(
        self,
        action_id: int,
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
        """Create a schedule on an action; see ``schedule_body`` for the accepted values."""
        body = schedule_body(
            schedule_type,
            run_at,
            start_from,
            end_after=end_after,
            week_day=week_day,
            month_day=month_day,
            platform_timezone=self._timezone(),
            extra=extra,
        )
        result: dict[str, Any] = self.call("create_schedule", account_id=account_id, action_id=action_id, body=body)
        return result

    def update_schedule(
        self,
        action_id: int,
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
        body = schedule_body(
            schedule_type,
            run_at,
            start_from,
            end_after=end_after,
            week_day=week_day,
            month_day=month_day,
            platform_timezone=self._timezone(),
            extra=extra,
        )
        result: dict[str, Any] = self.call(
            "update_schedule", account_id=account_id, action_id=action_id, schedule_id=schedule_id, body=body
        )
        return result

    def delete_schedule(
        self, action_id: int, schedule_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete(
            "delete_schedule", missing_ok, account_id=account_id, action_id=action_id, schedule_id=schedule_id
        )
