"""Coupon redemption rules (facts §8.2): redeem a code, and count a coupon campaign's redemptions.

A code redeems against the account's live coupon campaigns that have a definition, lowest campaign id first:
a Static definition's ``StaticCode``, or a code of the external coupon list an External definition links
(exact, case-sensitive match). Dynamic definitions have no codes in the emulator. Then, on the emulator clock:
before ``ValidFrom`` → NotStarted (4), from ``ValidTo`` on → Expired (2), and with a contact, when that contact
already redeemed the campaign ``MaxUses`` times (0: unlimited) → LimitReached (3); otherwise Redeemed (0).
A code that matches nothing → NotFound (1), recorded without a campaign. The customer is the optional
``contactId`` query parameter (an emulator choice: the platform's body is only the code); without one the
redemption is anonymous and ``MaxUses``, a per-customer bound, does not apply. ``ValidDateTypeId`` and the
rolling-days fields are stored but not simulated.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..errors import PROPERTY_INVALID_VALUE, ErrorDetail, PlatformError, not_found
from ..models import (
    ApiKey,
    CouponDefinition,
    CouponStatus,
    CouponType,
    Redemption,
    optional_timestamp,
)
from ..request_json import parse_json_string
from ..store import Store
from .access import find_campaign, require_account, require_campaign
from .contacts import ContactService
from .coupon_lists import CouponListService

OBJECT_TYPE = "CouponRedemption"
DEFINITION_OBJECT_TYPE = "CouponDefinition"
CONTACT_OBJECT_TYPE = "Contact"
CODE_NAME = "CouponCode"
CONTACT_PARAMETER = "contactId"


class CouponRedemptionService:
    def __init__(self, store: Store, contacts: ContactService, coupon_lists: CouponListService) -> None:
        self._store = store
        self._contacts = contacts
        self._coupon_lists = coupon_lists

    def details(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        """The campaign's redemption counts; 404 ``CouponDefinition`` when it has no definition."""
        with self._store.lock:
            campaign = require_campaign(self._store, key, account_id, campaign_id)
            if campaign.id not in self._store.tables.coupon_definitions:
                raise not_found(DEFINITION_OBJECT_TYPE, campaign_id)
            counts: dict[int, int] = dict.fromkeys(CouponStatus, 0)
            successful: list[datetime] = []
            for record in self._store.tables.redemptions:
                if record.campaign_id == campaign.id:
                    counts[record.status] += 1
                    if record.status == CouponStatus.REDEEMED:
                        successful.append(record.created)
            too_early, too_late = counts[CouponStatus.NOT_STARTED], counts[CouponStatus.EXPIRED]
            too_many = counts[CouponStatus.LIMIT_REACHED]
            return {
                "RedemptionCount": counts[CouponStatus.REDEEMED],
                "TooEarlyCount": too_early,
                "TooLateCount": too_late,
                "TooManyCount": too_many,
                "TotalBadCount": too_early + too_late + too_many,
                "FirstSuccessful": optional_timestamp(min(successful)) if successful else None,
                "LastSuccessful": optional_timestamp(max(successful)) if successful else None,
            }

    def redeem(self, key: ApiKey, account_id: int, raw_body: bytes, contact_text: str | None) -> dict[str, Any]:
        """Redeem the code in the body (a bare JSON string); answers the recorded redemption."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            code = parse_json_string(raw_body, OBJECT_TYPE, CODE_NAME)
            contact_id = self._contact(account_id, contact_text)
            now = self._store.now()
            coupon = self._match(account_id, code)
            if coupon is None:
                record = Redemption(account_id, None, contact_id, code, CouponStatus.NOT_FOUND, now)
            else:
                status = self._status(coupon, contact_id, now)
                record = Redemption(account_id, coupon.campaign_id, contact_id, code, status, now)
            self._store.tables.redemptions.append(record)
            return record.to_api()

    def _contact(self, account_id: int, text: str | None) -> int | None:
        if text is None:
            return None
        if not (text.isascii() and text.isdigit()):
            message = f"{CONTACT_PARAMETER} must be a contact id (a whole number); got {text!r}."
            raise PlatformError(400, [ErrorDetail(PROPERTY_INVALID_VALUE, message, OBJECT_TYPE, CONTACT_PARAMETER)])
        contact_id = int(text)
        if self._contacts.find(account_id, contact_id) is None:
            raise not_found(CONTACT_OBJECT_TYPE, contact_id)
        return contact_id

    def _match(self, account_id: int, code: str) -> CouponDefinition | None:
        """The coupon definition the code belongs to, lowest campaign id first, or None."""
        coupons = self._store.tables.coupon_definitions
        for campaign_id in sorted(coupons):
            coupon = coupons[campaign_id]
            if coupon.account_id != account_id or find_campaign(self._store, account_id, campaign_id) is None:
                continue
            fields = coupon.fields
            if fields.coupon_type_id == CouponType.STATIC and fields.static_code and fields.static_code == code:
                return coupon
            if fields.coupon_type_id == CouponType.EXTERNAL and fields.external_list_id is not None:
                linked = self._coupon_lists.find(account_id, fields.external_list_id)
                if linked is not None and code in linked.codes:
                    return coupon
        return None

    def _status(self, coupon: CouponDefinition, contact_id: int | None, now: datetime) -> int:
        fields = coupon.fields
        if fields.valid_from is not None and now < fields.valid_from:
            return CouponStatus.NOT_STARTED
        if fields.valid_to is not None and now >= fields.valid_to:
            return CouponStatus.EXPIRED
        if contact_id is not None and fields.max_uses:
            used = sum(
                1
                for r in self._store.tables.redemptions
                if (r.campaign_id, r.contact_id, r.status) == (coupon.campaign_id, contact_id, CouponStatus.REDEEMED)
            )
            if used >= fields.max_uses:
                return CouponStatus.LIMIT_REACHED
        return CouponStatus.REDEEMED
