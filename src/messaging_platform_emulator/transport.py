"""Dropping connections on purpose.

ASGI has no way to close a connection without a response: an app that returns without responding makes
uvicorn write a 500. ``ConnectionExposingH11Protocol`` (uvicorn's h11 protocol, one instance per TCP
connection) puts its transport into every request scope under ``scope["extensions"][EXTENSION]``, so
``abort_connection`` can reset the socket before any byte of a response is written.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol, cast

from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope
from uvicorn.protocols.http.h11_impl import H11Protocol

from .asgi_types import Receive
from .asgi_types import Scope as AnyScope

EXTENSION = "messaging_platform_emulator.connection"
DISCONNECT_WAIT_SECONDS = 5.0


class ConnectionExposingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol that exposes the connection's transport to the ASGI app."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        inner = self.app

        async def app_with_transport(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
            if scope["type"] == "http":
                scope.setdefault("extensions", {})[EXTENSION] = {"transport": transport}
            await inner(scope, receive, send)

        self.app = app_with_transport


class _Abortable(Protocol):
    def abort(self) -> None: ...


def _transport(scope: AnyScope) -> _Abortable | None:
    extension = (scope.get("extensions") or {}).get(EXTENSION) or {}
    transport = extension.get("transport")
    # Duck-typed: uvloop's transports are not asyncio.Transport subclasses.
    return cast(_Abortable, transport) if callable(getattr(transport, "abort", None)) else None


async def abort_connection(scope: AnyScope, receive: Receive) -> None:
    """Reset the request's TCP connection without a response, then wait until the server notices."""
    transport = _transport(scope)
    if transport is None:
        raise RuntimeError("dropping a connection needs the server from messaging_platform_emulator.server")
    transport.abort()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(_until_disconnect(receive), DISCONNECT_WAIT_SECONDS)


async def _until_disconnect(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
