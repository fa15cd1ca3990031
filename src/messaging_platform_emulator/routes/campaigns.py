"""/account/{accountId}/campaign routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ..odata import FILTER, SKIP, TOP
from .declare import route
from .deps import EmulatorDep, KeyDep, ODataDep, listing, odata_options

router = APIRouter(tags=["campaigns"])
BASE = "/account/{account_id}/campaign"
ITEM = BASE + "/{campaign_id}"


@router.get(BASE)
@odata_options(FILTER, TOP, SKIP)
async def list_campaigns(
    account_id: int,
    key: KeyDep,
    emulator: EmulatorDep,
    options: ODataDep,
    only_mine: Annotated[bool, Query(alias="onlyMine")] = False,
) -> Response:
    """OData options are read as text and checked by the service, after the account (404 before 400)."""
    return listing(emulator.campaigns.list(key, account_id, only_mine, options))


route(router, "GET", ITEM, "get_campaign", lambda emulator: emulator.campaigns.get)
route(router, "POST", BASE, "create_campaign", lambda emulator: emulator.campaigns.create, body=True, status_code=201)
route(router, "PUT", ITEM, "update_campaign", lambda emulator: emulator.campaigns.update, body=True)
route(router, "DELETE", ITEM, "delete_campaign", lambda emulator: emulator.campaigns.delete)
