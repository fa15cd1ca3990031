"""/account/{accountId}/campaign routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from .deps import KeyDep, StateDep, listing, ok

router = APIRouter(tags=["campaigns"])


@router.get("/account/{account_id}/campaign")
async def list_campaigns(
    account_id: int,
    key: KeyDep,
    state: StateDep,
    only_mine: Annotated[bool, Query(alias="onlyMine")] = False,
) -> Response:
    return listing(state.campaigns.list(key, account_id, only_mine))


@router.get("/account/{account_id}/campaign/{campaign_id}")
async def get_campaign(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.campaigns.get(key, account_id, campaign_id))


@router.post("/account/{account_id}/campaign", status_code=201)
async def create_campaign(account_id: int, request: Request, key: KeyDep, state: StateDep) -> Response:
    return ok(state.campaigns.create(key, account_id, await request.body()), 201)


@router.put("/account/{account_id}/campaign/{campaign_id}")
async def update_campaign(
    account_id: int, campaign_id: int, request: Request, key: KeyDep, state: StateDep
) -> Response:
    return ok(state.campaigns.update(key, account_id, campaign_id, await request.body()))


@router.delete("/account/{account_id}/campaign/{campaign_id}")
async def delete_campaign(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.campaigns.delete(key, account_id, campaign_id))
