"""/account/{accountId}/contact routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from ..odata import FILTER, SKIP, TOP
from .deps import KeyDep, StateDep, long_listing, odata_options, ok

router = APIRouter(tags=["contacts"])


@router.get("/account/{account_id}/contact")
@odata_options(FILTER, TOP, SKIP)
async def list_contacts(
    account_id: int,
    key: KeyDep,
    state: StateDep,
    filter_text: Annotated[str | None, Query(alias=FILTER)] = None,
    top: Annotated[str | None, Query(alias=TOP)] = None,
    skip: Annotated[str | None, Query(alias=SKIP)] = None,
) -> Response:
    """OData options are read as text and checked by the service, after the account (404 before 400)."""
    return long_listing(state.contacts.list(key, account_id, {FILTER: filter_text, TOP: top, SKIP: skip}))


@router.get("/account/{account_id}/contact/{contact_id}")
async def get_contact(account_id: int, contact_id: int, key: KeyDep, state: StateDep) -> Response:
    return ok(state.contacts.get(key, account_id, contact_id))
