"""Coupon redemption routes: redeem a code (``event-redeemcoupon``) and a campaign's redemption counts."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, ok

router = APIRouter(tags=["coupon redemptions"])


@router.get("/account/{account_id}/campaign/{campaign_id}/coupon/redemptions")
async def get_coupon_redemptions(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.coupon_redemptions.details(key, account_id, campaign_id))


@router.post("/account/{account_id}/event-redeemcoupon")
async def redeem_coupon(
    account_id: int,
    key: KeyDep,
    body: BodyDep,
    state: StateDep,
    contact_id: Annotated[str | None, Query(alias="contactId")] = None,
) -> Response:
    """Body: the code as a bare JSON string. ``contactId`` (optional, an emulator choice) names the customer.

    ``contactId`` is read as text and checked by the service, after the account (404 before 400).
    """
    return ok(state.coupon_redemptions.redeem(key, account_id, body, contact_id))
