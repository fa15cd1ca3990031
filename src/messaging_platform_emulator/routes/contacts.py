"""/account/{accountId}/contact routes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from ..odata import FILTER, SKIP, TOP
from .declare import route
from .deps import EmulatorDep, KeyDep, ODataDep, long_listing, odata_options

router = APIRouter(tags=["contacts"])
BASE = "/account/{account_id}/contact"


@router.get(BASE)
@odata_options(FILTER, TOP, SKIP)
async def list_contacts(account_id: int, key: KeyDep, emulator: EmulatorDep, options: ODataDep) -> Response:
    """OData options are read as text and checked by the service, after the account (404 before 400)."""
    return long_listing(emulator.contacts.list(key, account_id, options))


route(router, "GET", BASE + "/{contact_id}", "get_contact", lambda emulator: emulator.contacts.get)
route(router, "POST", BASE, "create_contact", lambda emulator: emulator.contacts.create, body=True, status_code=201)
route(router, "PUT", BASE + "/{contact_id}", "update_contact", lambda emulator: emulator.contacts.update, body=True)
