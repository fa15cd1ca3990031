"""/account/{accountId}/contactlist/{contactListId}/group routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, listing, ok

router = APIRouter(tags=["filter groups"])
BASE = "/account/{account_id}/contactlist/{contact_list_id}/group"


@router.get(BASE)
async def list_filter_groups(account_id: int, contact_list_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.filter_groups.list(key, account_id, contact_list_id))


@router.get(BASE + "/{group_id}")
async def get_filter_group(
    account_id: int, contact_list_id: int, group_id: int, key: KeyDep, state: StateDep
) -> Response:
    return ok(state.filter_groups.get(key, account_id, contact_list_id, group_id))


@router.put(BASE + "/{group_id}")
async def update_filter_group(
    account_id: int, contact_list_id: int, group_id: int, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    return ok(state.filter_groups.update(key, account_id, contact_list_id, group_id, body))
