"""Campaigns, the coupon definition of a coupon campaign (``CouponDefinition``), and redemptions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import IntEnum
from typing import Any

from .base import STATUS_ACTIVE, STATUS_NAMES, Audit, SoftDeletable, optional_timestamp

# CampaignType (facts §2).
CAMPAIGN_TYPES = {0: "Gateway", 1: "Basic", 2: "Dialog", 3: "Question", 4: "Coupon", 5: "Sweepstakes", 6: "Chat"}
CAMPAIGN_TYPE_COUPON = 4


class CouponType(IntEnum):
    STATIC = 0
    DYNAMIC = 1
    EXTERNAL = 2


# CouponTypeId's values by name, and ValidDateType's (null counts as None).
COUPON_TYPES = {t.value: t.name.title() for t in CouponType}
VALID_DATE_TYPES = {0: "None", 1: "Static", 2: "Rolling"}
DEFAULT_MAX_USES = 1


class CouponStatus(IntEnum):
    """A redemption's CouponStatus (facts §2); anything but REDEEMED is a failure."""

    REDEEMED = 0
    NOT_FOUND = 1
    EXPIRED = 2
    LIMIT_REACHED = 3
    NOT_STARTED = 4


@dataclass
class Campaign(SoftDeletable):
    id: int
    account_id: int
    name: str
    campaign_type_id: int
    audit: Audit
    subscription_id: int | None = None
    content_id: int | None = None
    user_data: str | None = None
    single_use: bool = False
    single_use_content_id: int | None = None
    session: int = 0
    session_length: int = 0
    is_default: bool = False
    status_id: int = STATUS_ACTIVE

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "SubscriptionId": self.subscription_id,
            "Name": self.name,
            "CampaignTypeId": self.campaign_type_id,
            "StatusId": self.status_id,
            "StatusReason": STATUS_NAMES.get(self.status_id, str(self.status_id)),
            "ContentId": self.content_id,
            "Session": self.session,
            "SessionLength": self.session_length,
            "UserData": self.user_data,
            **self.audit.to_api(),
            "SingleUse": self.single_use,
            "SingleUseContentId": self.single_use_content_id,
        }


@dataclass
class CouponDefinitionFields:
    """The client-supplied part of a coupon definition (a PUT carries all of it)."""

    coupon_type_id: int
    static_code: str
    prefix: str | None = None
    external_id1: str | None = None
    external_id2: str | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    max_uses: int | float = DEFAULT_MAX_USES  # spec 2.4 types it as a number; 0 is unlimited
    valid_date_type_id: int | None = None
    valid_rolling_days: int | None = None
    valid_rolling_offset: int | None = None
    external_list_id: int | None = None
    name: str | None = None
    description: str | None = None


@dataclass
class CouponDefinition:
    """The coupon definition of a coupon campaign (the platform's ``CouponDefinition``), one per campaign."""

    campaign_id: int
    account_id: int
    fields: CouponDefinitionFields
    audit: Audit

    def to_api(self, external_list: dict[str, Any] | None) -> dict[str, Any]:
        """``external_list``: the API form of the linked external coupon list, when it still exists."""
        f = self.fields
        return {
            "CampaignId": self.campaign_id,
            "AccountId": self.account_id,
            "CouponTypeId": f.coupon_type_id,
            "Prefix": f.prefix,
            "StaticCode": f.static_code,
            "ExternalId1": f.external_id1,
            "ExternalId2": f.external_id2,
            "ValidFrom": optional_timestamp(f.valid_from),
            "ValidTo": optional_timestamp(f.valid_to),
            "MaxUses": f.max_uses,
            "ValidDateTypeId": f.valid_date_type_id,
            "ValidRollingDays": f.valid_rolling_days,
            "ValidRollingOffSet": f.valid_rolling_offset,
            "ExternalListId": f.external_list_id,
            "ExternalCouponList": external_list,
            "Name": f.name,
            "Description": f.description,
            "Created": optional_timestamp(self.audit.created),
            "Modified": optional_timestamp(self.audit.modified),
        }


@dataclass(frozen=True)
class Redemption:
    """One ``event-redeemcoupon`` attempt; ``campaign_id`` is None when the code matched no coupon campaign."""

    account_id: int
    campaign_id: int | None
    contact_id: int | None
    coupon_code: str
    status: int
    created: datetime

    def to_api(self) -> dict[str, Any]:
        return {
            "CampaignId": self.campaign_id,
            "ContactId": self.contact_id,
            "CouponCode": self.coupon_code,
            "Status": self.status,
            "Created": optional_timestamp(self.created),
        }
