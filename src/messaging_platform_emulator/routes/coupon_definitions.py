"""/account/{accountId}/campaign/{campaignId}/coupon routes: GET, PUT (create or replace), POST (create)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, ok

router = APIRouter(tags=["coupon definitions"])
PATH = "/account/{account_id}/campaign/{campaign_id}/coupon"


@router.get(PATH)
async def get_coupon_definition(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.coupon_definitions.get(key, account_id, campaign_id))


@router.put(PATH)
async def put_coupon_definition(
    account_id: int, campaign_id: int, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    return ok(state.coupon_definitions.put(key, account_id, campaign_id, body))


@router.post(PATH, status_code=201)
async def create_coupon_definition(
    account_id: int, campaign_id: int, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    """Facts §8.2: POST creates the definition (201); 400 PropertyAlreadyInUse when the campaign has one."""
    return ok(state.coupon_definitions.create(key, account_id, campaign_id, body), 201)
