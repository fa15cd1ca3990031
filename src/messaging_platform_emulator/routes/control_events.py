"""/_emulator/events control routes: simulate inbound events that fire callbacks, and inspect the deliveries.

Never authenticated, faulted or recorded. Errors use FastAPI's usual ``{"detail": ...}`` body. Each event answers
202 as soon as its deliveries are started (``"wait": true`` waits until each is delivered or has failed).
"""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..services.events import NEW_ACCOUNT, EventRefused, events_for
from .deps import EmulatorDep

router = APIRouter(prefix="/events", tags=["emulator events"])

Answer = str | bool | int | float


class _EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wait: bool = False


class _ContactEventIn(_EventIn):
    account_id: int | None = None
    channel_id: str | int | None = None
    contact_id: int | None = None
    phone_number: str | None = Field(None, min_length=1, max_length=64)


class KeywordEventIn(_EventIn):
    keyword: str = Field(min_length=1)
    channel_id: str | int | None = None
    contact_id: int | None = None
    phone_number: str | None = Field(None, min_length=1, max_length=64)


class DialogEventIn(_ContactEventIn):
    answer: Answer
    question_text: str | None = None
    question_campaign_id: int | None = None
    dialog_campaign_id: int | None = None
    subscription_id: int | None = 1


class StopEventIn(_ContactEventIn):
    subscription_id: int | None = 1


class IncomingMessageEventIn(_ContactEventIn):
    message: str = Field(min_length=1)


class NewAccountEventIn(_EventIn):
    name: str = Field(min_length=1)
    parent_id: int | None = None


class PolicyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_attempts: int | None = Field(None, ge=1, le=20)
    backoff_seconds: float | None = Field(None, ge=0, le=60)
    backoff_max_seconds: float | None = Field(None, ge=0, le=600)
    timeout_seconds: float | None = Field(None, gt=0, le=120)


async def _answer(fired: dict[str, Any], wait: bool, emulator: Any) -> JSONResponse:
    tasks = fired.pop("_tasks")
    if wait and tasks:
        await asyncio.gather(*tasks, return_exceptions=True)
        hub = events_for(emulator)
        fired["deliveries"] = [hub.delivery(d["id"]) or d for d in fired["deliveries"]]
    return JSONResponse(fired, status_code=202)


def _fire(emulator: Any, build: Any, *args: Any) -> dict[str, Any]:
    hub = events_for(emulator)
    with emulator.state.lock:
        try:
            account, callback_type, fields = build(*args)
            return hub.fire(account, callback_type, fields, account.id)
        except EventRefused as exc:
            raise HTTPException(exc.status, str(exc)) from exc


@router.post("/keyword", status_code=202)
async def keyword_event(body: KeywordEventIn, emulator: EmulatorDep) -> JSONResponse:
    hub = events_for(emulator)
    fired = _fire(emulator, hub.keyword_event, body.keyword, body.channel_id, body.contact_id, body.phone_number)
    return await _answer(fired, body.wait, emulator)


@router.post("/dialog", status_code=202)
async def dialog_event(body: DialogEventIn, emulator: EmulatorDep) -> JSONResponse:
    fired = _fire(emulator, events_for(emulator).dialog_event, body.model_dump())
    return await _answer(fired, body.wait, emulator)


@router.post("/stop", status_code=202)
async def stop_event(body: StopEventIn, emulator: EmulatorDep) -> JSONResponse:
    fired = _fire(emulator, events_for(emulator).stop_event, body.model_dump())
    return await _answer(fired, body.wait, emulator)


@router.post("/incoming-message", status_code=202)
async def incoming_message_event(body: IncomingMessageEventIn, emulator: EmulatorDep) -> JSONResponse:
    fired = _fire(emulator, events_for(emulator).incoming_message_event, body.model_dump())
    return await _answer(fired, body.wait, emulator)


@router.post("/new-account", status_code=202)
async def new_account_event(body: NewAccountEventIn, emulator: EmulatorDep) -> JSONResponse:
    """Create an account under ``parent_id`` (the seeded account by default) and fire NewAccount to the parent."""
    hub = events_for(emulator)
    state = emulator.state
    with state.lock:
        try:
            parent = hub.account(body.parent_id)
            if not parent.callback_token:
                raise EventRefused(409, f"account {parent.id} does not have callbacks enabled")
            created = state.add_account(body.name)
            state.tables.accounts[created.account_id].parent_id = parent.id
            fired = hub.fire(parent, NEW_ACCOUNT, {"Name": body.name, "ParentId": parent.id}, created.account_id)
        except EventRefused as exc:
            raise HTTPException(exc.status, str(exc)) from exc
    fired["account"] = created.to_dict()
    return await _answer(fired, body.wait, emulator)


@router.get("/deliveries")
async def list_deliveries(emulator: EmulatorDep, since: int = 0) -> list[dict[str, Any]]:
    return events_for(emulator).deliveries(since)


@router.get("/deliveries/{delivery_id}")
async def get_delivery(delivery_id: int, emulator: EmulatorDep) -> dict[str, Any]:
    found = events_for(emulator).delivery(delivery_id)
    if found is None:
        raise HTTPException(404, f"delivery {delivery_id} does not exist")
    return found


@router.delete("/deliveries")
async def clear_deliveries(emulator: EmulatorDep) -> dict[str, int]:
    return {"cleared": events_for(emulator).clear()}


@router.get("/delivery-policy")
async def get_policy(emulator: EmulatorDep) -> dict[str, Any]:
    return events_for(emulator).get_policy().to_dict()


@router.post("/delivery-policy")
async def set_policy(body: PolicyIn, emulator: EmulatorDep) -> dict[str, Any]:
    return events_for(emulator).set_policy(**body.model_dump()).to_dict()
