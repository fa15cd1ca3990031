"""/account/{accountId}/action-pushvoicecall routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, listing, ok

router = APIRouter(tags=["push voice calls"])
BASE = "/account/{account_id}/action-pushvoicecall"


@router.get(BASE)
async def list_voice_calls(account_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.voice_calls.list(key, account_id))


@router.get(BASE + "/{action_id}")
async def get_voice_call(account_id: int, action_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.voice_calls.get(key, account_id, action_id))


@router.post(BASE, status_code=201)
async def create_voice_call(account_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.voice_calls.create(key, account_id, body), 201)


@router.delete(BASE + "/{action_id}")
async def delete_voice_call(account_id: int, action_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.voice_calls.delete(key, account_id, action_id))
