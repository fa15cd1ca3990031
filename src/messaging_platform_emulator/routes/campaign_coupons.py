"""/account/{accountId}/campaign/{campaignId}/coupon routes: the campaign's coupon (the platform's coupon
definition): GET, PUT (create or replace), POST (create)."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["campaign coupons"])
PATH = "/account/{account_id}/campaign/{campaign_id}/coupon"

route(router, "GET", PATH, "get_campaign_coupon", lambda emulator: emulator.campaign_coupons.get)
route(router, "PUT", PATH, "update_campaign_coupon", lambda emulator: emulator.campaign_coupons.update, body=True)
route(
    router,
    "POST",
    PATH,
    "create_campaign_coupon",
    lambda emulator: emulator.campaign_coupons.create,
    body=True,
    status_code=201,
    doc="Facts §8.2: POST creates the coupon definition (201); 400 PropertyAlreadyInUse when the campaign has one.",
)
