"""/_emulator control routes: seed, reset, accounts, faults, network conditions, request record, violations of the
API reference, clock, schedule lifecycle, TCP connection counts.

Never authenticated, faulted or recorded. Errors use FastAPI's usual ``{"detail": ...}`` body: the services raise
``ControlError``, which the app answers so. Routes only parse requests and call the emulator's services and parts.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from ..clock import format_timestamp
from ..conditions import Conditions
from ..emulator import Emulator
from ..faults import FaultRule
from ..lifecycle import Outcome
from ..prefixes import API_PREFIX
from ..transport import connection_counter
from .deps import EmulatorDep

router = APIRouter(tags=["emulator control"])


class AccountIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    api_key: str | None = Field(None, min_length=1)
    api_secret: str | None = Field(None, min_length=1)


class ClockIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    scale: float | None = Field(None, ge=0)
    advance_seconds: float | None = Field(None, ge=0)


class BehaviourIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pending_seconds: float | None = Field(None, ge=0)
    processing_seconds: float | None = Field(None, ge=0)
    outcome: Outcome | None = None


def _base_url(request: Request) -> str:
    return str(request.base_url).rstrip("/") + API_PREFIX


@router.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/seed")
async def seed(request: Request, emulator: EmulatorDep) -> dict[str, Any]:
    return {**emulator.seed.to_dict(), "base_url": _base_url(request)}


@router.post("/reset")
async def reset(request: Request, emulator: EmulatorDep) -> dict[str, Any]:
    emulator.reset()
    counter = connection_counter(request.scope)
    if counter is not None:
        counter.reset()
    return {**emulator.seed.to_dict(), "base_url": _base_url(request)}


@router.get("/connections")
async def connections(request: Request) -> dict[str, int]:
    """TCP connections opened since start or reset, open now, and the most open at once."""
    counter = connection_counter(request.scope)
    if counter is None:
        raise HTTPException(501, "connection counting needs the server from messaging_platform_emulator.server")
    return counter.to_dict()


@router.post("/accounts", status_code=201)
async def create_account(body: AccountIn, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.accounts.create(body.name, body.api_key, body.api_secret).to_dict()


@router.get("/faults")
async def list_faults(emulator: EmulatorDep) -> list[dict[str, Any]]:
    return emulator.faults.list()


@router.post("/faults", status_code=201)
async def add_fault(rule: FaultRule, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.faults.add(rule)


@router.delete("/faults")
async def clear_faults(emulator: EmulatorDep) -> dict[str, int]:
    return {"cleared": emulator.faults.clear()}


@router.get("/conditions")
async def get_conditions(emulator: EmulatorDep) -> dict[str, Any]:
    return _conditions_view(emulator)


@router.post("/conditions")
async def set_conditions(body: Conditions, emulator: EmulatorDep) -> dict[str, Any]:
    emulator.conditions.set(body)
    return _conditions_view(emulator)


def _conditions_view(emulator: Emulator) -> dict[str, Any]:
    return {**emulator.conditions.current.model_dump(), "limited": emulator.conditions.limited}


@router.get("/requests")
async def list_requests(emulator: EmulatorDep, since: int = 0) -> list[dict[str, Any]]:
    return emulator.recorder.list(since)


@router.delete("/requests")
async def clear_requests(emulator: EmulatorDep) -> dict[str, int]:
    return {"cleared": emulator.recorder.clear()}


@router.get("/violations")
async def list_violations(emulator: EmulatorDep, since: int = 0) -> list[dict[str, Any]]:
    """Departures of platform requests from the API reference, oldest first (``violations.py``)."""
    return emulator.violations.list(since)


@router.delete("/violations")
async def clear_violations(emulator: EmulatorDep) -> dict[str, int]:
    return {"cleared": emulator.violations.clear()}


def _clock_view(emulator: Emulator) -> dict[str, Any]:
    return {"now": format_timestamp(emulator.clock.now()), "scale": emulator.clock.scale}


@router.get("/clock")
async def get_clock(emulator: EmulatorDep) -> dict[str, Any]:
    return _clock_view(emulator)


@router.post("/clock")
async def set_clock(body: ClockIn, emulator: EmulatorDep) -> dict[str, Any]:
    if body.scale is not None:
        emulator.clock.set_scale(body.scale)
    if body.advance_seconds is not None:
        emulator.clock.advance(body.advance_seconds)
    return _clock_view(emulator)


@router.get("/schedule-behaviour")
async def get_schedule_behaviour(emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.schedules.default_behaviour.to_dict()


@router.post("/schedule-behaviour")
async def set_schedule_behaviour(body: BehaviourIn, emulator: EmulatorDep) -> dict[str, Any]:
    behaviour = emulator.schedules.set_default_behaviour(body.pending_seconds, body.processing_seconds, body.outcome)
    return behaviour.to_dict()


@router.post("/schedules/{schedule_id}/behaviour")
async def set_one_schedule_behaviour(schedule_id: int, body: BehaviourIn, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.schedules.set_behaviour(schedule_id, body.pending_seconds, body.processing_seconds, body.outcome)


@router.post("/schedules/{schedule_id}/abort")
async def abort_schedule(schedule_id: int, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.schedules.abort(schedule_id)
