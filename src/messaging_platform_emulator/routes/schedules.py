"""/account/{accountId}/action/{actionId}/schedule routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, StateDep, listing, ok

router = APIRouter(tags=["action schedules"])
BASE = "/account/{account_id}/action/{action_id}/schedule"


@router.get(BASE)
async def list_schedules(account_id: int, action_id: int, key: KeyDep, state: StateDep) -> Response:
    return listing(state.schedules.list(key, account_id, action_id))


@router.get(BASE + "/{schedule_id}")
async def get_schedule(account_id: int, action_id: int, schedule_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.schedules.get(key, account_id, action_id, schedule_id))


@router.post(BASE, status_code=201)
async def create_schedule(account_id: int, action_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.schedules.create(key, account_id, action_id, body), 201)


@router.put(BASE + "/{schedule_id}")
async def update_schedule(
    account_id: int, action_id: int, schedule_id: int, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    return ok(state.schedules.update(key, account_id, action_id, schedule_id, body))


@router.delete(BASE + "/{schedule_id}")
async def delete_schedule(account_id: int, action_id: int, schedule_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.schedules.delete(key, account_id, action_id, schedule_id))
