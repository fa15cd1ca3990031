"""/account/{accountId}/api-key routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, listing, ok

router = APIRouter(tags=["API keys"])
BASE = "/account/{account_id}/api-key"


@router.get(BASE)
async def list_api_keys(account_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.api_keys.list(key, account_id))


@router.get(BASE + "/{key_id}")
async def get_api_key(account_id: int, key_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.api_keys.get(key, account_id, key_id))


@router.post(BASE, status_code=201)
async def create_api_key(account_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.api_keys.create(key, account_id, body), 201)


@router.put(BASE + "/{key_id}")
async def rotate_api_key_secret(account_id: int, key_id: int, key: KeyDep, state: StateDep) -> Response:
    """No body: the platform generates the new secret (a body, if sent, is ignored)."""
    return ok(state.api_keys.rotate(key, account_id, key_id))


@router.delete(BASE + "/{key_id}")
async def revoke_api_key(account_id: int, key_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.api_keys.revoke(key, account_id, key_id))
