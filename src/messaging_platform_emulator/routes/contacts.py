"""/account/{accountId}/contact routes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import Response

from .deps import KeyDep, StateDep, long_listing

router = APIRouter(tags=["contacts"])


@router.get("/account/{account_id}/contact")
async def list_contacts(
    account_id: int,
    key: KeyDep,
    state: StateDep,
    top: Annotated[str | None, Query(alias="$top")] = None,
    skip: Annotated[str | None, Query(alias="$skip")] = None,
) -> Response:
    """``$top`` and ``$skip`` are read as text and checked by the service, after the account (404 before 400)."""
    return long_listing(state.contacts.list(key, account_id, top, skip))
