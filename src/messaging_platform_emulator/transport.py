"""Dropping connections on purpose.

ASGI has no way to close a connection without a response: an app that returns without responding makes
uvicorn write a 500. ``ConnectionExposingH11Protocol`` (uvicorn's h11 protocol, one instance per TCP
connection) puts its transport into every request scope under ``scope["extensions"][EXTENSION]``, so
``abort_connection`` can reset the socket before any byte of a response is written.

The same protocol counts TCP connections per server (``ConnectionCounter``: opened, open now, peak open) and
puts the counter next to the transport, for ``GET /_emulator/connections``. Protocol callbacks and the ASGI app
run on the server's one event loop, so the counter needs no lock when read from a route.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from dataclasses import dataclass
from typing import Protocol, cast

from uvicorn._types import ASGIReceiveCallable, ASGISendCallable, Scope
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from .asgi_types import Receive, Scope as AnyScope

EXTENSION = "messaging_platform_emulator.connection"
DISCONNECT_WAIT_SECONDS = 5.0


@dataclass
class ConnectionCounter:
    """TCP connections of one server: ``opened`` since start (or reset), ``open`` now, ``peak_open``."""

    opened: int = 0
    open: int = 0
    peak_open: int = 0

    def made(self) -> None:
        self.opened += 1
        self.open += 1
        self.peak_open = max(self.peak_open, self.open)

    def lost(self) -> None:
        self.open -= 1

    def reset(self) -> None:
        """Zero ``opened``; ``open`` stays the live count, which ``peak_open`` restarts from."""
        self.opened = 0
        self.peak_open = self.open

    def to_dict(self) -> dict[str, int]:
        return {"opened": self.opened, "open": self.open, "peak_open": self.peak_open}


# One counter per uvicorn server (its ServerState is shared by all of that server's connections).
_COUNTERS: weakref.WeakKeyDictionary[ServerState, ConnectionCounter] = weakref.WeakKeyDictionary()


def _counter_of(server_state: ServerState) -> ConnectionCounter:
    counter = _COUNTERS.get(server_state)
    if counter is None:
        counter = _COUNTERS[server_state] = ConnectionCounter()
    return counter


class ConnectionExposingH11Protocol(H11Protocol):
    """uvicorn's h11 protocol that exposes the connection's transport and the server's connection counter."""

    _counter: ConnectionCounter | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        counter = self._counter = _counter_of(self.server_state)
        counter.made()
        super().connection_made(transport)
        inner = self.app

        async def app_with_transport(scope: Scope, receive: ASGIReceiveCallable, send: ASGISendCallable) -> None:
            if scope["type"] == "http":
                scope.setdefault("extensions", {})[EXTENSION] = {"transport": transport, "connections": counter}
            await inner(scope, receive, send)

        self.app = app_with_transport

    def connection_lost(self, exc: Exception | None) -> None:
        counter, self._counter = self._counter, None  # at most one decrement per connection
        if counter is not None:
            counter.lost()
        super().connection_lost(exc)


def connection_counter(scope: AnyScope) -> ConnectionCounter | None:
    """The serving server's connection counter, or ``None`` when not served by ``ConnectionExposingH11Protocol``."""
    extension = (scope.get("extensions") or {}).get(EXTENSION) or {}
    counter = extension.get("connections")
    return counter if isinstance(counter, ConnectionCounter) else None


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
