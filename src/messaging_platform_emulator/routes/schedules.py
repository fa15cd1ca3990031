"""/account/{accountId}/action/{actionId}/schedule routes."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["action schedules"])
BASE = "/account/{account_id}/action/{action_id}/schedule"
ITEM = BASE + "/{schedule_id}"

route(router, "GET", BASE, "list_schedules", lambda emulator: emulator.schedules.list, many=True)
route(router, "GET", ITEM, "get_schedule", lambda emulator: emulator.schedules.get)
route(router, "POST", BASE, "create_schedule", lambda emulator: emulator.schedules.create, body=True, status_code=201)
route(router, "PUT", ITEM, "update_schedule", lambda emulator: emulator.schedules.update, body=True)
route(router, "DELETE", ITEM, "delete_schedule", lambda emulator: emulator.schedules.delete)
