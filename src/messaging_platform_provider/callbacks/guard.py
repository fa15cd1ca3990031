"""
Slow-client and flood protection for the standalone receiver (``messaging-platform-callbacks serve``).

uvicorn has no deadline for a request's headers or body, no bound on open connections, and on its httptools parser
no bound on a request head: a few hundred connections that trickle their headers hold a file descriptor each until
the process runs out, and a few that stream one endless header hold memory until it runs out. ``guarded_protocol``
is one of uvicorn's HTTP/1.1 protocols (httptools when installed, as uvicorn's own ``http="auto"`` picks, else the
pure-Python h11) with

- a header deadline: a connection that has not sent a complete request head within ``header_timeout`` seconds of
  opening (or of its previous response) is closed;
- a body deadline: a request whose body is not complete ``body_timeout`` seconds after its head is closed (the
  receiver answers nothing, stores nothing; the platform redelivers);
- a head bound: a request head (request line and headers) longer than ``max_head_bytes`` is answered 431 and the
  connection closed. A complete head is measured from what was parsed; one still arriving is cut off once the bytes
  received for it pass the bound (httptools buffers a header value until it is complete, so the bytes are counted
  as they arrive: a read that ends one request and begins the next counts what follows the request's body);
- a connection cap: beyond ``max_connections`` open connections, the one that has waited longest for a request
  head is closed to make room (a slow client, most likely), or the new one when every connection is busy. The
  connections waiting for a head are kept in arrival order, so each accept costs the same however many are open;
- answers in order: a request that cannot be parsed, pipelined behind requests already read, is answered (400 or
  431, then the connection closes) only after those requests have been answered. A callback committed is always
  answered as committed.

The cap's size and bookkeeping are in ``callbacks/connection_cap.py``. Behind a reverse proxy (the API-server
plugin), set the same limits in the proxy (docs/callbacks.md).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from messaging_platform_provider.callbacks.connection_cap import DEFAULT_MAX_CONNECTIONS, ConnectionBook

log = logging.getLogger(__name__)

DEFAULT_HEADER_TIMEOUT = 10.0
DEFAULT_BODY_TIMEOUT = 30.0
DEFAULT_MAX_HEAD_BYTES = 16 * 1024
REASONS = {400: b"Bad Request", 431: b"Request Header Fields Too Large"}


def head_size(scope: Any) -> int:
    """
    The bytes of a parsed request head: ``METHOD SP path[?query] SP HTTP/1.1 CRLF``, every ``name: value CRLF``
    and the closing CRLF (a ``?`` with nothing after it is the one byte not counted).
    """
    query = scope.get("query_string") or b""
    target = len(scope.get("raw_path") or b"") + (1 + len(query) if query else 0)
    request_line = len(scope.get("method") or "") + 1 + target + 1 + len("HTTP/1.1\r\n")
    headers = sum(len(name) + len(value) + 4 for name, value in scope.get("headers") or ())
    return request_line + headers + 2


def bounded_head_app(app: Any, max_head_bytes: int) -> Any:
    """The ASGI app, answering 431 (and closing the connection) to a request whose complete head is too long."""

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and head_size(scope) > max_head_bytes:
            body = f"the request head is longer than {max_head_bytes} bytes".encode()
            headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
            await send({"type": "http.response.start", "status": 431, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return guarded


class _Guard:
    """The deadlines, the head bound and the cap, mixed into one of uvicorn's HTTP/1.1 protocols (see the module)."""

    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES
    book: ConnectionBook  # one per protocol class, that is per server (``guarded_protocol``)
    # provided by the uvicorn protocol class
    app: Any
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    cycle: Any

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.app = bounded_head_app(self.app, self.max_head_bytes)
        self._timer: asyncio.TimerHandle | None = None
        self._counted = False

    def connection_made(self, transport: asyncio.Transport) -> None:
        super().connection_made(transport)  # type: ignore[misc]
        self.book.open += 1
        self._counted = True
        self._wait_for_head()
        self._enforce_cap()

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
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
            self.book.waiting.pop(self, None)
            self._cancel_timer()
            if cycle.more_body:
                self._timer = self.loop.call_later(self.body_timeout, self._body_expired, cycle)

    def _wait_for_head(self) -> None:
        self._cancel_timer()
        if self._counted:
            self.book.waiting.pop(self, None)
            self.book.waiting[self] = None  # the newest to wait
        self._timer = self.loop.call_later(self.header_timeout, self._head_expired, self.cycle)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _forget(self) -> None:
        """Take this connection out of the book (once): it is closing."""
        self._cancel_timer()
        if self._counted:
            self._counted = False
            self.book.open -= 1
            self.book.waiting.pop(self, None)

    def _abort(self) -> None:
        self._forget()
        self.transport.abort()

    def _head_expired(self, cycle: Any) -> None:
        if self.cycle is cycle and not self.transport.is_closing():
            self._abort()

    def _body_expired(self, cycle: Any) -> None:
        if self.cycle is cycle and cycle.more_body and not cycle.response_complete:
            self._abort()

    def _enforce_cap(self) -> None:
        if self.book.open <= self.max_connections:
            return
        victim = self.book.longest_waiting()
        (victim if victim is not None else self)._abort()

    # -- refusals (400, 431) ---------------------------------------------------------------------

    def _head_too_large(self) -> bool:
        raise NotImplementedError

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request it cannot parse; 431 when the head outgrew its bound."""
        if self._head_too_large():
            self._refuse(431, f"the request head is longer than {self.max_head_bytes} bytes")
        else:
            self._refuse(400, msg)

    def _refuse(self, status: int, msg: str) -> None:
        self._forget()
        self._write_refusal(status, msg)
        self.transport.close()

    def _write_refusal(self, status: int, msg: str) -> None:
        raise NotImplementedError


class GuardedH11Protocol(_Guard, H11Protocol):  # type: ignore[misc]
    """uvicorn's pure-Python h11 protocol, guarded. h11 reads no request ahead of the one being answered."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        import h11

        self.conn = h11.Connection(h11.SERVER, max_incomplete_event_size=self.max_head_bytes)

    def handle_events(self) -> None:
        before = self.cycle
        super().handle_events()
        self._after_head(before)

    def _head_too_large(self) -> bool:
        # h11 refuses an incomplete event (a head) once its buffer passes max_incomplete_event_size
        return len(self.conn.trailing_data[0]) > self.max_head_bytes

    def _write_refusal(self, status: int, msg: str) -> None:
        import h11

        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"connection", b"close")]
        for event in (
            h11.Response(status_code=status, headers=headers, reason=REASONS[status]),
            h11.Data(data=msg.encode("ascii")),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))


PROTOCOLS: dict[str, type] = {"h11": GuardedH11Protocol}

try:  # httptools is optional in uvicorn; Airflow core installs it (uvicorn[standard])
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:
    pass
else:

    class GuardedHttpToolsProtocol(_Guard, HttpToolsProtocol):  # type: ignore[misc]
        """
        uvicorn's httptools protocol (a C parser, several times faster per request), guarded. httptools parses
        pipelined requests ahead of the one being answered, so a refusal waits for the requests read before it.
        """

        pipeline: Any
        flow: Any

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._in_head = True  # the bytes now arriving belong to a request head
            self._head_bytes = 0
            self._completed = 0  # requests whose body has been read
            self._accounted = 0  # bytes of the current read that were heads completed in it or bodies
            self._owed: list[Any] = []  # requests read in full and not yet answered
            self._refusal: tuple[int, str] | None = None  # sent once the requests read before it are answered
            self._refused = False

        def data_received(self, data: bytes) -> None:
            if self._refused or self._refusal is not None:
                return  # the parser stopped at an error: nothing after it is read
            completed = self._completed
            self._accounted = 0
            before = self.cycle
            super().data_received(data)
            self._after_head(before)
            if not self._in_head or self._refused or self._refusal is not None:
                return
            if self._completed == completed:
                self._head_bytes += len(data)  # every byte of this read belongs to the head still arriving
            else:  # a request ended in this read: what follows its body is the next head
                self._head_bytes = max(0, len(data) - self._accounted)
            if self._head_bytes > self.max_head_bytes:
                self.send_400_response("")

        def on_headers_complete(self) -> None:
            self._in_head = False
            super().on_headers_complete()
            # the bytes of this head that arrived in this read (those of earlier reads were counted then)
            self._accounted += max(0, head_size(self.scope) - self._head_bytes)

        def on_body(self, body: bytes) -> None:
            self._accounted += len(body)
            super().on_body(body)

        def on_message_complete(self) -> None:
            super().on_message_complete()
            if not self.cycle.response_complete:
                self._owed.append(self.cycle)
            self._in_head = True
            self._head_bytes = 0
            self._completed += 1

        def _head_too_large(self) -> bool:
            return self._in_head and self._head_bytes > self.max_head_bytes

        def _next_head_already_read(self) -> bool:
            return bool(self.pipeline)  # a pipelined request waits, its head parsed: no head deadline for it

        def _refuse(self, status: int, msg: str) -> None:
            # A request whose body the error cut short is broken: running, nothing of it can have been committed
            # (the receiver stores a body only once it is complete); waiting its turn, it must never run.
            self.pipeline = type(self.pipeline)(entry for entry in self.pipeline if entry[0] in self._owed)
            if self._answering():
                self._refusal = (status, msg)
                self.flow.pause_reading()
                return
            self._refused = True
            super()._refuse(status, msg)

        def _answering(self) -> bool:
            """Whether requests read in full before the refusal are still to be answered."""
            self._owed = [cycle for cycle in self._owed if not cycle.response_complete]
            return bool(self._owed)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._refusal is not None and not self._answering() and not self.transport.is_closing():
                status, msg = self._refusal
                self._refusal = None
                self._refused = True
                super()._refuse(status, msg)

        def _write_refusal(self, status: int, msg: str) -> None:
            body = msg.encode("ascii")
            self.transport.write(
                b"HTTP/1.1 %d %s\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: %d\r\n"
                b"connection: close\r\n\r\n%s" % (status, REASONS[status], len(body), body)
            )

    PROTOCOLS["httptools"] = GuardedHttpToolsProtocol


def guarded_protocol(
    *,
    header_timeout: float = DEFAULT_HEADER_TIMEOUT,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    max_connections: int = DEFAULT_MAX_CONNECTIONS,
    max_head_bytes: int = DEFAULT_MAX_HEAD_BYTES,
    http: str = "auto",
) -> Any:
    """A protocol class for ``uvicorn.Config(http=...)`` with these limits; ``http``: auto, httptools or h11."""
    if header_timeout <= 0 or body_timeout <= 0 or max_connections < 1 or max_head_bytes < 1024:
        raise ValueError("timeouts must be positive, max_connections at least 1 and max_head_bytes at least 1024")
    if http == "auto":
        http = "httptools" if "httptools" in PROTOCOLS else "h11"
    if http not in PROTOCOLS:
        raise ValueError(f"http must be one of auto, {', '.join(sorted(PROTOCOLS))}; got {http!r}")
    base = PROTOCOLS[http]
    limits = {
        "header_timeout": header_timeout,
        "body_timeout": body_timeout,
        "max_connections": max_connections,
        "max_head_bytes": max_head_bytes,
        "book": ConnectionBook(),
    }
    return type(base.__name__, (base,), limits)
