"""Coupon redemption routes: redeem a code (``event-redeemcoupon``) and a campaign's redemption counts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from .declare import route
from .deps import BodyDep, EmulatorDep, KeyDep, ok

router = APIRouter(tags=["coupon redemptions"])

route(
    router,
    "GET",
    "/account/{account_id}/campaign/{campaign_id}/coupon/redemptions",
    "get_coupon_redemption_details",
    lambda emulator: emulator.coupon_redemptions.details,
)


@router.post("/account/{account_id}/event-redeemcoupon")
async def redeem_coupon(
    account_id: int,
    key: KeyDep,
    body: BodyDep,
    emulator: EmulatorDep,
    contact_id: Annotated[str | None, Query(alias="contactId")] = None,
) -> Response:
    """Body: the code as a bare JSON string. ``contactId`` (optional, an emulator choice) names the customer.

    ``contactId`` is read as text and checked by the service, after the account (404 before 400).
    """
    return ok(emulator.coupon_redemptions.redeem(key, account_id, body, contact_id))
