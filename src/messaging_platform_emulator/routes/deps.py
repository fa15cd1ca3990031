"""Shared route dependencies and response helpers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Protocol

from fastapi import Depends, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from ..emulator import Emulator
from ..models import ApiKey
from ..services.access import authenticate
from ..state import PlatformState

# Longer lists are streamed as they are rendered instead of being built whole first.
STREAM_FROM = 10_000
_STREAM_BATCH = 1_000


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


class SizedRows(Protocol):
    """A sized collection of answer rows that may be rendered lazily (such as a page of contacts)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[dict[str, Any]]: ...


def long_listing(rows: SizedRows) -> Response:
    """Like ``listing`` (204 when empty), but a long list is streamed as a JSON array while it is rendered."""
    count = len(rows)
    if count < STREAM_FROM:
        return listing(list(rows))
    return StreamingResponse(_json_array(rows), media_type="application/json")


def _json_array(rows: Iterable[dict[str, Any]]) -> Iterator[bytes]:
    """The rows as one JSON array, in chunks of ``_STREAM_BATCH`` rows, encoded as ``JSONResponse`` does."""
    separator, batch = b"[", []
    for row in rows:
        batch.append(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")))
        if len(batch) == _STREAM_BATCH:
            yield separator + ",".join(batch).encode("utf-8")
            separator, batch = b",", []
    if batch:
        yield separator + ",".join(batch).encode("utf-8")
        separator = b","
    yield b"]" if separator == b"," else b"[]"
