"""
One pooled async client per connection id and event loop, shared by every trigger of that connection in a
triggerer process; closed when its last user is done. Credentials are read with the async connection API.

A pool lives as long as its triggers, often longer than a key: when a key rotation writes a new key into the
connection and revokes the old one, calls start to get 401. A call answered 401 re-reads the connection (once
for all triggers that hit the same stale client) and, if it now holds other credentials, is sent again with them;
otherwise, or on a second 401, the 401 reaches the trigger. The hook does the same for tasks.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.request import DEFAULT_TIMEOUT
from messaging_platform_provider.hooks.connection import ConnectionSettings, settings_from_connection


class PooledClient:
    """The shared client of one connection: ``call`` as on the client, with the re-read on 401 (see the module)."""

    def __init__(self, conn_id: str, settings: ConnectionSettings, client: AsyncMessagingPlatformClient) -> None:
        self.conn_id = conn_id
        self._settings = settings
        self._client = client
        self._retired: list[AsyncMessagingPlatformClient] = []  # may still have calls in flight: closed at the end
        self._reloading = asyncio.Lock()

    async def call(self, operation: str, **kwargs: Any) -> Any:
        client = self._client
        try:
            return await client.call(operation, **kwargs)
        except MessagingPlatformApiError as exc:
            if exc.status != 401 or not await self._reload(client):
                raise
        return await self._client.call(operation, **kwargs)

    async def _reload(self, stale: AsyncMessagingPlatformClient) -> bool:
        """After a 401 on ``stale``: whether a client with other credentials is now in place."""
        async with self._reloading:
            if self._client is not stale:
                return True  # another caller has re-read the connection since this call was sent
            settings = await _read_settings(self.conn_id)
            if settings == self._settings:
                return False  # the connection still holds the key that was refused: nothing to try again with
            self._settings, self._client = settings, await _client_for(settings)
            self._retired.append(stale)
            return True

    async def aclose(self) -> None:
        for client in (*self._retired, self._client):
            await client.aclose()


@dataclass
class _Entry:
    client: PooledClient
    users: int = 0


_ENTRIES: dict[tuple[int, str], _Entry] = {}
_LOCKS: dict[tuple[int, str], asyncio.Lock] = {}


async def _read_settings(conn_id: str) -> ConnectionSettings:
    from messaging_platform_provider.compat import aget_connection, amask_secret

    conn = await aget_connection(conn_id)
    if conn.password:
        await amask_secret(conn.password)
    return settings_from_connection(conn, default_timeout=DEFAULT_TIMEOUT)


async def _client_for(settings: ConnectionSettings) -> AsyncMessagingPlatformClient:
    # Building an httpx client loads the CA bundle from disk: do it off the event loop.
    return await asyncio.to_thread(
        AsyncMessagingPlatformClient,
        settings.base_url,
        settings.api_key,
        settings.api_secret,
        account_id=settings.account_id,
        timeout=settings.timeout,
    )


@asynccontextmanager
async def shared_client(conn_id: str) -> AsyncIterator[PooledClient]:
    key = (id(asyncio.get_running_loop()), conn_id)
    lock = _LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        entry = _ENTRIES.get(key)
        if entry is None:
            settings = await _read_settings(conn_id)
            entry = _ENTRIES[key] = _Entry(PooledClient(conn_id, settings, await _client_for(settings)))
        entry.users += 1
    try:
        yield entry.client
    finally:
        entry.users -= 1
        if entry.users == 0 and _ENTRIES.get(key) is entry:
            del _ENTRIES[key]
            _LOCKS.pop(key, None)
            await entry.client.aclose()


def clients_open() -> int:
    """How many shared clients exist now (for tests and benchmarks)."""
    return len(_ENTRIES)
