"""
The callback receiver: an ASGI app (FastAPI) that the platform POSTs callbacks to.

``POST {path}`` (also ``{path}/``, never redirected, and ``POST {path}/{name}``, so that one receiver can serve
several callback records). Checks, in order: the body is read up to ``max_body_bytes`` (413 beyond, judged on
Content-Length first and on the bytes streamed in any case); parsed as JSON, at most ``limits.MAX_JSON_DEPTH``
objects/arrays deep, no NaN/Infinity, no lone surrogate (422 otherwise, and when it is not a JSON object); 503 when
no token is configured; its ``CallbackToken`` compared in constant time with every configured token (401 when none
matches); validated for its CallbackType (422 naming the fields, never their values); 422 when a consumer could not
carry the payload or the store could not hold a field (``limits``); 422 when its ``CallbackTimestamp`` lies outside
the freshness window (``settings.Freshness``); 401 when tokens are bound to accounts and the token is not one of the
callback's account; then stored. 200 means the callback is committed to the store and every consumer can carry it:
``{"status": "stored"}`` the first time, ``{"status": "duplicate"}`` for a resend of a stored TransactionId. 503
only when the store cannot be opened or written (the platform redelivers).

Writes are batched (``writer.BatchWriter``); a failed batch is written again one callback at a time, so that one
callback never fails another.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from datetime import datetime, timezone
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from messaging_platform_provider.callbacks.limits import (
    carriage_errors,
    finite_float,
    json_problem,
    reject_constant,
    store_limit_errors,
)
from messaging_platform_provider.callbacks.models import (
    CallbackValidationError,
    NewAccountCallback,
    find_token,
    parse_callback,
)
from messaging_platform_provider.callbacks.schema import NewCallback
from messaging_platform_provider.callbacks.settings import (
    Freshness,
    parse_token,
    resolve_bind_tokens,
    resolve_freshness,
    resolve_tokens,
)
from messaging_platform_provider.callbacks.store import CallbackStore
from messaging_platform_provider.callbacks.writer import MAX_BATCH, BatchWriter, CallbackRejected, StoreUnavailable

__all__ = ["MAX_BATCH", "BatchWriter", "Receiver", "StoreUnavailable", "create_receiver_app"]

log = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_PATH = "/callbacks"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class Receiver:
    """
    What the receiver app needs: the accepted tokens and the store, resolved when first needed (so that a plugin
    imported before Airflow's configuration is complete still finds it).

    :param tokens: accepted callback tokens; ``None`` resolves them from the environment / Airflow config.
    :param database_url: the store's URL; ``None`` resolves it (``settings.resolve_database_url``).
    :param store: an existing store instead of ``database_url``.
    :param bind_tokens: whether a token only authenticates callbacks of its own account (tokens written
        ``ACCOUNT_ID:TOKEN``); ``None`` resolves it (``settings.resolve_bind_tokens``, default True).
    :param max_age_seconds: how old a ``CallbackTimestamp`` may be; ``None`` resolves it (default a day).
    :param max_clock_skew_seconds: how far ahead of this clock a ``CallbackTimestamp`` may be; ``None`` resolves it
        (default five minutes).
    """

    def __init__(
        self,
        *,
        tokens: Iterable[str] | None = None,
        database_url: str | None = None,
        store: CallbackStore | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        bind_tokens: bool | None = None,
        max_age_seconds: float | None = None,
        max_clock_skew_seconds: float | None = None,
    ) -> None:
        self._explicit_tokens = list(tokens) if tokens is not None else None
        self._explicit_bind = bind_tokens
        self._explicit_freshness = (max_age_seconds, max_clock_skew_seconds)
        self._freshness: Freshness | None = None
        self._database_url = database_url
        self._store = store
        self._tokens: list[tuple[int | None, bytes]] | None = None
        self._bind: bool | None = None
        self._writer: BatchWriter | None = None
        self._lock = threading.Lock()
        self.max_body_bytes = max_body_bytes

    def __repr__(self) -> str:  # never shows tokens
        return f"Receiver(tokens={len(self.tokens)} configured, store={self.store!r})"

    @property
    def bind_tokens(self) -> bool:
        if self._bind is None:
            self._bind = resolve_bind_tokens(self._explicit_bind)
        return self._bind

    @property
    def tokens(self) -> list[tuple[int | None, bytes]]:
        """The usable tokens, each with its account (None: bound to none, only usable when binding is off)."""
        if self._tokens is None:
            entries = [parse_token(t) for t in resolve_tokens(self._explicit_tokens)]
            usable = [(account, _norm(t)) for account, t in entries if _norm(t)]
            if self.bind_tokens:
                unbound = sum(1 for account, _ in usable if account is None)
                if unbound:
                    log.warning(
                        "%d callback token(s) without an account (ACCOUNT_ID:TOKEN) ignored: tokens are bound to "
                        "accounts (turn binding off with MESSAGING_PLATFORM_CALLBACK_BIND_TOKENS=false)",
                        unbound,
                    )
                usable = [(account, t) for account, t in usable if account is not None]
            self._tokens = usable
        return self._tokens

    @property
    def freshness(self) -> Freshness:
        if self._freshness is None:
            self._freshness = resolve_freshness(*self._explicit_freshness)
        return self._freshness

    def owners(self, model: Any) -> set[int | None]:
        """
        The accounts whose token may carry this callback: its ``AccountId``; for NewAccount also its ``ParentId``
        (the event goes to the parent's callback records, with the parent's token, while AccountId is the new
        account), but only while the new account has no token of its own here: once it has, the parent's token
        cannot speak for it.
        """
        if isinstance(model, NewAccountCallback) and model.ParentId is not None:
            if model.AccountId not in {account for account, _ in self.tokens}:
                return {model.AccountId, model.ParentId}
        return {model.AccountId}

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

    def token_accounts(self, token: str | None) -> set[int | None]:
        """
        The accounts of the configured tokens equal to ``token`` (empty: none matches). Compared in constant time
        with every configured token (no early exit, no hint of which one).
        """
        candidate = _norm(token) if isinstance(token, str) else b""  # matches none: configured tokens are not empty
        return {account for account, expected in self.tokens if hmac.compare_digest(candidate, expected)}

    async def aclose(self) -> None:
        if self._writer is not None:
            await self._writer.aclose()


def _norm(token: str) -> bytes:
    """Tokens are GUIDs: compared without surrounding space and without regard to case (``A1B2`` = ``a1b2``)."""
    return token.strip().lower().encode("utf-8")


def freshness_error(timestamp: str, freshness: Freshness, now: datetime) -> dict[str, Any] | None:
    """Why ``CallbackTimestamp`` (UTC; validated by the model) is outside the window around ``now``, or None."""
    now = now.astimezone(timezone.utc).replace(tzinfo=None) if now.tzinfo is not None else now
    try:
        issued = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
        if issued.tzinfo is not None:
            issued = issued.astimezone(timezone.utc).replace(tzinfo=None)
        age = (now - issued).total_seconds()
    except OverflowError:  # an offset that moves it past year 1 or 9999
        age = float("inf")
    if age > freshness.max_age:
        msg = f"is more than {freshness.max_age:g} seconds old (a replay, or a clock far behind)"
    elif -age > freshness.max_skew:
        msg = f"is more than {freshness.max_skew:g} seconds ahead of the receiver's clock"
    else:
        return None
    return {"loc": ["CallbackTimestamp"], "msg": msg, "type": "freshness"}


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
    stripped = path.strip("/")
    path = f"/{stripped}" if stripped else ""
    app = FastAPI(
        openapi_url=None,  # no schema, hence no /docs or /redoc pages either
        redirect_slashes=False,  # never a redirect built from the Host header; "{path}/" is served below
    )

    def answer(status_code: int, **content: Any) -> JSONResponse:
        return JSONResponse(content, status_code=status_code)

    def invalid(errors: list[dict[str, Any]]) -> JSONResponse:
        return answer(422, detail=errors)

    async def receive(request: Request) -> JSONResponse:
        try:
            raw = await _read_body(request, receiver.max_body_bytes)
        except BodyTooLarge:
            return answer(413, detail=f"the body is larger than {receiver.max_body_bytes} bytes")
        except ClientDisconnect:  # gone before its body was complete (or cut off by a body deadline): not stored
            return answer(400, detail="the client disconnected")
        try:
            data = json.loads(raw, parse_constant=reject_constant, parse_float=finite_float)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return invalid([{"loc": [], "msg": "the body is not JSON", "type": "json_invalid"}])
        problem = json_problem(data)
        if problem is not None:
            return invalid([problem])
        if not isinstance(data, dict):
            return invalid([{"loc": [], "msg": "the body must be a JSON object", "type": "object_type"}])
        if not receiver.tokens:
            return answer(503, detail="the receiver has no callback token configured")
        accounts = receiver.token_accounts(find_token(data))
        if not accounts:
            return answer(401, detail="unknown or missing CallbackToken")
        try:
            model = parse_callback(data)
        except CallbackValidationError as exc:
            return invalid(exc.errors)
        item = NewCallback.from_model(model)
        errors = carriage_errors(item.payload) or store_limit_errors(item)
        stale = freshness_error(model.CallbackTimestamp, receiver.freshness, datetime.now(timezone.utc))
        if stale is not None:
            errors.append(stale)
        if errors:
            return invalid(errors)
        if receiver.bind_tokens and not accounts & receiver.owners(model):
            return answer(401, detail="the CallbackToken is not the token of this AccountId")
        try:
            writer = await receiver.awriter()
        except Exception as exc:  # the store cannot be opened (database down, no permission): redelivered later
            log.warning("Could not open the callback store (%s); answered 503", type(exc).__name__)
            return answer(503, detail="the callback store could not be opened")
        try:
            is_new = await writer.submit(item)
        except StoreUnavailable as exc:
            return answer(503, detail=str(exc))
        except CallbackRejected as exc:
            return invalid([{"loc": [], "msg": str(exc), "type": "store_refused"}])
        return answer(200, status="stored" if is_new else "duplicate", TransactionId=model.TransactionId)

    async def receive_named(name: str, request: Request) -> JSONResponse:
        return await receive(request)

    async def health() -> dict[str, str]:
        return {"status": "ok"}

    app.add_api_route(path or "/", receive, methods=["POST"], include_in_schema=False)
    if path:
        app.add_api_route(f"{path}/", receive, methods=["POST"], include_in_schema=False)
    app.add_api_route(f"{path}/{{name}}", receive_named, methods=["POST"], include_in_schema=False)
    app.add_api_route("/health", health, methods=["GET"], include_in_schema=False)
    return app
