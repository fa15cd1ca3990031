"""Operators for external coupon lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import ExternalCouponListFields, ExternalCouponListOptions
from messaging_platform_provider.client.fields import keys
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    BASE_TEMPLATE_FIELDS,
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.templated import Templated

__all__ = [
    "MessagingPlatformCreateExternalCouponListOperator",
    "MessagingPlatformDeleteExternalCouponCodeOperator",
    "MessagingPlatformDeleteExternalCouponListOperator",
    "MessagingPlatformGetExternalCouponCodeOperator",
    "MessagingPlatformGetExternalCouponListOperator",
    "MessagingPlatformListExternalCouponCodesOperator",
    "MessagingPlatformListExternalCouponListsOperator",
    "MessagingPlatformUpdateExternalCouponListOperator",
]


class MessagingPlatformListExternalCouponListsOperator(MessagingPlatformBaseOperator):
    """List the account's external coupon lists; returns the list."""

    operation = Operations.list_external_coupon_lists

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.list_external_coupon_lists(account_id=self.account)


class MessagingPlatformGetExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Get one external coupon list; returns it. ``coupon_list_id`` is templated."""

    operation = Operations.get_external_coupon_list
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.get_external_coupon_list(self.coupon_list_id, account_id=self.account)


class MessagingPlatformCreateExternalCouponListOperator(MessagingPlatformCreateOperator):
    """
    Create an external coupon list with its codes; returns the list (codes are counted, not echoed). Templated.

    :param coupon_codes: codes to insert (any iterable of strings; duplicates dropped, at most 100 chars each).
    :param idempotent: a retry finds the list by a run marker appended to ``Description``.
    """

    operation = Operations.create_external_coupon_list
    template_fields = (*BASE_TEMPLATE_FIELDS, *keys(ExternalCouponListFields), "extra")

    def __init__(
        self,
        *,
        name: Templated[str],
        description: Templated[str] | None = None,
        inheritable: Templated[bool] | None = None,
        coupon_codes: Templated[Iterable[str]] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.name = name
        self.description = description
        self.inheritable = inheritable
        self.coupon_codes = coupon_codes
        self.extra = extra

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        options = self.declared_values(ExternalCouponListOptions)
        return hook.create_external_coupon_list(
            self.name, extra=self.extra, once=self.once(context), account_id=self.account, **options
        )


class MessagingPlatformUpdateExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Change a list's fields and add ``coupon_codes`` to it; returns the list. Templated."""

    operation = Operations.update_external_coupon_list
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id", *keys(ExternalCouponListFields), "extra")

    def __init__(
        self,
        *,
        coupon_list_id: Templated[int],
        name: Templated[str] | None = None,
        description: Templated[str] | None = None,
        inheritable: Templated[bool] | None = None,
        coupon_codes: Templated[Iterable[str]] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.name = name
        self.description = description
        self.inheritable = inheritable
        self.coupon_codes = coupon_codes
        self.extra = extra

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        fields = self.declared_values(ExternalCouponListFields)
        return hook.update_external_coupon_list(
            self.coupon_list_id, extra=self.extra, account_id=self.account, **fields
        )


class MessagingPlatformDeleteExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Delete a list with its codes; returns ``True``, or ``False`` if it was already gone."""

    operation = Operations.delete_external_coupon_list
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.missing_ok = missing_ok

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.delete_external_coupon_list(
            self.coupon_list_id, missing_ok=self.missing_ok, account_id=self.account
        )


class MessagingPlatformListExternalCouponCodesOperator(MessagingPlatformBaseOperator):
    """List the codes of an external coupon list; returns the list. ``coupon_list_id`` is templated."""

    operation = Operations.list_external_coupon_codes
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.list_external_coupon_codes(self.coupon_list_id, account_id=self.account)


class MessagingPlatformGetExternalCouponCodeOperator(MessagingPlatformBaseOperator):
    """Get one code of a list (whether it was handed out, and to whom); returns it. Templated."""

    operation = Operations.get_external_coupon_code
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id", "coupon_code")

    def __init__(self, *, coupon_list_id: Templated[int], coupon_code: Templated[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.coupon_code = coupon_code

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.get_external_coupon_code(self.coupon_list_id, self.coupon_code, account_id=self.account)


class MessagingPlatformDeleteExternalCouponCodeOperator(MessagingPlatformBaseOperator):
    """Delete one code from a list; returns ``True``, or ``False`` if it was already gone. Templated."""

    operation = Operations.delete_external_coupon_code
    template_fields = (*BASE_TEMPLATE_FIELDS, "coupon_list_id", "coupon_code")

    def __init__(
        self, *, coupon_list_id: Templated[int], coupon_code: Templated[str], missing_ok: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.coupon_code = coupon_code
        self.missing_ok = missing_ok

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.delete_external_coupon_code(
            self.coupon_list_id, self.coupon_code, missing_ok=self.missing_ok, account_id=self.account
        )
