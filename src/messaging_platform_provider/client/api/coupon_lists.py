"""External coupon lists (spec 4.1; fields from the platform facts)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from messaging_platform_provider.client.api.base import ApiBase, fields_to_body
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.values import string_list

COUPON_LIST_FIELDS = {
    "name": "Name",
    "description": "Description",
    "inheritable": "Inheritable",
    "coupon_codes": "CouponCodes",
}
MAX_CODE_LENGTH = 100


def coupon_list_body(fields: Mapping[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    body = fields_to_body(fields, COUPON_LIST_FIELDS, None)
    if "Name" in body and not str(body["Name"]).strip():
        raise MessagingPlatformValidationError("Name", "must not be empty")
    if "CouponCodes" in body:
        body["CouponCodes"] = string_list("CouponCodes", body["CouponCodes"], max_length=MAX_CODE_LENGTH)
    body.update(extra or {})
    return body


class CouponListApi(ApiBase):
    def list_external_coupon_lists(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        return self._many("list_external_coupon_lists", account_id=account_id)

    def get_external_coupon_list(self, coupon_list_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        return self._one("get_external_coupon_list", account_id=account_id, coupon_list_id=coupon_list_id)

    def create_external_coupon_list(
        self,
        name: str,
        *,
        description: str | None = None,
        inheritable: bool | None = None,
        coupon_codes: Iterable[str] | None = None,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Create a list definition and insert ``coupon_codes`` (duplicates dropped, each at most 100 chars)."""
        return self._create("create_external_coupon_list", coupon_list_body(locals(), extra), once, account_id)

    def update_external_coupon_list(
        self,
        coupon_list_id: int | str,
        *,
        name: str | None = None,
        description: str | None = None,
        inheritable: bool | None = None,
        coupon_codes: Iterable[str] | None = None,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Change the list's fields given and add ``coupon_codes`` to it."""
        body = coupon_list_body(locals(), extra)
        if not body:
            raise MessagingPlatformValidationError("body", "update_external_coupon_list needs a field or codes")
        return self._one("update_external_coupon_list", account_id=account_id, coupon_list_id=coupon_list_id, body=body)

    def delete_external_coupon_list(
        self, coupon_list_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete(
            "delete_external_coupon_list", missing_ok, account_id=account_id, coupon_list_id=coupon_list_id
        )

    def list_external_coupon_codes(
        self, coupon_list_id: int | str, *, account_id: int | None = None
    ) -> list[dict[str, Any]]:
        """The codes of a list (``CouponCode``, ``ContactId`` of whoever received it, ...)."""
        return self._many("list_external_coupon_codes", account_id=account_id, coupon_list_id=coupon_list_id)

    def delete_external_coupon_code(
        self, coupon_list_id: int | str, coupon_code: str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        return self._delete(
            "delete_external_coupon_code",
            missing_ok,
            account_id=account_id,
            coupon_list_id=coupon_list_id,
            coupon_code=coupon_code,
        )
