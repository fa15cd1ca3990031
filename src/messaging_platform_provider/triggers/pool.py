"""
One async hook per connection id and event loop, shared by every trigger of that connection in a triggerer
process, so that they share one pooled client; closed when its last user is done.

The hook (``MessagingPlatformAsyncHook``) reads the connection with the async connection API, builds the client
as the sync hook does (time zone included), and re-reads the connection once after a 401 for all the triggers
that hit the same stale client.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook


@dataclass
class _Entry:
    hook: MessagingPlatformAsyncHook
    users: int = 0


_ENTRIES: dict[tuple[int, str], _Entry] = {}
_LOCKS: dict[tuple[int, str], asyncio.Lock] = {}


@asynccontextmanager
async def shared_hook(conn_id: str) -> AsyncIterator[MessagingPlatformAsyncHook]:
    """The connection's shared hook, its client built (the connection read) before the first user gets it."""
    key = (id(asyncio.get_running_loop()), conn_id)
    lock = _LOCKS.setdefault(key, asyncio.Lock())
    async with lock:
        entry = _ENTRIES.get(key)
        if entry is None:
            hook = MessagingPlatformAsyncHook(conn_id)
            await hook.aget_conn()  # a connection that cannot be read fails this user, and leaves no entry behind
            entry = _ENTRIES[key] = _Entry(hook)
        entry.users += 1
    try:
        yield entry.hook
    finally:
        entry.users -= 1
        if entry.users == 0 and _ENTRIES.get(key) is entry:
            del _ENTRIES[key]
            _LOCKS.pop(key, None)
            await entry.hook.aclose()


def clients_open() -> int:
    """How many shared clients (one per shared hook) exist now (for tests and benchmarks)."""
    return len(_ENTRIES)
