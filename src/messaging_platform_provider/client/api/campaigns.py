"""Campaigns and their coupon definition (spec 2.3, 2.4, 4.4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.api.base import ApiBase, fields_to_body
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.values import (
    enum_value,
    filter_expression,
    format_datetime,
    platform_datetime,
)

CAMPAIGN_TYPES = {"Gateway": 0, "Basic": 1, "Dialog": 2, "Question": 3, "Coupon": 4, "Sweepstakes": 5, "Chat": 6}
COUPON_TYPES = {"Static": 0, "Dynamic": 1, "External": 2}
VALID_DATE_TYPES = {"None": 0, "Static": 1, "Rolling": 2}

CAMPAIGN_FIELDS = {
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
COUPON_FIELDS = {
    "coupon_type": "CouponTypeId",
    "static_code": "StaticCode",
    "prefix": "Prefix",
    "external_id1": "ExternalId1",
    "external_id2": "ExternalId2",
    "valid_from": "ValidFrom",
    "valid_to": "ValidTo",
    "max_uses": "MaxUses",
    "valid_date_type": "ValidDateTypeId",
    "valid_rolling_days": "ValidRollingDays",
    "valid_rolling_offset": "ValidRollingOffSet",
    "external_list_id": "ExternalListId",
    "external_coupon_list": "ExternalCouponList",
    "name": "Name",
    "description": "Description",
}


def campaign_body(fields: Mapping[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    body = fields_to_body(fields, CAMPAIGN_FIELDS, None)
    if "CampaignTypeId" in body:
        body["CampaignTypeId"] = enum_value("CampaignTypeId", body["CampaignTypeId"], CAMPAIGN_TYPES)
    if "Name" in body and not str(body["Name"]).strip():
        raise MessagingPlatformValidationError("Name", "must not be empty")
    if "ContentId" in body and "Content" in body:
        raise MessagingPlatformValidationError("ContentId", "give ContentId or Content, not both")
    body.update(extra or {})
    return body


def coupon_body(fields: Mapping[str, Any], extra: Mapping[str, Any] | None, platform_timezone: str) -> dict[str, Any]:
    """
    The coupon definition, checked: a code for Static, a list for External, days for Rolling.

    ``StaticCode`` is a required field of every definition, whatever its type: Dynamic and External coupons
    carry it as an empty string (the platform refuses a definition without it).
    """
    body = fields_to_body(fields, COUPON_FIELDS, None)
    kind = enum_value("CouponTypeId", body.get("CouponTypeId"), COUPON_TYPES)
    body["CouponTypeId"] = kind
    if kind == COUPON_TYPES["Static"] and not str(body.get("StaticCode") or "").strip():
        raise MessagingPlatformValidationError("StaticCode", "is required for a Static coupon")
    body.setdefault("StaticCode", "")
    if kind == COUPON_TYPES["External"] and body.get("ExternalListId") is None and not body.get("ExternalCouponList"):
        raise MessagingPlatformValidationError(
            "ExternalListId", "an External coupon needs ExternalListId or ExternalCouponList"
        )
    if "ValidDateTypeId" in body:
        body["ValidDateTypeId"] = enum_value("ValidDateTypeId", body["ValidDateTypeId"], VALID_DATE_TYPES)
        if body["ValidDateTypeId"] == VALID_DATE_TYPES["Rolling"] and not body.get("ValidRollingDays"):
            raise MessagingPlatformValidationError("ValidRollingDays", "is required when ValidDateTypeId is Rolling")
    for name in ("MaxUses", "ValidRollingDays"):
        value = body.get(name)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise MessagingPlatformValidationError(name, f"must be a whole number of at least 0, got {value!r}")
    moments = {n: platform_datetime(body[n], n, platform_timezone) for n in ("ValidFrom", "ValidTo") if n in body}
    if len(moments) == 2 and moments["ValidTo"] < moments["ValidFrom"]:
        raise MessagingPlatformValidationError("ValidTo", "is before ValidFrom")
    body.update({n: format_datetime(m) for n, m in moments.items()})
    body.update(extra or {})
    return body


class CampaignApi(ApiBase):
    def list_campaigns(
        self, only_mine: bool | None = None, *, odata_filter: str | None = None, account_id: int | None = None
    ) -> list[dict[str, Any]]:
        """
        The account's campaigns. ``only_mine``: the ``onlyMine`` option; ``odata_filter``: an OData ``$filter``
        expression over the campaign's fields, e.g. ``"(IsDefault eq true) and (CampaignTypeId eq 1)"``.
        """
        query = {"onlyMine": only_mine, "$filter": filter_expression("odata_filter", odata_filter)}
        return self._many("list_campaigns", account_id=account_id, query=query)

    def get_campaign(self, campaign_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        return self._one("get_campaign", account_id=account_id, campaign_id=campaign_id)

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
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Create a campaign. ``campaign_type``: a name of ``CAMPAIGN_TYPES`` or its number."""
        body = campaign_body(locals(), extra)
        return self._create("create_campaign", body, once, account_id)

    def update_campaign(
        self,
        campaign_id: int | str,
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
        body = campaign_body(locals(), extra)
        if not body:
            raise MessagingPlatformValidationError("body", "update_campaign needs at least one field to change")
        return self._one("update_campaign", account_id=account_id, campaign_id=campaign_id, body=body)

    def delete_campaign(
        self, campaign_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete("delete_campaign", missing_ok, account_id=account_id, campaign_id=campaign_id)

    def get_campaign_coupon(self, campaign_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """The coupon definition of a coupon campaign."""
        return self._one("get_campaign_coupon", account_id=account_id, campaign_id=campaign_id)

    def get_campaign_coupon_redemptions(
        self, campaign_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        """Redemption counts of a coupon campaign (``RedemptionCount``, ``TotalBadCount``, ...)."""
        return self._one("get_campaign_coupon_redemptions", account_id=account_id, campaign_id=campaign_id)

    def create_campaign_coupon(
        self,
        campaign_id: int | str,
        coupon_type: int | str,
        *,
        static_code: str | None = None,
        prefix: str | None = None,
        external_id1: str | None = None,
        external_id2: str | None = None,
        valid_from: Any = None,
        valid_to: Any = None,
        max_uses: int | None = None,
        valid_date_type: int | str | None = None,
        valid_rolling_days: int | None = None,
        valid_rolling_offset: int | None = None,
        external_list_id: int | None = None,
        external_coupon_list: Mapping[str, Any] | None = None,
        name: str | None = None,
        description: str | None = None,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """
        Give a coupon campaign its coupon definition (the platform refuses a second one: use
        ``update_campaign_coupon`` to change it). Fields as ``update_campaign_coupon``.
        """
        body = coupon_body(locals(), extra, self._timezone())
        return self._create("create_campaign_coupon", body, once, account_id, campaign_id=campaign_id)

    def update_campaign_coupon(
        self,
        campaign_id: int | str,
        coupon_type: int | str,
        *,
        static_code: str | None = None,
        prefix: str | None = None,
        external_id1: str | None = None,
        external_id2: str | None = None,
        valid_from: Any = None,
        valid_to: Any = None,
        max_uses: int | None = None,
        valid_date_type: int | str | None = None,
        valid_rolling_days: int | None = None,
        valid_rolling_offset: int | None = None,
        external_list_id: int | None = None,
        external_coupon_list: Mapping[str, Any] | None = None,
        name: str | None = None,
        description: str | None = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any] | None:
        """
        Set the coupon definition of a coupon campaign. ``coupon_type``: Static, Dynamic, External (or 0, 1, 2);
        ``valid_date_type``: None, Static, Rolling (or 0, 1, 2). ``static_code`` is required for Static and sent as
        ``""`` for the other types; ``name`` and ``description`` are labels shown in the platform's UI.
        """
        body = coupon_body(locals(), extra, self._timezone())
        result: dict[str, Any] | None = self.call(
            "update_campaign_coupon", account_id=account_id, campaign_id=campaign_id, body=body
        )
        return result
