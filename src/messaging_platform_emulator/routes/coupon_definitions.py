"""/account/{accountId}/campaign/{campaignId}/coupon routes: a coupon campaign's coupon
definition: GET, PUT (create or replace), POST (create)."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["coupon definitions"])
PATH = "/account/{account_id}/campaign/{campaign_id}/coupon"

route(router, "GET", PATH, "get_coupon_definition", lambda emulator: emulator.coupon_definitions.get)
route(router, "PUT", PATH, "update_coupon_definition", lambda emulator: emulator.coupon_definitions.update, body=True)
route(
    router,
    "POST",
    PATH,
    "create_coupon_definition",
    lambda emulator: emulator.coupon_definitions.create,
    body=True,
    status_code=201,
    doc="Facts §8.2: POST creates the coupon definition (201); 400 PropertyAlreadyInUse when the campaign has one.",
)
