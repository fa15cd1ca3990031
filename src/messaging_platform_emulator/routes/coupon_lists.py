"""/account/{accountId}/external-couponlist routes, with the codes of a list."""

from __future__ import annotations

from fastapi import APIRouter

from .declare import route

router = APIRouter(tags=["external coupon lists"])
BASE = "/account/{account_id}/external-couponlist"
ITEM = BASE + "/{coupon_list_id}"
CODE = ITEM + "/code/{coupon_code}"

route(router, "GET", BASE, "list_external_coupon_lists", lambda emulator: emulator.coupon_lists.list, many=True)
route(router, "GET", ITEM, "get_external_coupon_list", lambda emulator: emulator.coupon_lists.get)
route(
    router,
    "POST",
    BASE,
    "create_external_coupon_list",
    lambda emulator: emulator.coupon_lists.create,
    body=True,
    status_code=201,
)
route(router, "PUT", ITEM, "update_external_coupon_list", lambda emulator: emulator.coupon_lists.update, body=True)
route(router, "DELETE", ITEM, "delete_external_coupon_list", lambda emulator: emulator.coupon_lists.delete)
route(
    router,
    "GET",
    ITEM + "/code",
    "list_external_coupon_codes",
    lambda emulator: emulator.coupon_lists.list_codes,
    many=True,
)
route(
    router,
    "GET",
    CODE,
    "get_external_coupon_code",
    lambda emulator: emulator.coupon_lists.get_code,
    text=["coupon_code"],
)
route(
    router,
    "DELETE",
    CODE,
    "delete_external_coupon_code",
    lambda emulator: emulator.coupon_lists.delete_code,
    text=["coupon_code"],
)
