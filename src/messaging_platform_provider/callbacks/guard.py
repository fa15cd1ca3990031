"""
Slow-client protection for the standalone receiver (``messaging-platform-callbacks serve``).

uvicorn has no deadline for a request's headers or body and no bound on open connections: a few hundred
connections that trickle their headers hold a file descriptor each until the process runs out and real callbacks
are refused. ``guarded_protocol`` is one of uvicorn's HTTP/1.1 protocols (httptools when installed, as uvicorn's
own ``http="auto"`` picks, else the pure-Python h11) with

- a header deadline: a connection that has not sent a complete request head within ``header_timeout`` seconds of
  opening (or of its previous response) is closed;
- a body deadline: a request whose body is not complete ``body_timeout`` seconds after its head is closed (the
  receiver answers nothing, stores nothing; the platform redelivers);
- a connection cap: beyond ``max_connections`` open connections, the one that has waited longest for a request
  head is closed to make room (a slow client, most likely), or the new one when every connection is busy.

``connection_limits`` picks a cap that fits the process's file-descriptor limit, raising the soft limit to the hard
one first. Behind a reverse proxy (the API-server plugin), set the same limits in the proxy (docs/callbacks.md).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import resource
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_CONNECTIONS = 1000
# Connections accepted per wake-up (uvicorn's ``backlog``). Between a wake-up and the next, as many new connections
# and as many closed ones not yet released can hold descriptors beyond the cap: twice this is kept free.
ACCEPT_BATCH = 32
RESERVED_DESCRIPTORS = 64  # the store's files or connections, the listening socket, logs
# The order in which connections began to wait for a request head. Not the loop's clock: uvloop's (which uvicorn
# picks when installed, as it is beside Airflow) moves in whole milliseconds, and a burst of connections opened in
# one millisecond would tie, leaving the cap to close any of them instead of the one that waited longest.
_WAIT_ORDER = itertools.count()


def connection_limits(requested: int | None = None) -> int:
    """The connection cap: ``requested`` (default 1000), lowered to fit the file-descriptor limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    fits = soft - RESERVED_DESCRIPTORS - 2 * ACCEPT_BATCH
    wanted = requested if requested is not None else DEFAULT_MAX_CONNECTIONS
    cap = max(8, min(wanted, fits))
    if cap < wanted:
        log.warning("At most %d connections (file-descriptor limit %d); raise `ulimit -n` for more", cap, soft)
    return cap


class _Guard:
    """The deadlines and the cap, mixed into one of uvicorn's HTTP/1.1 protocols (see the module)."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    # provided by the uvicorn protocol class
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    connections: set[Any]
    cycle: Any

    def connection_made(self, transport: asyncio.Transport) -> None:
        self._waiting_turn: int | None = None  # a number from _WAIT_ORDER while waiting for a request head
        self._timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)  # type: ignore[misc]
        self._wait_for_head()
        self._enforce_cap()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timer()
        super().connection_lost(exc)  # type: ignore[misc]

    def on_response_complete(self) -> None:
        if not self._next_head_already_read():
            self._wait_for_head()  # before uvicorn starts a pipelined request, which cancels this again
        super().on_response_complete()  # type: ignore[misc]

    def _next_head_already_read(self) -> bool:
        return False

    def _after_head(self, before: Any) -> None:
        cycle = self.cycle
        if cycle is not before and cycle is not None:  # a request head arrived: now its body has a deadline
            self._waiting_turn = None
            self._cancel_timer()
            if cycle.more_body:
                self._timer = self.loop.call_later(self.body_timeout, self._body_expired, cycle)

    def _wait_for_head(self) -> None:
        self._cancel_timer()
        self._waiting_turn = next(_WAIT_ORDER)
        self._timer = self.loop.call_later(self.header_timeout, self._head_expired, self.cycle)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _head_expired(self, cycle: Any) -> None:
        if self.cycle is cycle and not self.transport.is_closing():
            self.transport.abort()

    def _body_expired(self, cycle: Any) -> None:
        if self.cycle is cycle and cycle.more_body and not cycle.response_complete:
            self.transport.abort()

    def _enforce_cap(self) -> None:
        open_ = [c for c in self.connections if not c.transport.is_closing()]
        if len(open_) <= self.max_connections:
            return
        waiting = [c for c in open_ if c is not self and isinstance(c, _Guard) and c._waiting_turn is not None]
        victim = min(waiting, key=lambda c: c._waiting_turn or 0) if waiting else self
        victim.transport.abort()


class GuardedH11Protocol(_Guard, H11Protocol):  # type: ignore[misc]
    """uvicorn's pure-Python h11 protocol, guarded."""

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        self._after_head(before)


PROTOCOLS: dict[str, type] = {"h11": GuardedH11Protocol}

try:  # httptools is optional in uvicorn; Airflow core installs it (uvicorn[standard])
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    pass
else:

    class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):  # type: ignore[misc]
        """uvicorn's httptools protocol (a C parser, several times faster per request), guarded."""

        def data_received(self, data: bytes) -> None:
            before = self.cycle
            super().data_received(data)
            self._after_head(before)

        def _next_head_already_read(self) -> bool:
            return bool(self.pipeline)  # a pipelined request waits, its head parsed: no head deadline for it

    PROTOCOLS["httptools"] = GuardedHttpToolsProtocol


def guarded_protocol(
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    http: str = "auto",
) -> Any:
    """A protocol class for ``uvicorn.Config(http=...)`` with these limits; ``http``: auto, httptools or h11."""
    if header_timeout <= 0 or body_timeout <= 0 or max_connections < 1:
        raise ValueError("timeouts must be positive and max_connections at least 1")
    if http == "auto":
        http = "httptools" if "httptools" in PROTOCOLS else "h11"
    if http not in PROTOCOLS:
        raise ValueError(f"http must be one of auto, {', '.join(sorted(PROTOCOLS))}; got {http!r}")
    base = PROTOCOLS[http]
    limits = {"header_timeout": header_timeout, "body_timeout": body_timeout, "max_connections": max_connections}
    return type(base.__name__, (base,), limits)
