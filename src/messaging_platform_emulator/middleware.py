"""Pure ASGI middleware in front of the platform routes: records every request, applies faults, and opens the
check that collects a request's departures from the API reference (``violations.py``), recorded once answered.

Only paths under the platform prefix are touched; ``/_emulator`` control traffic passes straight through.
A platform path with one trailing slash (``/api/v2.1/account/1001/campaign/``) is served as the route without
it, as ASP.NET Web API routing does; nothing is redirected. The record keeps the path as it was sent.

Routes match the path segment by segment as sent: a value sent percent-encoded (coupon code ``A/1`` as ``A%2F1``)
stays one segment. The server decodes the whole path before routing, so the routed path is rebuilt from the raw
one with ``%`` and ``/`` inside a segment kept escaped; ``routes.deps.PathText`` decodes them for the route.
"""

from __future__ import annotations

import asyncio
import json
import time
from urllib.parse import unquote

from .asgi_types import ASGIApp, Message, Receive, Scope, Send
from .conditions import NetworkConditions, retry_after_header
from .errors import NOT_FOUND, UNKNOWN_ERROR, ErrorDetail, error_body
from .faults import FaultBook, FaultRule
from .paths import RouteTemplates
from .prefixes import API_PREFIX
from .recorder import Recorder, RequestRecord
from .transport import abort_connection
from .violations import PATH_CASE, RequestCheck, ViolationBook, checking

#: the ``fault`` of a request record the rate limit answered 429 (``conditions.py``)
RATE_LIMITED = "rate_limit"


def is_platform_path(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


def sent_path(scope: Scope) -> str:
    """The path as it came over the wire (percent-encoding kept); the decoded path if the server gave no raw one."""
    raw_path = scope.get("raw_path")
    return raw_path.decode("latin-1") if isinstance(raw_path, bytes) else str(scope["path"])


def escape_segment(text: str) -> str:
    """A decoded path segment with the two characters that would change routing (``%`` and ``/``) escaped."""
    return text.replace("%", "%25").replace("/", "%2F")


def routing_scope(scope: Scope) -> Scope:
    """
    The scope routes see: segments decoded one by one from the raw path (``%`` and ``/`` left escaped), and one
    trailing slash taken off (not off the platform root itself).
    """
    path = "/".join(escape_segment(unquote(segment)) for segment in sent_path(scope).split("/"))
    raw_path = scope.get("raw_path")
    if path.endswith("/") and path.rstrip("/") != API_PREFIX and not path.endswith("//"):
        path = path[:-1]
        if isinstance(raw_path, bytes) and raw_path.endswith(b"/"):
            raw_path = raw_path[:-1]
    routed = dict(scope)
    routed["path"] = path
    if isinstance(raw_path, bytes):
        routed["raw_path"] = raw_path
    return routed


def _headers(scope: Scope) -> dict[str, str]:
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", []):
        name = raw_name.decode("latin-1").lower()
        value = raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return headers


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that yields the already-read body once, then defers to the server's receive."""
    sent = False

    async def replay_receive() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay_receive


class TrafficMiddleware:
    def __init__(
        self,
        app: ASGIApp,
        faults: FaultBook,
        recorder: Recorder,
        conditions: NetworkConditions,
        violations: ViolationBook,
        routes: RouteTemplates,
    ) -> None:
        self.app = app
        self.faults = faults
        self.recorder = recorder
        self.conditions = conditions
        self.violations = violations
        self.routes = routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_platform_path(scope["path"]):
            await self.app(scope, receive, send)
            return
        arrived = time.monotonic()
        body = await _read_body(receive)
        # The rate limit comes first: a refused request uses up no fault rule, and the platform never sees it.
        wait = self.conditions.admit(scope["path"])
        rule = self.faults.take(scope["method"], scope["path"]) if wait is None else None
        record = self.recorder.add(
            method=scope["method"],
            path=sent_path(scope),
            query=scope.get("query_string", b"").decode("latin-1"),
            headers=_headers(scope),
            body=body,
            fault=RATE_LIMITED if wait is not None else rule.kind if rule else None,
            time=arrived,
        )
        latency = self.conditions.current.latency
        if latency:
            await asyncio.sleep(latency)
        if wait is not None:
            message = "Too many requests: the account's rate limit (set on the emulator)."
            await _send_error(self._recording(send, record), 429, message, retry_after=retry_after_header(wait))
            return
        replay = _replay(body, receive)
        routed = routing_scope(scope)
        if rule is None or rule.kind == "delay":
            if rule is not None:
                await asyncio.sleep(rule.delay)
            try:
                await self._checked(routed, replay, self._recording(send, record), record)
            except Exception:
                # The outer error middleware answers 500; keep the record from looking like a drop.
                if record.status is None:
                    self.recorder.set_status(record, 500)
                raise
        elif rule.kind == "drop":
            await abort_connection(scope, receive)
        elif rule.kind == "commit_then_drop":
            await self._checked(routed, replay, _discard, record)
            await abort_connection(scope, receive)
        else:
            await self._send_fault(rule, self._recording(send, record))

    async def _checked(self, scope: Scope, receive: Receive, send: Send, record: RequestRecord) -> None:
        """Serve the request with its check open; record the departures found, with the answer's status."""
        with checking(scope["method"], record.path, strict=self.violations.strict) as check:
            try:
                await self.app(self._respelt(scope, check), receive, send)
            finally:
                if check.departures:
                    self.violations.add(check, record.status or (None if send is _discard else 500))

    def _respelt(self, scope: Scope, check: RequestCheck) -> Scope:
        """A path that matches a route only when case is ignored is routed as the route spells it, and noted (in
        strict mode it is noted and left to answer 404)."""
        path, changes = self.routes.respell(scope["path"])
        for sent, right in changes:
            check.note(None, PATH_CASE, f"path segment {sent!r} for {right!r}")
        return scope if not changes or check.strict else {**scope, "path": path}

    def _recording(self, send: Send, record: RequestRecord) -> Send:
        async def recording_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.recorder.set_status(record, int(message["status"]))
            await send(message)

        return recording_send

    @staticmethod
    async def _send_fault(rule: FaultRule, send: Send) -> None:
        if rule.kind == "retry_after":
            message = "Too many requests (injected by the emulator)."
            await _send_error(send, 429, message, retry_after=str(rule.retry_after))
        else:
            await _send_error(send, rule.status, f"Injected fault: HTTP {rule.status}.")


async def _send_error(send: Send, status: int, message: str, *, retry_after: str | None = None) -> None:
    """The platform's error body with ``status`` (and a ``Retry-After`` header when given)."""
    headers = [(b"content-type", b"application/json; charset=utf-8")]
    if retry_after is not None:
        headers.append((b"retry-after", retry_after.encode("ascii")))
    code = NOT_FOUND if status == 404 else UNKNOWN_ERROR
    payload = json.dumps(error_body([ErrorDetail(code, message)])).encode("utf-8")
    headers.append((b"content-length", str(len(payload)).encode("ascii")))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload, "more_body": False})


async def _discard(message: Message) -> None:
    """Swallow the response of a commit_then_drop request."""
