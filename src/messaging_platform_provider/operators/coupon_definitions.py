"""Operators for the coupon definition of a coupon campaign, and its redemption details."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import CouponDefinitionOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreateCouponDefinitionOperator",
    "MessagingPlatformGetCouponDefinitionOperator",
    "MessagingPlatformGetCouponRedemptionDetailsOperator",
    "MessagingPlatformUpdateCouponDefinitionOperator",
]


class _CouponDefinitionOperator(MessagingPlatformBaseOperator):
    """The fields of a coupon definition, shared by its create and update operators (documented on the update)."""

    template_fields = (
        "account_id",
        "campaign_id",
        "coupon_type",
        "static_code",
        "prefix",
        "external_id1",
        "external_id2",
        "valid_from",
        "valid_to",
        "max_uses",
        "valid_date_type",
        "valid_rolling_days",
        "valid_rolling_offset",
        "external_list_id",
        "external_coupon_list",
        "name",
        "description",
        "extra",
    )

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
    template_fields = ("account_id", "campaign_id")

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
    template_fields = ("account_id", "campaign_id")

    def __init__(self, *, campaign_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.campaign_id = campaign_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_coupon_redemption_details(self.campaign_id, account_id=self.account)
        return self.task_result(context, answer)
