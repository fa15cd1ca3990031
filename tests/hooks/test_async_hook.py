"""
``MessagingPlatformAsyncHook`` against the emulator, as the triggers' pool uses it: the client it builds from the
connection (with the sync hook's function: base URL, credentials, account, timeouts, time zone), the pool handing
it out, and the re-read of the connection after a 401, once for every caller that hit the stale client.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from messaging_platform_provider.client.errors import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook
from messaging_platform_provider.triggers.pool import clients_open, shared_hook
from tests.support.waiting import PATIENCE, key_of, rotate_key

CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"
CONN_ID = "messaging_platform_default"


def key_listings(platform: Any, after: int = 0) -> list[dict[str, Any]]:
    """The recorded ``list_api_keys`` calls after request ``seq`` ``after``, oldest first."""
    return [
        r
        for r in platform.control.requests()
        if r["seq"] > after and r["method"] == "GET" and r["path"].endswith(f"/{platform.seed.account_id}/api-key")
    ]


def last_seq(platform: Any) -> int:
    return max((r["seq"] for r in platform.control.requests()), default=0)


# -- the client, built from the connection ------------------------------------------------------------------


def test_the_client_is_built_from_the_connection(platform):
    async def scenario() -> tuple[Any, Any]:
        hook = MessagingPlatformAsyncHook()
        try:
            client = await hook.aget_conn()
            return client, await hook.call("list_api_keys")
        finally:
            await hook.aclose()

    client, keys = asyncio.run(scenario())
    assert (client.base_url, client.account_id) == (platform.base_url, platform.seed.account_id)
    assert platform.seed.api_key in {k["Key"] for k in keys}
    (sent,) = key_listings(platform)
    assert sent["status"] == 200 and key_of(sent) == platform.seed.api_key  # the connection's login and password


def test_a_secret_in_an_answer_is_masked_as_it_is_read(platform):
    """What the sync hook does (``Operation.secrets_in``): the new key's secret is masked before anything logs it."""
    from messaging_platform_provider.client.operations import Operations
    from tests.support.airflow_versions import secrets_masker

    async def scenario() -> Any:
        hook = MessagingPlatformAsyncHook()
        try:
            return await hook.call(Operations.create_api_key, body={"Label": "Masked in a trigger", "TypeId": 2})
        finally:
            await hook.aclose()

    secret = asyncio.run(scenario())["Secret"]
    assert secret and secrets_masker().redact(f"value={secret}") == "value=***"


def test_timeouts_come_from_the_connection_and_the_hooks_own_win(platform, monkeypatch):
    # The read timeouts that must not be in force (the connection's 600 s, the default 60 s) are far beyond the
    # generous wait below, and the emulator holds each answer longer than that wait: only the read timeout given
    # (0.5 s, from the connection or the hook) ends the call within it.
    monkeypatch.setenv(CONN_ENV, platform.connection_json(extra={"read_timeout": 600}))
    monkeypatch.setenv("AIRFLOW_CONN_MP_SHORT", platform.connection_json(extra={"read_timeout": 0.5}))
    listing = f"/account/{platform.seed.account_id}/api-key$"
    platform.control.add_fault(kind="delay", delay=2 * PATIENCE, count=2, method="GET", path=listing)

    async def read_times_out(hook: MessagingPlatformAsyncHook) -> None:
        try:
            with pytest.raises(MessagingPlatformApiError) as failed:
                await asyncio.wait_for(hook.call("list_api_keys"), PATIENCE)
            assert failed.value.status is None  # no answer: the read timed out
        except asyncio.TimeoutError:
            raise AssertionError(f"no read timeout ended the call within {PATIENCE:g} s") from None
        finally:
            await hook.aclose()

    async def scenario() -> int | None:
        await read_times_out(MessagingPlatformAsyncHook("mp_short"))  # the connection's read timeout
        await read_times_out(MessagingPlatformAsyncHook(timeout=(5.0, 0.5)))  # the hook's own, over the connection's
        other_account = MessagingPlatformAsyncHook(account_id=4242)
        try:
            return (await other_account.aget_conn()).account_id
        finally:
            await other_account.aclose()

    assert asyncio.run(scenario()) == 4242


@pytest.mark.parametrize("zone", ["America/New_York", None], ids=["zone-set", "no-zone"])
def test_the_connections_time_zone_reaches_the_pooled_client_as_the_sync_one(platform, monkeypatch, zone):
    extra = {"timezone": zone} if zone else {}
    monkeypatch.setenv(CONN_ENV, platform.connection_json(extra=extra))

    async def scenario() -> str:
        async with shared_hook(CONN_ID) as hook:
            assert clients_open() == 1
            return (await hook.aget_conn()).platform_timezone

    assert asyncio.run(scenario()) == (zone or "UTC")
    assert clients_open() == 0  # closed with its last user
    sync = MessagingPlatformHook()
    try:
        assert sync.client.platform_timezone == (zone or "UTC")  # the same function built both
    finally:
        sync.close()


def test_a_connection_that_cannot_be_read_fails_its_user_and_leaves_no_pooled_client(platform, monkeypatch):
    monkeypatch.setenv(CONN_ENV, platform.connection_json(login=None, password=None))

    async def scenario() -> None:
        async with shared_hook(CONN_ID):
            raise AssertionError("a hook was handed out on a connection without credentials")

    with pytest.raises(MessagingPlatformValidationError, match="login/password"):
        asyncio.run(scenario())
    assert clients_open() == 0


# -- 401: a key rotated while the hook's client is in use ---------------------------------------------------


def test_a_401_re_reads_the_connection_once_for_every_caller_of_the_stale_client(platform, monkeypatch):
    monkeypatch.setenv(CONN_ENV, platform.connection_json())  # restored after rotate_key rewrites it
    reads: list[str] = []

    async def scenario() -> tuple[dict[str, Any], int, list[Any]]:
        hook = MessagingPlatformAsyncHook()
        real_read = hook.aget_settings

        async def counted_read() -> Any:
            settings = await real_read()
            reads.append(settings.api_key)
            return settings

        monkeypatch.setattr(hook, "aget_settings", counted_read)
        try:
            await hook.call("list_api_keys")  # the client is built on the seed key
            new = await asyncio.to_thread(rotate_key, platform, write_to_connection=True)
            before = await asyncio.to_thread(last_seq, platform)
            results = await asyncio.gather(*(hook.call("list_api_keys") for _ in range(5)))
            return new, before, results
        finally:
            await hook.aclose()

    new, before, results = asyncio.run(scenario())
    assert reads == [platform.seed.api_key, new["Key"]]  # built once, re-read once for the five callers
    assert all(new["Key"] in {k["Key"] for k in keys} for keys in results)
    sent = key_listings(platform, after=before)
    # Each caller sent its call on the stale key (401), then once more on the key the re-read found (200).
    assert sorted((r["status"], key_of(r)) for r in sent) == sorted(
        [(401, platform.seed.api_key)] * 5 + [(200, new["Key"])] * 5
    )
    assert platform.seed.api_secret not in json.dumps(results)


def test_a_401_with_the_refused_key_still_in_the_connection_reaches_the_caller(platform, monkeypatch):
    monkeypatch.setenv(CONN_ENV, platform.connection_json())

    async def scenario() -> int:
        hook = MessagingPlatformAsyncHook()
        try:
            await hook.call("list_api_keys")
            await asyncio.to_thread(rotate_key, platform, write_to_connection=False)
            before = await asyncio.to_thread(last_seq, platform)
            with pytest.raises(MessagingPlatformApiError) as refused:
                await hook.call("list_api_keys")
            assert refused.value.status == 401
            return before
        finally:
            await hook.aclose()

    before = asyncio.run(scenario())
    # Re-read, nothing new to try with: the call is not sent again.
    assert [(r["status"], key_of(r)) for r in key_listings(platform, after=before)] == [(401, platform.seed.api_key)]
