"""Coupon definition rules: the coupon definition of a coupon campaign (CampaignTypeId 4), one per campaign.

The platform's name (``ObjectType`` ``CouponDefinition`` in its errors) is the name everywhere: the provider's
operations (``get_coupon_definition`` …), this service, its routes and its model.

POST creates it (400 PropertyAlreadyInUse when the campaign has one), PUT creates or replaces it (spec 4.4:
the PUT "defines" it), GET reads it. Body (spec 2.4, facts §8.2): CouponTypeId (number, required),
StaticCode (string, required for every type; "" counts as given, but a Static coupon needs a code), the
optional fields typed as spec 2.4 gives them, and Name and Description (facts §8.2).
"""

from __future__ import annotations

from typing import Any

from ..errors import PROPERTY_ALREADY_IN_USE, PROPERTY_INVALID_VALUE, PROPERTY_REQUIRED, ErrorDetail, not_found
from ..models import (
    CAMPAIGN_TYPE_COUPON,
    COUPON_TYPES,
    DEFAULT_MAX_USES,
    VALID_DATE_TYPES,
    ApiKey,
    Audit,
    Campaign,
    CouponDefinition,
    CouponDefinitionFields,
    CouponType,
)
from ..store import Store
from ..validation import Body, parse_json_object
from .access import require_campaign
from .coupon_lists import CouponListInput, CouponListService, read_coupon_list

OBJECT_TYPE = "CouponDefinition"


class CouponDefinitionService:
    def __init__(self, store: Store, coupon_lists: CouponListService) -> None:
        self._store = store
        self._coupon_lists = coupon_lists

    def get(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        with self._store.lock:
            campaign = require_campaign(self._store, key, account_id, campaign_id)
            coupon = self._store.tables.coupon_definitions.get(campaign.id)
            if coupon is None:
                raise not_found(OBJECT_TYPE, campaign_id)
            return self._render(coupon)

    def create(self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes) -> dict[str, Any]:
        """POST: create the coupon definition; 400 PropertyAlreadyInUse (CampaignId) when it already has one."""
        return self._define(key, account_id, campaign_id, raw_body, creating=True)

    def update(self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes) -> dict[str, Any]:
        """PUT: create or replace the coupon definition (spec 4.4: the PUT "defines" it)."""
        return self._define(key, account_id, campaign_id, raw_body, creating=False)

    def _define(
        self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes, *, creating: bool
    ) -> dict[str, Any]:
        """Store the coupon definition; an inline ExternalCouponList is created and linked."""
        with self._store.lock:
            campaign = require_campaign(self._store, key, account_id, campaign_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            fields, inline_list = self._read(body, campaign)
            if creating and campaign.id in self._store.tables.coupon_definitions:
                message = (
                    f"Campaign {campaign.id} already has a coupon definition; change it with PUT "
                    f"/account/{account_id}/campaign/{campaign.id}/coupon."
                )
                body.errors.append(ErrorDetail(PROPERTY_ALREADY_IN_USE, message, OBJECT_TYPE, "CampaignId"))
            body.check()
            assert fields is not None
            if inline_list is not None:
                fields.external_list_id = self._coupon_lists.store(account_id, inline_list, key.principal).id
            now = self._store.now()
            previous = self._store.tables.coupon_definitions.get(campaign.id)
            audit = previous.audit if previous is not None else Audit.new(now, key.principal)
            audit.touch(now, key.principal)
            coupon = CouponDefinition(campaign.id, account_id, fields, audit)
            self._store.tables.coupon_definitions[campaign.id] = coupon
            return self._render(coupon)

    def _render(self, coupon: CouponDefinition) -> dict[str, Any]:
        list_id = coupon.fields.external_list_id
        linked = None if list_id is None else self._coupon_lists.find(coupon.account_id, list_id)
        return coupon.to_api(None if linked is None else linked.to_api())

    def _read(self, body: Body, campaign: Campaign) -> tuple[CouponDefinitionFields | None, CouponListInput | None]:
        """Every field of a PUT body, problems collected in ``body``."""
        if campaign.campaign_type_id != CAMPAIGN_TYPE_COUPON:
            message = (
                f"Campaign {campaign.id} has CampaignTypeId {campaign.campaign_type_id}; "
                f"a coupon definition needs a Coupon campaign (CampaignTypeId {CAMPAIGN_TYPE_COUPON})."
            )
            body.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, "Campaign", "CampaignTypeId"))
        type_id = body.choice("CouponTypeId", COUPON_TYPES, required=True)
        prefix = body.string("Prefix")
        # Required for every type (spec 2.4); "" is a given value (the vendor's .NET SDK sends it for
        # Dynamic and External coupons), null or absent is missing.
        static_code = body.string("StaticCode", required=True, allow_empty=True)
        if type_id == CouponType.STATIC and static_code is not None and not static_code.strip():
            message = "A Static coupon (CouponTypeId 0) needs a StaticCode that is not empty."
            body.errors.append(ErrorDetail(PROPERTY_REQUIRED, message, OBJECT_TYPE, "StaticCode"))
        external_id1, external_id2 = body.string("ExternalId1"), body.string("ExternalId2")
        valid_from, valid_to = body.date_time("ValidFrom"), body.date_time("ValidTo")
        if valid_from is not None and valid_to is not None and valid_to < valid_from:
            body.invalid("ValidTo", "ValidTo must not be before ValidFrom.")
        max_uses = body.number("MaxUses", minimum=0)
        date_type_id = body.choice("ValidDateTypeId", VALID_DATE_TYPES)
        rolling_days = body.integer("ValidRollingDays", minimum=1)
        rolling_offset = body.integer("ValidRollingOffSet")
        list_id, inline_list = self._read_list(body, campaign.account_id)
        name, description = body.string("Name"), body.string("Description")
        body.ignore("CampaignId", "AccountId", "Created", "Modified")
        if type_id is None or static_code is None:
            return None, None
        fields = CouponDefinitionFields(
            coupon_type_id=type_id,
            prefix=prefix,
            static_code=static_code,
            external_id1=external_id1,
            external_id2=external_id2,
            valid_from=valid_from,
            valid_to=valid_to,
            max_uses=DEFAULT_MAX_USES if max_uses is None else max_uses,
            valid_date_type_id=date_type_id,
            valid_rolling_days=rolling_days,
            valid_rolling_offset=rolling_offset,
            external_list_id=list_id,
            name=name,
            description=description,
        )
        return fields, inline_list

    def _read_list(self, body: Body, account_id: int) -> tuple[int | None, CouponListInput | None]:
        """ExternalListId (an existing list of the account) or ExternalCouponList (a list to create), not both.

        Both are optional (spec 2.4), also for an External coupon, which then has no codes to redeem.
        """
        list_id = body.integer("ExternalListId")
        if list_id is not None and self._coupon_lists.find(account_id, list_id) is None:
            body.invalid("ExternalListId", f"ExternalListId {list_id} is not an external coupon list of the account.")
        nested = body.nested("ExternalCouponList", "ExternalCouponList")
        inline_list = None if nested is None else read_coupon_list(nested, creating=True)
        if body.raw("ExternalListId") is not None and body.raw("ExternalCouponList") is not None:
            body.invalid("ExternalCouponList", "Give either ExternalListId or ExternalCouponList, not both.")
        return list_id, inline_list
