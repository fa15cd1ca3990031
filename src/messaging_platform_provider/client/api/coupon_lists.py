"""External coupon lists (spec 4.1; fields from the platform facts)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import ExternalCouponListFields, ExternalCouponListOptions
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.fields import to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations


class CouponListApi(ApiBase):
    def list_external_coupon_lists(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The account's external coupon list definitions (without their codes)."""
        return self._many(Operations.list_external_coupon_lists, account_id=account_id)

    def get_external_coupon_list(self, coupon_list_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One external coupon list definition."""
        return self._one(Operations.get_external_coupon_list, account_id=account_id, coupon_list_id=coupon_list_id)

    def create_external_coupon_list(
        self,
        name: str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[ExternalCouponListOptions],
    ) -> dict[str, Any]:
        """Create a list definition and insert ``coupon_codes`` (duplicates dropped, each at most 100 chars)."""
        body = to_wire(ExternalCouponListFields, {"name": name, **options}, extra, required=("name",))
        return self._create(Operations.create_external_coupon_list, body, once, account_id)

    def update_external_coupon_list(
        self,
        coupon_list_id: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **fields: Unpack[ExternalCouponListFields],
    ) -> dict[str, Any]:
        """Change the list's fields given and add ``coupon_codes`` to it."""
        body = to_wire(ExternalCouponListFields, fields, extra)
        if not body:
            raise MessagingPlatformValidationError("body", "update_external_coupon_list needs a field or codes")
        return self._one(
            Operations.update_external_coupon_list, account_id=account_id, coupon_list_id=coupon_list_id, body=body
        )

    def delete_external_coupon_list(
        self, coupon_list_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Delete a list and its codes; ``True`` if it was there, ``False`` if already gone (``missing_ok``)."""
        return self._delete(
            Operations.delete_external_coupon_list, missing_ok, account_id=account_id, coupon_list_id=coupon_list_id
        )

    def list_external_coupon_codes(
        self, coupon_list_id: int | str, *, account_id: int | None = None
    ) -> list[dict[str, Any]]:
        """The codes of a list (``CouponCode``, ``ContactId`` of whoever received it, ...)."""
        return self._many(Operations.list_external_coupon_codes, account_id=account_id, coupon_list_id=coupon_list_id)

    def get_external_coupon_code(
        self, coupon_list_id: int | str, coupon_code: str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        """One code of a list: whether it was handed out, and to which contact (``ContactId``)."""
        return self._one(
            Operations.get_external_coupon_code,
            account_id=account_id,
            coupon_list_id=coupon_list_id,
            coupon_code=coupon_code,
        )

    def delete_external_coupon_code(
        self, coupon_list_id: int | str, coupon_code: str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Delete one code from a list; ``True`` if it was there."""
        return self._delete(
            Operations.delete_external_coupon_code,
            missing_ok,
            account_id=account_id,
            coupon_list_id=coupon_list_id,
            coupon_code=coupon_code,
        )
