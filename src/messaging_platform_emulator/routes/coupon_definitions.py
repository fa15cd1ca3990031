"""/account/{accountId}/campaign/{campaignId}/coupon routes."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from .deps import KeyDep, StateDep, ok

router = APIRouter(tags=["coupon definitions"])
PATH = "/account/{account_id}/campaign/{campaign_id}/coupon"


@router.get(PATH)
async def get_coupon_definition(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.coupon_definitions.get(key, account_id, campaign_id))


@router.put(PATH)
async def put_coupon_definition(
    account_id: int, campaign_id: int, request: Request, key: KeyDep, state: StateDep
) -> Response:
    return ok(state.coupon_definitions.put(key, account_id, campaign_id, await request.body()))
