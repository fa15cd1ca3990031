"""/account/{accountId}/campaign routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ..odata import FILTER, SKIP, TOP
from .deps import BodyDep, KeyDep, StateDep, listing, odata_options, ok

router = APIRouter(tags=["campaigns"])


@router.get("/account/{account_id}/campaign")
@odata_options(FILTER, TOP, SKIP)
async def list_campaigns(
    account_id: int,
    key: KeyDep,
    state: StateDep,
    only_mine: Annotated[bool, Query(alias="onlyMine")] = False,
    filter_text: Annotated[str | None, Query(alias=FILTER)] = None,
    top: Annotated[str | None, Query(alias=TOP)] = None,
    skip: Annotated[str | None, Query(alias=SKIP)] = None,
) -> Response:
    """OData options are read as text and checked by the service, after the account (404 before 400)."""
    options = {FILTER: filter_text, TOP: top, SKIP: skip}
    return listing(state.campaigns.list(key, account_id, only_mine, options))


@router.get("/account/{account_id}/campaign/{campaign_id}")
async def get_campaign(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.campaigns.get(key, account_id, campaign_id))


@router.post("/account/{account_id}/campaign", status_code=201)
async def create_campaign(account_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.campaigns.create(key, account_id, body), 201)


@router.put("/account/{account_id}/campaign/{campaign_id}")
async def update_campaign(account_id: int, campaign_id: int, key: KeyDep, body: BodyDep, state: StateDep) -> Response:
    return ok(state.campaigns.update(key, account_id, campaign_id, body))


@router.delete("/account/{account_id}/campaign/{campaign_id}")
async def delete_campaign(account_id: int, campaign_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.campaigns.delete(key, account_id, campaign_id))
