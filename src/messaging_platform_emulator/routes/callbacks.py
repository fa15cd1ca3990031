"""/account/{accountId}/callback routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, listing, ok

router = APIRouter(tags=["callbacks"])
BASE = "/account/{account_id}/callback"


@router.get(BASE)
async def list_callbacks(account_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.callbacks.list(key, account_id))


@router.get(BASE + "/{callback_id}")
async def get_callback(account_id: int, callback_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.callbacks.get(key, account_id, callback_id))


@router.post(BASE, status_code=201)
async def create_callback(account_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.callbacks.create(key, account_id, body), 201)


@router.put(BASE + "/{callback_id}")
async def update_callback(account_id: int, callback_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.callbacks.update(key, account_id, callback_id, body))


@router.delete(BASE + "/{callback_id}")
async def delete_callback(account_id: int, callback_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.callbacks.delete(key, account_id, callback_id))
