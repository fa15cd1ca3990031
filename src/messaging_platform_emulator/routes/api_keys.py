"""/account/{accountId}/api-key routes."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["API keys"])
BASE = "/account/{account_id}/api-key"
ITEM = BASE + "/{key_id}"

route(router, "GET", BASE, "list_api_keys", lambda emulator: emulator.api_keys.list, many=True)
route(router, "GET", ITEM, "get_api_key", lambda emulator: emulator.api_keys.get)
route(router, "POST", BASE, "create_api_key", lambda emulator: emulator.api_keys.create, body=True, status_code=201)
route(
    router,
    "PUT",
    ITEM,
    "change_api_key_secret",
    lambda emulator: emulator.api_keys.change_secret,
    doc="No body: the platform generates the new secret (a body, if sent, is ignored).",
)
route(router, "DELETE", ITEM, "revoke_api_key", lambda emulator: emulator.api_keys.revoke)
