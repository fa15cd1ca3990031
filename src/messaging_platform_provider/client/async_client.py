"""
Asynchronous client for triggers: ``httpx.AsyncClient`` with a bounded connection pool, one attempt per call.

Request building and answer decoding are the sync client's (``request.prepare``/``decode``); retrying is left
to the caller's polling loop, which classifies errors with ``waiting.classify_error``.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
from collections.abc import Mapping
from typing import Any

import httpx

from messaging_platform_provider.client.errors import MessagingPlatformApiError, secret_forms
from messaging_platform_provider.client.operations import Operation, resolve
from messaging_platform_provider.client.request import (
    DEFAULT_TIMEOUT,
    JSON_HEADERS,
    USER_AGENT,
    PreparedRequest,
    account_for_call,
    decode,
    normalize_base_url,
    prepare,
)

DEFAULT_POOL_CONNECTIONS = 10


def _verify() -> ssl.SSLContext:
    """
    The CA bundle ``requests`` would use, so both paths trust alike: ``REQUESTS_CA_BUNDLE``, else ``CURL_CA_BUNDLE``,
    else certifi's bundle. Not ``SSL_CERT_FILE``/``SSL_CERT_DIR``, which httpx's own default reads and ``requests``
    does not.
    """
    named = os.environ.get("REQUESTS_CA_BUNDLE") or os.environ.get("CURL_CA_BUNDLE")
    if named:
        return _ssl_context(named)
    import certifi  # here, not at the top: a trigger's module import adds no third-party module to the event loop

    return _ssl_context(certifi.where())


_contexts = threading.local()


def _ssl_context(bundle: str) -> ssl.SSLContext:
    """
    One context per CA bundle and thread: loading a bundle takes 20-30 ms of CPU, which every client (one per
    trigger event loop and connection, one per bulk run) would pay again. Not shared between threads: the HTTP
    client sets ALPN on the context for each new connection, which must not race another thread's use of it.
    """
    cache: dict[str, ssl.SSLContext] = _contexts.__dict__.setdefault("by_bundle", {})
    if bundle not in cache:
        cache[bundle] = ssl.create_default_context(cafile=bundle)
    return cache[bundle]


class AsyncMessagingPlatformClient:
    """
    One pooled ``httpx.AsyncClient``; at most ``max_connections`` TCP connections, however many callers.
    ``platform_timezone``: the connection's IANA zone, carried as on the sync client (built by the same function,
    ``hooks.connection.client_from_settings``), although no call a trigger makes today sends a date-time.
    ``allow_insecure_http``: as on the sync client, allow a plain ``http://`` URL to a host that is not loopback.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str,
        *,
        account_id: int | None = None,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        max_connections: int = DEFAULT_POOL_CONNECTIONS,
        transport: httpx.AsyncBaseTransport | None = None,
        platform_timezone: str = "UTC",
        allow_insecure_http: bool = False,
    ) -> None:
        self.base_url = normalize_base_url(base_url, allow_insecure_http=allow_insecure_http)
        self.allow_insecure_http = allow_insecure_http
        self.hidden = secret_forms(api_key, api_secret)  # scrubbed from error text built from an answer
        self.account_id = account_id
        self.platform_timezone = platform_timezone
        self.max_connections = max_connections
        self._slots: asyncio.Semaphore | None = None
        self._http = httpx.AsyncClient(
            auth=(api_key, api_secret),
            headers={**JSON_HEADERS, "User-Agent": USER_AGENT},
            # pool=None: callers queue for a free connection instead of failing when all are busy.
            timeout=httpx.Timeout(connect=timeout[0], read=timeout[1], write=timeout[1], pool=None),
            limits=httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections),
            transport=transport,
            follow_redirects=False,
            verify=_verify(),
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, account_id={self.account_id!r})"

    async def call(
        self,
        operation: Operation | str,
        *,
        account_id: int | None = None,
        body: Any = None,
        query: Mapping[str, Any] | None = None,
        **path_params: Any,
    ) -> Any:
        op = resolve(operation)
        account = account_for_call(account_id, self.account_id)
        prepared = prepare(
            op,
            self.base_url,
            {"account_id": account, **path_params},
            body,
            query,
            allow_insecure_http=self.allow_insecure_http,
        )
        try:
            response = await self.send(prepared)
        except httpx.HTTPError as exc:  # transport errors and undecodable bodies: no usable answer
            raise MessagingPlatformApiError(
                method=prepared.method, path=prepared.path, status=None, reason=type(exc).__name__
            ) from exc
        retry_after = response.headers.get("Retry-After")
        return decode(op, prepared, response.status_code, response.content, hidden=self.hidden, retry_after=retry_after)

    async def send(self, prepared: PreparedRequest) -> httpx.Response:
        """One try of a prepared request, its body read; a transport error is raised as httpx's."""
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.max_connections)
        # Callers beyond the pool size wait here, in one cheap FIFO, rather than in httpcore's pool queue,
        # which rescans every waiting request whenever a connection frees up.
        async with self._slots:
            return await self._http.request(
                prepared.method, prepared.url, params=prepared.params or None, content=prepared.content
            )

    async def aclose(self) -> None:
        await self._http.aclose()
