"""/account/{accountId}/channel/{channel}/keyword routes: read a keyword, attach it to a campaign."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["keywords"])
ITEM = "/account/{account_id}/channel/{channel}/keyword/{keyword}"
TEXT = ("channel", "keyword")  # a channel id or code, a keyword id or name

route(router, "GET", ITEM, "get_keyword", lambda emulator: emulator.keywords.get, text=TEXT)
route(
    router,
    "POST",
    ITEM + "/campaign",
    "attach_keyword_campaign",
    lambda emulator: emulator.keywords.attach_campaign,
    body=True,
    text=TEXT,
    doc="Body: the campaign id as a bare JSON integer, e.g. ``3001``.",
)
