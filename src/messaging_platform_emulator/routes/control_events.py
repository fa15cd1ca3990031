"""/_emulator/events control routes: simulate inbound events that fire callbacks, and inspect the deliveries.

Never authenticated, faulted or recorded. Errors use FastAPI's usual ``{"detail": ...}`` body (``ControlError``).
Each event answers 202 as soon as its deliveries are started (``"wait": true`` waits until each is delivered or
has failed).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from ..delivery import FiredEvent
from ..delivery_record import PolicyChanges
from ..emulator import Emulator
from ..services.events import Answer, DialogAnswer, Sender
from .deps import EmulatorDep

router = APIRouter(prefix="/events", tags=["emulator events"])


class _EventIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    wait: bool = False


class _ContactEventIn(_EventIn):
    account_id: int | None = None
    channel_id: str | int | None = None
    contact_id: int | None = None
    phone_number: str | None = Field(None, min_length=1, max_length=64)

    def sender(self) -> Sender:
        return Sender(self.account_id, self.channel_id, self.contact_id, self.phone_number)


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


async def _answer(fired: FiredEvent, wait: bool, emulator: Emulator, **extra: Any) -> JSONResponse:
    answer = fired.to_dict()
    if wait:
        answer["deliveries"] = await emulator.delivery.settled(fired)
    return JSONResponse({**answer, **extra}, status_code=202)


@router.post("/keyword", status_code=202)
async def keyword_event(body: KeywordEventIn, emulator: EmulatorDep) -> JSONResponse:
    fired = emulator.events.keyword(body.keyword, body.channel_id, body.contact_id, body.phone_number)
    return await _answer(fired, body.wait, emulator)


@router.post("/dialog", status_code=202)
async def dialog_event(body: DialogEventIn, emulator: EmulatorDep) -> JSONResponse:
    answer = DialogAnswer(
        body.answer, body.question_text, body.question_campaign_id, body.dialog_campaign_id, body.subscription_id
    )
    return await _answer(emulator.events.dialog(body.sender(), answer), body.wait, emulator)


@router.post("/stop", status_code=202)
async def stop_event(body: StopEventIn, emulator: EmulatorDep) -> JSONResponse:
    return await _answer(emulator.events.stop(body.sender(), body.subscription_id), body.wait, emulator)


@router.post("/incoming-message", status_code=202)
async def incoming_message_event(body: IncomingMessageEventIn, emulator: EmulatorDep) -> JSONResponse:
    return await _answer(emulator.events.incoming_message(body.sender(), body.message), body.wait, emulator)


@router.post("/new-account", status_code=202)
async def new_account_event(body: NewAccountEventIn, emulator: EmulatorDep) -> JSONResponse:
    """Create an account under ``parent_id`` (the seeded account by default) and fire NewAccount to the parent."""
    fired, created = emulator.events.new_account(body.name, body.parent_id)
    return await _answer(fired, body.wait, emulator, account=created.to_dict())


@router.get("/deliveries")
async def list_deliveries(emulator: EmulatorDep, since: int = 0) -> list[dict[str, Any]]:
    return emulator.delivery.record.list(since)


@router.get("/deliveries/{delivery_id}")
async def get_delivery(delivery_id: int, emulator: EmulatorDep) -> dict[str, Any]:
    found = emulator.delivery.record.get(delivery_id)
    if found is None:
        raise HTTPException(404, f"delivery {delivery_id} does not exist")
    return found


@router.delete("/deliveries")
async def clear_deliveries(emulator: EmulatorDep) -> dict[str, int]:
    return {"cleared": emulator.delivery.record.clear()}


@router.get("/delivery-policy")
async def get_policy(emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.delivery.record.policy().to_dict()


@router.post("/delivery-policy")
async def set_policy(body: PolicyIn, emulator: EmulatorDep) -> dict[str, Any]:
    changes = PolicyChanges(body.max_attempts, body.backoff_seconds, body.backoff_max_seconds, body.timeout_seconds)
    return emulator.delivery.record.set_policy(changes).to_dict()
