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
from typing import TYPE_CHECKING, Any

from ..errors import PROPERTY_INVALID_VALUE, ErrorDetail, PlatformError, not_found
from ..models import (
    COUPON_EXPIRED,
    COUPON_EXTERNAL,
    COUPON_LIMIT_REACHED,
    COUPON_NOT_FOUND,
    COUPON_NOT_STARTED,
    COUPON_REDEEMED,
    COUPON_STATIC,
    CouponDefinition,
    Redemption,
    optional_timestamp,
)
from ..validation import parse_json_string
from .access import find_campaign, require_account, require_campaign

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "CouponRedemption"
DEFINITION_OBJECT_TYPE = "CouponDefinition"
CONTACT_OBJECT_TYPE = "Contact"
CODE_NAME = "CouponCode"
CONTACT_PARAMETER = "contactId"


class CouponRedemptionService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def details(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        """The campaign's redemption counts; 404 ``CouponDefinition`` when it has no definition."""
        with self._state.lock:
            campaign = require_campaign(self._state, key, account_id, campaign_id)
            if campaign.id not in self._state.tables.coupon_definitions:
                raise not_found(DEFINITION_OBJECT_TYPE, campaign_id)
            counts = dict.fromkeys(
                (COUPON_REDEEMED, COUPON_NOT_STARTED, COUPON_EXPIRED, COUPON_LIMIT_REACHED, COUPON_NOT_FOUND), 0
            )
            successful: list[datetime] = []
            for record in self._state.tables.redemptions:
                if record.campaign_id == campaign.id:
                    counts[record.status] += 1
                    if record.status == COUPON_REDEEMED:
                        successful.append(record.created)
            too_early, too_late = counts[COUPON_NOT_STARTED], counts[COUPON_EXPIRED]
            too_many = counts[COUPON_LIMIT_REACHED]
            return {
                "RedemptionCount": counts[COUPON_REDEEMED],
                "TooEarlyCount": too_early,
                "TooLateCount": too_late,
                "TooManyCount": too_many,
                "TotalBadCount": too_early + too_late + too_many,
                "FirstSuccessful": optional_timestamp(min(successful)) if successful else None,
                "LastSuccessful": optional_timestamp(max(successful)) if successful else None,
            }

    def redeem(self, key: ApiKey, account_id: int, raw_body: bytes, contact_text: str | None) -> dict[str, Any]:
        """Redeem the code in the body (a bare JSON string); answers the recorded redemption."""
        with self._state.lock:
            require_account(self._state, key, account_id)
            code = parse_json_string(raw_body, OBJECT_TYPE, CODE_NAME)
            contact_id = self._contact(account_id, contact_text)
            now = self._state.now()
            definition = self._match(account_id, code)
            if definition is None:
                record = Redemption(account_id, None, contact_id, code, COUPON_NOT_FOUND, now)
            else:
                status = self._status(definition, contact_id, now)
                record = Redemption(account_id, definition.campaign_id, contact_id, code, status, now)
            self._state.tables.redemptions.append(record)
            return record.to_api()

    def _contact(self, account_id: int, text: str | None) -> int | None:
        if text is None:
            return None
        if not (text.isascii() and text.isdigit()):
            message = f"{CONTACT_PARAMETER} must be a contact id (a whole number); got {text!r}."
            raise PlatformError(400, [ErrorDetail(PROPERTY_INVALID_VALUE, message, OBJECT_TYPE, CONTACT_PARAMETER)])
        contact_id = int(text)
        if self._state.contacts.find(account_id, contact_id) is None:
            raise not_found(CONTACT_OBJECT_TYPE, contact_id)
        return contact_id

    def _match(self, account_id: int, code: str) -> CouponDefinition | None:
        """The definition the code belongs to, lowest campaign id first, or None."""
        tables = self._state.tables
        for campaign_id in sorted(tables.coupon_definitions):
            definition = tables.coupon_definitions[campaign_id]
            if definition.account_id != account_id or find_campaign(self._state, account_id, campaign_id) is None:
                continue
            fields = definition.fields
            if fields.coupon_type_id == COUPON_STATIC and fields.static_code and fields.static_code == code:
                return definition
            if fields.coupon_type_id == COUPON_EXTERNAL and fields.external_list_id is not None:
                linked = self._state.coupon_lists.find(account_id, fields.external_list_id)
                if linked is not None and code in linked.codes:
                    return definition
        return None

    def _status(self, definition: CouponDefinition, contact_id: int | None, now: datetime) -> int:
        fields = definition.fields
        if fields.valid_from is not None and now < fields.valid_from:
            return COUPON_NOT_STARTED
        if fields.valid_to is not None and now >= fields.valid_to:
            return COUPON_EXPIRED
        if contact_id is not None and fields.max_uses:
            used = sum(
                1
                for r in self._state.tables.redemptions
                if (r.campaign_id, r.contact_id, r.status) == (definition.campaign_id, contact_id, COUPON_REDEEMED)
            )
            if used >= fields.max_uses:
                return COUPON_LIMIT_REACHED
        return COUPON_REDEEMED
