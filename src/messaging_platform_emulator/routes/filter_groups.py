"""/account/{accountId}/contactlist/{contactListId}/group routes."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["filter groups"])
BASE = "/account/{account_id}/contactlist/{contact_list_id}/group"
ITEM = BASE + "/{group_id}"

route(router, "GET", BASE, "list_filter_groups", lambda emulator: emulator.filter_groups.list, many=True)
route(router, "GET", ITEM, "get_filter_group", lambda emulator: emulator.filter_groups.get)
route(router, "PUT", ITEM, "update_filter_group", lambda emulator: emulator.filter_groups.update, body=True)
