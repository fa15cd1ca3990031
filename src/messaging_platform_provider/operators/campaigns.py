"""Operators for campaigns and the coupon definition of a coupon campaign."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import CampaignFields, CampaignOptions, CouponDefinitionOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.operators.links import MessagingPlatformCampaignLink

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreateCouponDefinitionOperator",
    "MessagingPlatformGetCouponDefinitionOperator",
    "MessagingPlatformGetCouponRedemptionDetailsOperator",
    "MessagingPlatformUpdateCouponDefinitionOperator",
    "MessagingPlatformCreateCampaignOperator",
    "MessagingPlatformDeleteCampaignOperator",
    "MessagingPlatformGetCampaignOperator",
    "MessagingPlatformListCampaignsOperator",
    "MessagingPlatformUpdateCampaignOperator",
]


class MessagingPlatformListCampaignsOperator(MessagingPlatformBaseOperator):
    """
    List the account's campaigns; returns the list.

    :param only_mine: ``onlyMine`` query option; ``None`` leaves it to the platform.
    :param odata_filter: an OData ``$filter`` expression (templated), e.g. ``"CampaignTypeId eq 4"``.
    """

    operation = Operations.list_campaigns
    template_fields = ("account_id", "messaging_platform_conn_id", "odata_filter")

    def __init__(
        self, *, only_mine: bool | None = None, odata_filter: Templated[str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.only_mine = only_mine
        self.odata_filter = odata_filter
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_campaigns(
                self.only_mine, odata_filter=self.odata_filter or None, account_id=self.account
            )
        return self.task_result(context, answer)


class MessagingPlatformGetCampaignOperator(MessagingPlatformBaseOperator):
    """Get one campaign; returns it. ``campaign_id`` is templated."""

    operation = Operations.get_campaign
    template_fields = ("account_id", "messaging_platform_conn_id", "campaign_id")

    def __init__(self, *, campaign_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_campaign(self.campaign_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformCreateCampaignOperator(MessagingPlatformCreateOperator):
    """
    Create a campaign; returns it. Every field is templated.

    :param name: campaign name.
    :param campaign_type: Gateway, Basic, Dialog, Question, Coupon, Sweepstakes, Chat, or 0-6.
    :param extra: further request fields, merged on top.
    :param idempotent: a retry finds the campaign by a run marker appended to ``UserData``.
    """

    operation = Operations.create_campaign
    operator_extra_links = (MessagingPlatformCampaignLink(),)
    template_fields = (
        "account_id", "messaging_platform_conn_id", "name", "campaign_type", "subscription_id", "content_id", "content",
        "user_data", "single_use", "single_use_content_id", "links", "is_default", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        name: Templated[str],
        campaign_type: Templated[int],
        subscription_id: Templated[int] | None = None,
        content_id: Templated[int] | None = None,
        content: Templated[Mapping[str, Any]] | None = None,
        user_data: Templated[str] | None = None,
        single_use: Templated[bool] | None = None,
        single_use_content_id: Templated[int] | None = None,
        links: Templated[list[Any]] | None = None,
        is_default: Templated[bool] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.name = name
        self.campaign_type = campaign_type
        self.subscription_id = subscription_id
        self.content_id = content_id
        self.content = content
        self.user_data = user_data
        self.single_use = single_use
        self.single_use_content_id = single_use_content_id
        self.links = links
        self.is_default = is_default
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(CampaignOptions)
            answer = self.hook.create_campaign(
                self.name,
                self.campaign_type,
                extra=self.extra,
                once=self.once(context),
                account_id=self.account,
                **options,
            )
        return self.task_result(context, answer)


class MessagingPlatformUpdateCampaignOperator(MessagingPlatformBaseOperator):
    """Change the given fields of a campaign (``None`` fields are not sent); returns it. Templated."""

    operation = Operations.update_campaign
    template_fields = (
        "account_id", "messaging_platform_conn_id", "campaign_id", "name", "campaign_type", "subscription_id",
        "content_id", "content", "user_data", "single_use", "single_use_content_id", "links", "is_default", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        campaign_id: Templated[int],
        name: Templated[str] | None = None,
        campaign_type: Templated[int] | None = None,
        subscription_id: Templated[int] | None = None,
        content_id: Templated[int] | None = None,
        content: Templated[Mapping[str, Any]] | None = None,
        user_data: Templated[str] | None = None,
        single_use: Templated[bool] | None = None,
        single_use_content_id: Templated[int] | None = None,
        links: Templated[list[Any]] | None = None,
        is_default: Templated[bool] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.name = name
        self.campaign_type = campaign_type
        self.subscription_id = subscription_id
        self.content_id = content_id
        self.content = content
        self.user_data = user_data
        self.single_use = single_use
        self.single_use_content_id = single_use_content_id
        self.links = links
        self.is_default = is_default
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            fields = self.declared_values(CampaignFields)
            answer = self.hook.update_campaign(self.campaign_id, extra=self.extra, account_id=self.account, **fields)
        return self.task_result(context, answer)


class MessagingPlatformDeleteCampaignOperator(MessagingPlatformBaseOperator):
    """
    Delete a campaign; returns ``True`` if it was there, ``False`` if it was already gone.

    :param missing_ok: a campaign already gone is success (default); ``False`` fails the task instead.
    """

    operation = Operations.delete_campaign
    template_fields = ("account_id", "messaging_platform_conn_id", "campaign_id")

    def __init__(self, *, campaign_id: Templated[int], missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.delete_campaign(
                self.campaign_id,
                missing_ok=self.missing_ok,
                account_id=self.account,
            )
        return self.task_result(context, answer)


class _CouponDefinitionOperator(MessagingPlatformBaseOperator):
    """The fields of a coupon definition, shared by its create and update operators (documented on the update)."""

    template_fields = (
        "account_id", "messaging_platform_conn_id", "campaign_id", "coupon_type", "static_code", "prefix",
        "external_id1", "external_id2", "valid_from", "valid_to", "max_uses", "valid_date_type", "valid_rolling_days",
        "valid_rolling_offset", "external_list_id", "external_coupon_list", "name", "description", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        campaign_id: Templated[int],
        coupon_type: Templated[int],
        static_code: Templated[str] | None = None,
        prefix: Templated[str] | None = None,
        external_id1: Templated[str] | None = None,
        external_id2: Templated[str] | None = None,
        valid_from: Any = None,
        valid_to: Any = None,
        max_uses: Templated[int] | None = None,
        valid_date_type: Templated[int] | None = None,
        valid_rolling_days: Templated[int] | None = None,
        valid_rolling_offset: Templated[int] | None = None,
        external_list_id: Templated[int] | None = None,
        external_coupon_list: Templated[Mapping[str, Any]] | None = None,
        name: Templated[str] | None = None,
        description: Templated[str] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.coupon_type = coupon_type
        self.static_code = static_code
        self.prefix = prefix
        self.external_id1 = external_id1
        self.external_id2 = external_id2
        self.valid_from = valid_from
        self.valid_to = valid_to
        self.max_uses = max_uses
        self.valid_date_type = valid_date_type
        self.valid_rolling_days = valid_rolling_days
        self.valid_rolling_offset = valid_rolling_offset
        self.external_list_id = external_list_id
        self.external_coupon_list = external_coupon_list
        self.name = name
        self.description = description
        self.extra = extra
        self.check_literal_values()


class MessagingPlatformUpdateCouponDefinitionOperator(_CouponDefinitionOperator):
    """
    Set the coupon definition of a coupon campaign; returns the platform's answer. Every field is templated.

    :param coupon_type: Static, Dynamic or External (or 0, 1, 2).
    :param static_code: required for Static; sent as ``""`` for the other types.
    :param external_list_id: an External coupon needs this or ``external_coupon_list``.
    :param valid_date_type: None, Static or Rolling (or 0, 1, 2); Rolling needs ``valid_rolling_days``.
    :param max_uses: how often one code may be redeemed; with the day counts, a whole number (or its template).
    """

    operation = Operations.update_coupon_definition

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(CouponDefinitionOptions)
            answer = self.hook.update_coupon_definition(
                self.campaign_id, self.coupon_type, extra=self.extra, account_id=self.account, **options
            )
        return self.task_result(context, answer)


class MessagingPlatformCreateCouponDefinitionOperator(_CouponDefinitionOperator, MessagingPlatformCreateOperator):
    """
    Give a coupon campaign its coupon definition; returns it. The platform refuses a second definition: change
    one with ``MessagingPlatformUpdateCouponDefinitionOperator``. Fields and their rules as for that operator;
    every field is templated.

    :param idempotent: on Airflow 3.3+ (task state store), a retry after a lost answer adopts the definition an
        earlier try made; without a store the retry gets the platform's refusal, never a second definition.
    """

    operation = Operations.create_coupon_definition

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(CouponDefinitionOptions)
            answer = self.hook.create_coupon_definition(
                self.campaign_id,
                self.coupon_type,
                extra=self.extra,
                once=self.once(context),
                account_id=self.account,
                **options,
            )
        return self.task_result(context, answer)


class MessagingPlatformGetCouponDefinitionOperator(MessagingPlatformBaseOperator):
    """Get the coupon definition of a coupon campaign; returns it. ``campaign_id`` is templated."""

    operation = Operations.get_coupon_definition
    template_fields = ("account_id", "messaging_platform_conn_id", "campaign_id")

    def __init__(self, *, campaign_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_coupon_definition(self.campaign_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetCouponRedemptionDetailsOperator(MessagingPlatformBaseOperator):
    """
    Get the redemption counts of a coupon campaign (``RedemptionCount``, ``TooEarlyCount``, ``TooLateCount``,
    ``TooManyCount``, ``TotalBadCount``, ``FirstSuccessful``, ``LastSuccessful``); returns them. Templated.
    """

    operation = Operations.get_coupon_redemption_details
    template_fields = ("account_id", "messaging_platform_conn_id", "campaign_id")

    def __init__(self, *, campaign_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_coupon_redemption_details(self.campaign_id, account_id=self.account)
        return self.task_result(context, answer)
