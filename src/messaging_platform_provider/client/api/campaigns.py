"""Campaigns and their coupon definition (spec 2.3, 2.4, 4.4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import (
    CampaignFields,
    CampaignOptions,
    CouponDefinitionFields,
    CouponDefinitionOptions,
    campaign_rules,
    coupon_definition_rules,
)
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.fields import extra_fields, to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.values import filter_expression


class CampaignApi(ApiBase):
    def list_campaigns(
        self, only_mine: bool | None = None, *, odata_filter: str | None = None, account_id: int | None = None
    ) -> list[dict[str, Any]]:
        """
        The account's campaigns. ``only_mine``: the ``onlyMine`` option; ``odata_filter``: an OData ``$filter``
        expression over the campaign's fields, e.g. ``"(IsDefault eq true) and (CampaignTypeId eq 1)"``.
        """
        query = {"onlyMine": only_mine, "$filter": filter_expression("odata_filter", odata_filter)}
        return self._many(Operations.list_campaigns, account_id=account_id, query=query)

    def get_campaign(self, campaign_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One campaign."""
        return self._one(Operations.get_campaign, account_id=account_id, campaign_id=campaign_id)

    def create_campaign(
        self,
        name: str,
        campaign_type: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[CampaignOptions],
    ) -> dict[str, Any]:
        """Create a campaign. ``campaign_type``: a name of ``CAMPAIGN_TYPES`` or its number."""
        values = {"name": name, "campaign_type": campaign_type, **options}
        body = campaign_rules(to_wire(CampaignFields, values, None, required=("name", "campaign_type")))
        return self._create(Operations.create_campaign, {**body, **extra_fields(extra)}, once, account_id)

    def update_campaign(
        self,
        campaign_id: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **fields: Unpack[CampaignFields],
    ) -> dict[str, Any]:
        """Change the given fields of a campaign; fields left ``None`` are not sent."""
        body = {**campaign_rules(to_wire(CampaignFields, fields)), **extra_fields(extra)}
        if not body:
            raise MessagingPlatformValidationError("body", "update_campaign needs at least one field to change")
        return self._one(Operations.update_campaign, account_id=account_id, campaign_id=campaign_id, body=body)

    def delete_campaign(
        self, campaign_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Delete a campaign; ``True`` if it was there."""
        return self._delete(Operations.delete_campaign, missing_ok, account_id=account_id, campaign_id=campaign_id)

    def get_coupon_definition(self, campaign_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """The coupon definition of a coupon campaign."""
        return self._one(Operations.get_coupon_definition, account_id=account_id, campaign_id=campaign_id)

    def get_coupon_redemption_details(self, campaign_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """Redemption counts of a coupon campaign (``RedemptionCount``, ``TotalBadCount``, ...)."""
        return self._one(Operations.get_coupon_redemption_details, account_id=account_id, campaign_id=campaign_id)

    def create_coupon_definition(
        self,
        campaign_id: int | str,
        coupon_type: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[CouponDefinitionOptions],
    ) -> dict[str, Any]:
        """
        Give a coupon campaign its coupon definition (the platform refuses a second one: use
        ``update_coupon_definition`` to change it). Fields as ``update_coupon_definition``.
        """
        body = self._coupon_definition_body(coupon_type, options, extra)
        return self._create(Operations.create_coupon_definition, body, once, account_id, campaign_id=campaign_id)

    def update_coupon_definition(
        self,
        campaign_id: int | str,
        coupon_type: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **options: Unpack[CouponDefinitionOptions],
    ) -> dict[str, Any] | None:
        """
        Set the coupon definition of a coupon campaign. ``coupon_type``: Static, Dynamic, External (or 0, 1, 2);
        ``valid_date_type``: None, Static, Rolling (or 0, 1, 2). ``static_code`` is required for Static and sent as
        ``""`` for the other types; ``name`` and ``description`` are labels shown in the platform's UI.
        """
        body = self._coupon_definition_body(coupon_type, options, extra)
        result: dict[str, Any] | None = self.call(
            Operations.update_coupon_definition, account_id=account_id, campaign_id=campaign_id, body=body
        )
        return result

    def _coupon_definition_body(
        self, coupon_type: int | str, options: Mapping[str, Any], extra: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        values = {"coupon_type": coupon_type, **options}
        body = to_wire(CouponDefinitionFields, values, None, self._timezone(), required=("coupon_type",))
        return {**coupon_definition_rules(body), **extra_fields(extra)}
