"""Shared route dependencies and response helpers."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi.responses import JSONResponse, Response

from ..emulator import Emulator
from ..models import ApiKey
from ..services.access import authenticate
from ..state import PlatformState


def get_emulator(request: Request) -> Emulator:
    emulator = request.app.state.emulator
    assert isinstance(emulator, Emulator)
    return emulator


def get_state(emulator: Annotated[Emulator, Depends(get_emulator)]) -> PlatformState:
    return emulator.state


def get_api_key(request: Request, state: Annotated[PlatformState, Depends(get_state)]) -> ApiKey:
    """The authenticated API key (401 otherwise); resolved before any path or body check."""
    return authenticate(state, request.headers.get("authorization"))


EmulatorDep = Annotated[Emulator, Depends(get_emulator)]
StateDep = Annotated[PlatformState, Depends(get_state)]
KeyDep = Annotated[ApiKey, Depends(get_api_key)]


def ok(content: Any, status_code: int = 200) -> JSONResponse:
    return JSONResponse(content, status_code=status_code)


def listing(items: list[dict[str, Any]]) -> Response:
    """A list response; the platform answers an empty list with 204 No Content."""
    if not items:
        return Response(status_code=204)
    return JSONResponse(items)
