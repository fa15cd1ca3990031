"""
The callback receiver: an ASGI app (FastAPI) that the platform POSTs callbacks to.

``POST {path}`` (and ``POST {path}/{name}``, so that one receiver can serve several callback records): the body is
read up to ``max_body_bytes`` (413 beyond, judged on Content-Length first and on the bytes streamed in any case),
parsed as JSON (422 when it is not a JSON object), its ``CallbackToken`` compared in constant time with every
configured token (401 when none matches), validated for its CallbackType (422 naming the fields, never their
values), then stored. 200 means the callback is committed to the store: ``{"status": "stored"}`` the first time,
``{"status": "duplicate"}`` for a resend of a stored TransactionId. 503 when no token is configured or the store
cannot be written (the platform redelivers).

Writes are batched: callbacks arriving while a batch commits form the next batch, so one commit (one fsync on
SQLite) acknowledges many, and each answer still waits for its own commit.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from messaging_platform_provider.callbacks.models import CallbackValidationError, find_token, parse_callback
from messaging_platform_provider.callbacks.settings import resolve_tokens
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_PATH = "/callbacks"
MAX_BATCH = 500

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class StoreUnavailable(RuntimeError):
    """The store could not be written; the callback was not acknowledged."""


class _Pending:
    __slots__ = ("item", "future")

    def __init__(self, item: NewCallback, future: asyncio.Future[bool]) -> None:
        self.item = item
        self.future = future


class BatchWriter:
    """Group commit: one task per event loop takes what is waiting, stores it in one transaction on a thread."""

    def __init__(self, store: CallbackStore, max_batch: int = MAX_BATCH) -> None:
        self.store = store
        self.max_batch = max_batch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0

    def _ensure_running(self) -> asyncio.Queue[_Pending]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done() or self._queue is None:
            self._loop = loop
            self._queue = asyncio.Queue()
            self._task = loop.create_task(self._run(self._queue), name="messaging-platform-callback-writer")
        return self._queue

    async def submit(self, item: NewCallback) -> bool:
        """Store one callback; True when it was new. Returns once it is committed."""
        queue = self._ensure_running()
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        queue.put_nowait(_Pending(item, future))
        return await future

    async def _run(self, queue: asyncio.Queue[_Pending]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self.max_batch and not queue.empty():
                batch.append(queue.get_nowait())
            try:
                flags = await asyncio.to_thread(self.store.add_many, [p.item for p in batch])
            except Exception as exc:  # the store is down or locked: answer 503, the platform redelivers
                log.warning("Could not store %d callback(s): %s", len(batch), type(exc).__name__)
                for pending in batch:
                    if not pending.future.done():
                        pending.future.set_exception(StoreUnavailable("the callback store could not be written"))
                continue
            self.batches += 1
            for pending, is_new in zip(batch, flags, strict=True):
                if not pending.future.done():
                    pending.future.set_result(is_new)

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None


class Receiver:
    """
    What the receiver app needs: the accepted tokens and the store, resolved when first needed (so that a plugin
    imported before Airflow's configuration is complete still finds it).

    :param tokens: accepted callback tokens; ``None`` resolves them from the environment / Airflow config.
    :param database_url: the store's URL; ``None`` resolves it (``settings.resolve_database_url``).
    :param store: an existing store instead of ``database_url``.
    """

    def __init__(
        self,
        *,
        tokens: Iterable[str] | None = None,
        database_url: str | None = None,
        store: CallbackStore | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    ) -> None:
        self._explicit_tokens = list(tokens) if tokens is not None else None
        self._database_url = database_url
        self._store = store
        self._tokens: list[bytes] | None = None
        self._writer: BatchWriter | None = None
        self._lock = threading.Lock()
        self.max_body_bytes = max_body_bytes

    def __repr__(self) -> str:  # never shows tokens
        return f"Receiver(tokens={len(self.tokens)} configured, store={self.store!r})"

    @property
    def tokens(self) -> list[bytes]:
        if self._tokens is None:
            self._tokens = [_norm(t) for t in resolve_tokens(self._explicit_tokens)]
        return self._tokens

    @property
    def store(self) -> CallbackStore:
        with self._lock:
            if self._store is None:
                self._store = CallbackStore(self._database_url)
            return self._store

    @property
    def writer(self) -> BatchWriter:
        with self._lock:
            if self._writer is None:
                self._writer = BatchWriter(self._store or CallbackStore(self._database_url))
                self._store = self._writer.store
            return self._writer

    async def awriter(self) -> BatchWriter:
        """The writer, its store built (disk, schema) in a thread the first time: never on the event loop."""
        if self._writer is None:
            await asyncio.to_thread(lambda: self.writer)
        return self.writer

    def token_ok(self, token: str | None) -> bool:
        """Constant-time comparison with every configured token (no early exit, no hint of which one)."""
        candidate = _norm(token) if isinstance(token, str) else b""
        matched = False
        for expected in self.tokens:
            matched |= hmac.compare_digest(candidate, expected)
        return matched and bool(candidate)

    async def aclose(self) -> None:
        if self._writer is not None:
            await self._writer.aclose()


def _norm(token: str) -> bytes:
    """Tokens are GUIDs: compared without surrounding space and without regard to case (``A1B2`` = ``a1b2``)."""
    return token.strip().lower().encode("utf-8")


class BodyTooLarge(Exception):
    pass


async def _read_body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            if int(declared) > limit:
                raise BodyTooLarge
        except ValueError:
            pass
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise BodyTooLarge
    return bytes(body)


def create_receiver_app(receiver: Receiver | None = None, *, path: str = DEFAULT_PATH, **kwargs: Any) -> FastAPI:
    """The receiver as a FastAPI app. ``kwargs`` build a ``Receiver`` when none is given."""
    receiver = receiver or Receiver(**kwargs)
    path = "/" + path.strip("/") if path.strip("/") else ""
    app = FastAPI(title="Messaging Platform callback receiver", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.receiver = receiver

    def answer(status_code: int, **content: Any) -> JSONResponse:
        return JSONResponse(content, status_code=status_code)

    async def receive(request: Request) -> JSONResponse:
        try:
            raw = await _read_body(request, receiver.max_body_bytes)
        except BodyTooLarge:
            return answer(413, detail=f"the body is larger than {receiver.max_body_bytes} bytes")
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return answer(422, detail=[{"loc": [], "msg": "the body is not JSON", "type": "json_invalid"}])
        if not isinstance(data, dict):
            return answer(422, detail=[{"loc": [], "msg": "the body must be a JSON object", "type": "object_type"}])
        if not receiver.tokens:
            return answer(503, detail="the receiver has no callback token configured")
        if not receiver.token_ok(find_token(data)):
            return answer(401, detail="unknown or missing CallbackToken")
        try:
            model = parse_callback(data)
        except CallbackValidationError as exc:
            return answer(422, detail=exc.errors)
        try:
            writer = await receiver.awriter()
            is_new = await writer.submit(NewCallback.from_model(model))
        except StoreUnavailable as exc:
            return answer(503, detail=str(exc))
        return answer(200, status="stored" if is_new else "duplicate", TransactionId=model.TransactionId)

    async def receive_named(name: str, request: Request) -> JSONResponse:
        return await receive(request)

    async def health() -> dict[str, str]:
        return {"status": "ok"}

    app.add_api_route(path or "/", receive, methods=["POST"], include_in_schema=False)
    app.add_api_route(f"{path}/{{name}}", receive_named, methods=["POST"], include_in_schema=False)
    app.add_api_route("/health", health, methods=["GET"], include_in_schema=False)
    return app
