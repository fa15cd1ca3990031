"""/account/{accountId}/action-pushvoicecall routes."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["push voice calls"])
BASE = "/account/{account_id}/action-pushvoicecall"
ITEM = BASE + "/{action_id}"

route(router, "GET", BASE, "list_push_voice_calls", lambda emulator: emulator.voice_calls.list, many=True)
route(router, "GET", ITEM, "get_push_voice_call", lambda emulator: emulator.voice_calls.get)
route(
    router,
    "POST",
    BASE,
    "create_push_voice_call",
    lambda emulator: emulator.voice_calls.create,
    body=True,
    status_code=201,
)
route(router, "DELETE", ITEM, "delete_push_voice_call", lambda emulator: emulator.voice_calls.delete)
