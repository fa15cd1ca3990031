"""
One pooled async client per connection id and event loop, shared by every trigger of that connection in a
triggerer process; closed when its last user is done. Credentials are read with the async connection API.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.client import DEFAULT_TIMEOUT
from messaging_platform_provider.hooks.connection import settings_from_connection


@dataclass
class _Entry:
    client: AsyncMessagingPlatformClient
    users: int = 0


_ENTRIES: dict[tuple[int, str], _Entry] = {}
_LOCKS: dict[tuple[int, str], asyncio.Lock] = {}


async def _build(conn_id: str) -> AsyncMessagingPlatformClient:
    from airflow.sdk import BaseHook
    from airflow.sdk.log import amask_secret

    conn = await BaseHook.aget_connection(conn_id)
    if conn.password:
        await amask_secret(conn.password)
    settings = settings_from_connection(
        host=conn.host,
        login=conn.login,
        password=conn.password,
        extras=await conn.aextra_dejson(),
        default_timeout=DEFAULT_TIMEOUT,
    )
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
async def shared_client(conn_id: str) -> AsyncIterator[AsyncMessagingPlatformClient]:
    key = (id(asyncio.get_running_loop()), conn_id)
    lock = _LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        entry = _ENTRIES.get(key)
        if entry is None:
            entry = _ENTRIES[key] = _Entry(await _build(conn_id))
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
