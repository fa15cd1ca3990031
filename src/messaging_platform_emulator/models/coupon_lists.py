"""External coupon lists and their codes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .base import Audit, optional_timestamp

MAX_COUPON_CODE_LENGTH = 100


@dataclass
class ExternalCouponCode:
    id: int
    account_id: int
    list_id: int
    coupon_code: str
    created: datetime
    contact_id: int | None = None
    reservation_token: str | None = None

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "ListId": self.list_id,
            "ContactId": self.contact_id,
            "CouponCode": self.coupon_code,
            "Created": optional_timestamp(self.created),
            "ReservationToken": self.reservation_token,
        }


@dataclass
class ExternalCouponList:
    id: int
    account_id: int
    name: str
    audit: Audit
    description: str | None = None
    inheritable: bool = False
    codes: dict[str, ExternalCouponCode] = field(default_factory=dict, repr=False)  # by code, in insertion order

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "Name": self.name,
            "Description": self.description,
            "Inheritable": self.inheritable,
            "TotalCodesAvailable": len(self.codes),
            **self.audit.to_api(),
        }
