"""Shared route dependencies and response helpers."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Annotated, Any, Protocol, TypeVar
from urllib.parse import unquote

from fastapi import Depends, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import AfterValidator

from ..emulator import Emulator
from ..errors import UNKNOWN_ERROR, ErrorDetail, PlatformError
from ..models import ApiKey
from ..odata import FILTER, SKIP, TOP, refuse_unsupported
from ..services.access import authenticate

JSON_MEDIA_TYPE = "application/json"
ODATA_OPTIONS_ATTRIBUTE = "odata_options"
Endpoint = TypeVar("Endpoint", bound=Callable[..., Any])

# Longer lists are streamed as they are rendered instead of being built whole first.
STREAM_FROM = 10_000
_STREAM_BATCH = 1_000


def get_emulator(request: Request) -> Emulator:
    emulator = request.app.state.emulator
    assert isinstance(emulator, Emulator)
    return emulator


EmulatorDep = Annotated[Emulator, Depends(get_emulator)]


def get_api_key(request: Request, emulator: EmulatorDep) -> ApiKey:
    """The authenticated API key (401 otherwise); resolved before any path or body check."""
    return authenticate(emulator.store, request.headers.get("authorization"))


#: A text path value (coupon code, channel, keyword): the middleware routes with ``%`` and ``/`` inside a segment
#: still escaped, so that ``A%2F1`` is one segment; this gives the value as the caller wrote it.
PathText = Annotated[str, AfterValidator(unquote)]

KeyDep = Annotated[ApiKey, Depends(get_api_key)]


async def json_body(request: Request, key: KeyDep) -> bytes:
    """The raw request body; one that is not empty must be sent as ``Content-Type: application/json`` (415).

    Checked after authentication and before any lookup, where ASP.NET Web API picks the body's formatter.
    """
    raw = await request.body()
    if raw:
        given = request.headers.get("content-type")
        media_type = (given or "").split(";", 1)[0].strip().lower()
        if media_type != JSON_MEDIA_TYPE:
            shown = media_type or "application/octet-stream"  # what Web API assumes when none is given
            message = f"The request entity's media type '{shown}' is not supported for this resource."
            raise PlatformError(415, [ErrorDetail(UNKNOWN_ERROR, message)])
    return raw


BodyDep = Annotated[bytes, Depends(json_body)]


def odata_options(*names: str) -> Callable[[Endpoint], Endpoint]:
    """Mark a route as taking these OData query options; every other ``$`` option is refused with 400."""

    def mark(endpoint: Endpoint) -> Endpoint:
        setattr(endpoint, ODATA_OPTIONS_ATTRIBUTE, frozenset(names))
        return endpoint

    return mark


def odata_query(
    filter_text: Annotated[str | None, Query(alias=FILTER)] = None,
    top: Annotated[str | None, Query(alias=TOP)] = None,
    skip: Annotated[str | None, Query(alias=SKIP)] = None,
) -> dict[str, str | None]:
    """The OData options of a list route, read as text: the service checks them after the account (404 before
    400)."""
    return {FILTER: filter_text, TOP: top, SKIP: skip}


ODataDep = Annotated[dict[str, str | None], Depends(odata_query)]


async def check_query_options(request: Request, key: KeyDep) -> None:
    """For every platform route, after authentication: refuse ``$`` options the route does not take (400)."""
    endpoint = request.scope.get("endpoint")
    accepted: frozenset[str] = getattr(endpoint, ODATA_OPTIONS_ATTRIBUTE, frozenset())
    refuse_unsupported((name for name, _ in request.query_params.multi_items()), accepted)


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
