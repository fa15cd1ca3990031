"""Coupon definition rules: one definition per coupon campaign (CampaignTypeId 4), read and replaced by PUT."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import PROPERTY_INVALID_VALUE, ErrorDetail, not_found
from ..models import (
    CAMPAIGN_TYPE_COUPON,
    COUPON_EXTERNAL,
    COUPON_STATIC,
    COUPON_TYPES,
    DEFAULT_MAX_USES,
    VALID_DATE_ROLLING,
    VALID_DATE_TYPES,
    Audit,
    Campaign,
    CouponDefinition,
    CouponFields,
)
from ..validation import Body, parse_json_object
from .access import require_campaign
from .coupon_lists import CouponListInput, read_coupon_list

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "CouponDefinition"


def _allowed(values: dict[int, str]) -> str:
    return ", ".join(f"{number} ({name})" for number, name in values.items())


def _enum(body: Body, name: str, values: dict[int, str], *, required: bool = False) -> int | None:
    number = body.integer(name, required=required)
    if number is not None and number not in values:
        body.invalid(name, f"{name} must be one of {_allowed(values)}; got {number}.")
        return None
    return number


class CouponDefinitionService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def get(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        with self._state.lock:
            campaign = require_campaign(self._state, key, account_id, campaign_id)
            definition = self._state.tables.coupon_definitions.get(campaign.id)
            if definition is None:
                raise not_found(OBJECT_TYPE, campaign_id)
            return self._render(definition)

    def put(self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes) -> dict[str, Any]:
        """Create or replace the campaign's definition; an inline ExternalCouponList is created and linked."""
        with self._state.lock:
            campaign = require_campaign(self._state, key, account_id, campaign_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            fields, inline_list = self._read(body, campaign)
            body.check()
            assert fields is not None
            if inline_list is not None:
                fields.external_list_id = self._state.coupon_lists.store(account_id, inline_list, key.principal).id
            now = self._state.now()
            previous = self._state.tables.coupon_definitions.get(campaign.id)
            audit = previous.audit if previous is not None else Audit.new(now, key.principal)
            audit.touch(now, key.principal)
            definition = CouponDefinition(campaign.id, account_id, fields, audit)
            self._state.tables.coupon_definitions[campaign.id] = definition
            return self._render(definition)

    def _render(self, definition: CouponDefinition) -> dict[str, Any]:
        list_id = definition.fields.external_list_id
        linked = None if list_id is None else self._state.coupon_lists.find(definition.account_id, list_id)
        return definition.to_api(None if linked is None else linked.to_api())

    def _read(self, body: Body, campaign: Campaign) -> tuple[CouponFields | None, CouponListInput | None]:
        """Every field of a PUT body, problems collected in ``body``."""
        if campaign.campaign_type_id != CAMPAIGN_TYPE_COUPON:
            message = (
                f"Campaign {campaign.id} has CampaignTypeId {campaign.campaign_type_id}; "
                f"a coupon definition needs a Coupon campaign (CampaignTypeId {CAMPAIGN_TYPE_COUPON})."
            )
            body.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, "Campaign", "CampaignTypeId"))
        type_id = _enum(body, "CouponTypeId", COUPON_TYPES, required=True)
        prefix = body.string("Prefix")
        static_code = body.string("StaticCode", required=type_id == COUPON_STATIC)
        external_id1, external_id2 = body.string("ExternalId1"), body.string("ExternalId2")
        valid_from, valid_to = body.date_time("ValidFrom"), body.date_time("ValidTo")
        if valid_from is not None and valid_to is not None and valid_to < valid_from:
            body.invalid("ValidTo", "ValidTo must not be before ValidFrom.")
        max_uses = body.integer("MaxUses", minimum=0)
        date_type_id = _enum(body, "ValidDateTypeId", VALID_DATE_TYPES)
        rolling_days = body.integer("ValidRollingDays", required=date_type_id == VALID_DATE_ROLLING, minimum=1)
        rolling_offset = body.integer("ValidRollingOffSet")
        list_id, inline_list = self._read_list(body, campaign.account_id, external=type_id == COUPON_EXTERNAL)
        if type_id is None:
            return None, None
        fields = CouponFields(
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
        )
        return fields, inline_list

    def _read_list(self, body: Body, account_id: int, *, external: bool) -> tuple[int | None, CouponListInput | None]:
        """ExternalListId (an existing list of the account) or ExternalCouponList (a list to create), not both."""
        list_id = body.integer("ExternalListId")
        if list_id is not None and self._state.coupon_lists.find(account_id, list_id) is None:
            body.invalid("ExternalListId", f"ExternalListId {list_id} is not an external coupon list of the account.")
        nested = body.nested("ExternalCouponList", "ExternalCouponList")
        inline_list = None if nested is None else read_coupon_list(nested, creating=True)
        if body.raw("ExternalListId") is not None and body.raw("ExternalCouponList") is not None:
            body.invalid("ExternalCouponList", "Give either ExternalListId or ExternalCouponList, not both.")
        elif external and body.raw("ExternalListId") is None and body.raw("ExternalCouponList") is None:
            body.missing(
                "ExternalListId",
                "An External coupon (CouponTypeId 2) needs ExternalListId or ExternalCouponList.",
            )
        return list_id, inline_list
