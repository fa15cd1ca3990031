"""
The async hook: a Messaging Platform connection turned into an ``AsyncMessagingPlatformClient``, for triggers.

It reads the connection with Airflow's async connection API, so that the triggerer's event loop never waits on a
blocking lookup, and builds its client with the function the sync hook uses (``hooks.connection``): both hooks
address, authenticate, time out and carry the platform time zone alike.

A hook lives as long as its triggers, often longer than a key: when a key rotation writes a new key into the
connection and revokes the old one, calls start to get 401. A call answered 401 re-reads the connection (once for
all the callers that hit the same stale client) and, if it now holds other credentials, is sent again with them;
otherwise, or on a second 401, the 401 reaches the caller. The sync hook does the same for tasks.

Nothing here imports the sync client (``requests`` and every API method): the triggerer imports this module on its
event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError, secret_forms
from messaging_platform_provider.client.operations import Operation, resolve
from messaging_platform_provider.hooks.connection import (
    ConnectionSettings,
    client_from_settings,
    settings_from_connection,
)
from messaging_platform_provider.hooks.names import CONN_TYPE, DEFAULT_CONN_ID
from messaging_platform_provider.version_compat import BaseHook, aget_connection, amask_secret


class MessagingPlatformAsyncHook(BaseHook):
    """
    Async access to the Messaging Platform API v2.1 for triggers: ``call`` as on the client, with the re-read of
    the connection after a 401 (see the module). One client per hook; ``aclose`` closes it.

    :param messaging_platform_conn_id: the Airflow connection id.
    :param account_id: default account for this hook, over the connection's.
    :param timeout: ``(connect, read)`` seconds, over the connection's ``connect_timeout``/``read_timeout``.
    """

    conn_name_attr = "messaging_platform_conn_id"
    default_conn_name = DEFAULT_CONN_ID
    conn_type = CONN_TYPE
    hook_name = "Messaging Platform (async)"

    def __init__(
        self,
        messaging_platform_conn_id: str = default_conn_name,
        *,
        account_id: int | None = None,
        timeout: tuple[float, float] | None = None,
    ) -> None:
        super().__init__()
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id
        self.timeout = timeout
        self._settings: ConnectionSettings | None = None
        self._client: AsyncMessagingPlatformClient | None = None
        self._retired: list[AsyncMessagingPlatformClient] = []  # may still have calls in flight: closed at the end
        self._reading = asyncio.Lock()

    async def aget_settings(self) -> ConnectionSettings:
        """What the connection holds now, read without blocking the event loop; the secret (each form) masked first."""
        conn = await aget_connection(self.messaging_platform_conn_id)
        for secret in secret_forms(conn.login or "", conn.password or ""):  # the base64 Basic credential too
            await amask_secret(secret)
        return settings_from_connection(conn)

    async def aget_conn(self) -> AsyncMessagingPlatformClient:
        """The hook's client, built from the connection on the first call (and again after a 401, see ``call``)."""
        client = self._client
        if client is None:
            async with self._reading:  # callers arriving meanwhile wait for this read instead of making their own
                if self._client is None:
                    self._settings = await self.aget_settings()
                    self._client = await self._build(self._settings)
                client = self._client
        return client

    async def call(self, operation: Operation | str, **arguments: Any) -> Any:
        """
        ``AsyncMessagingPlatformClient.call`` (the same arguments) on the connection's client, which is the
        transport; after a 401 the connection is read again and the call sent once more if it now holds another key.
        """
        client = await self.aget_conn()
        try:
            result = await client.call(operation, **arguments)
        except MessagingPlatformApiError as exc:
            # A 401 is refused before anything is done, so sending the call again is safe, even a create.
            if exc.status != 401 or not await self._reread_connection(client):
                raise
            client = await self.aget_conn()
            result = await client.call(operation, **arguments)
        for secret in resolve(operation).secrets_in(result):
            await amask_secret(secret)  # masked the moment it is read, as the sync hook does
        return result

    async def _reread_connection(self, stale: AsyncMessagingPlatformClient) -> bool:
        """After a 401 on ``stale``: whether a client with other credentials is now in place."""
        async with self._reading:
            if self._client is not stale:
                return True  # another caller has re-read the connection since this call was sent
            settings = await self.aget_settings()
            if settings == self._settings:
                return False  # the connection still holds the key that was refused: nothing to try again with
            self._settings, self._client = settings, await self._build(settings)
            self._retired.append(stale)
            return True

    async def _build(self, settings: ConnectionSettings) -> AsyncMessagingPlatformClient:
        # Building an httpx client loads the CA bundle from disk: done off the event loop.
        return await asyncio.to_thread(
            client_from_settings,
            settings,
            AsyncMessagingPlatformClient,
            account_id=self.account_id,
            timeout=self.timeout,
        )

    async def aclose(self) -> None:
        """Close the client and every client a re-read replaced; the next call reads the connection again."""
        clients = [*self._retired, *([self._client] if self._client is not None else [])]
        self._retired, self._client, self._settings = [], None, None
        for client in clients:
            await client.aclose()
