"""/account/{accountId}/callback routes."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["callbacks"])
BASE = "/account/{account_id}/callback"
ITEM = BASE + "/{callback_id}"

route(router, "GET", BASE, "list_callbacks", lambda emulator: emulator.callbacks.list, many=True)
route(router, "GET", ITEM, "get_callback", lambda emulator: emulator.callbacks.get)
route(router, "POST", BASE, "create_callback", lambda emulator: emulator.callbacks.create, body=True, status_code=201)
route(router, "PUT", ITEM, "update_callback", lambda emulator: emulator.callbacks.update, body=True)
route(router, "DELETE", ITEM, "delete_callback", lambda emulator: emulator.callbacks.delete)
