"""/account/{accountId}/external-couponlist routes, with the codes of a list."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, PathText, StateDep, listing, ok

router = APIRouter(tags=["external coupon lists"])
BASE = "/account/{account_id}/external-couponlist"
ITEM = BASE + "/{coupon_list_id}"
CODE = ITEM + "/code/{coupon_code}"


@router.get(BASE)
async def list_coupon_lists(account_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.coupon_lists.list(key, account_id))


@router.get(ITEM)
async def get_coupon_list(account_id: int, coupon_list_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.coupon_lists.get(key, account_id, coupon_list_id))


@router.post(BASE, status_code=201)
async def create_coupon_list(account_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.coupon_lists.create(key, account_id, body), 201)


@router.put(ITEM)
async def update_coupon_list(
    account_id: int, coupon_list_id: int, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    return ok(state.coupon_lists.update(key, account_id, coupon_list_id, body))


@router.delete(ITEM)
async def delete_coupon_list(account_id: int, coupon_list_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.coupon_lists.delete(key, account_id, coupon_list_id))


@router.get(ITEM + "/code")
async def list_coupon_codes(account_id: int, coupon_list_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.coupon_lists.list_codes(key, account_id, coupon_list_id))


@router.get(CODE)
async def get_coupon_code(
    account_id: int, coupon_list_id: int, coupon_code: PathText, key: KeyDep, state: StateDep
) -> Response:
    return ok(state.coupon_lists.get_code(key, account_id, coupon_list_id, coupon_code))


@router.delete(CODE)
async def delete_coupon_code(
    account_id: int, coupon_list_id: int, coupon_code: PathText, key: KeyDep, state: StateDep
) -> Response:
    return ok(state.coupon_lists.delete_code(key, account_id, coupon_list_id, coupon_code))
