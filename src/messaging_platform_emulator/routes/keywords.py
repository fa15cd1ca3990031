"""/account/{accountId}/channel/{channel}/keyword routes: read a keyword, attach it to a campaign."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from .deps import BodyDep, KeyDep, PathText, StateDep, ok

router = APIRouter(tags=["keywords"])
ITEM = "/account/{account_id}/channel/{channel}/keyword/{keyword}"


@router.get(ITEM)
async def get_keyword(account_id: int, channel: PathText, keyword: PathText, key: KeyDep, state: StateDep) -> Response:
    return ok(state.keywords.get(key, account_id, channel, keyword))


@router.post(ITEM + "/campaign")
async def attach_keyword_campaign(
    account_id: int, channel: PathText, keyword: PathText, key: KeyDep, body: BodyDep, state: StateDep
) -> Response:
    """Body: the campaign id as a bare JSON integer, e.g. ``3001``."""
    return ok(state.keywords.attach_campaign(key, account_id, channel, keyword, body))
