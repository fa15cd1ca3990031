"""
The connection's secret and the secrets the API hands out, kept out of logs: the connection settings, the hooks and
the clients built from them never show the secret in their ``repr`` or ``str`` (a log line or a traceback that shows
one of them), and every secret the hooks read (the connection's password, an API key's ``Secret`` from a create, a
get or a secret change) is registered with Airflow's secrets masker the moment it is read. In-process, against the
emulator; the masker is the process's, so each secret checked here is one no other test can have masked first.
"""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.hooks.connection import client_from_settings, settings_from_connection
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook
from tests.support.airflow_versions import secrets_masker

KEY = "repr-probe-key-0a1b2c3d"
SECRET = "repr-probe-secret-4e5f6a7b"
BASIC = base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()


def masked(secret: str) -> bool:
    """Whether Airflow's secrets masker hides ``secret`` in a log line."""
    return bool(secrets_masker().redact(f"value={secret}") == "value=***")


# -- repr and str --------------------------------------------------------------------------------------------------


def shown(*objects: Any) -> list[str]:
    """Every text a log line or a traceback could show of ``objects``: their repr and str, alone and in containers."""
    texts = []
    for obj in objects:
        texts += [repr(obj), str(obj), f"{obj}", f"{obj!r}", repr([obj]), str({"settings": obj})]
    return texts


def assert_no_secret(texts: list[str]) -> None:
    for text in texts:
        assert SECRET not in text and BASIC not in text, text


def test_the_settings_show_no_secret_but_say_what_they_are_for():
    conn = SimpleNamespace(
        host=None,
        login=KEY,
        password=SECRET,
        extra=json.dumps({"base_url": "https://platform.example.com/api/v2.1", "account_id": 1001}),
    )
    settings = settings_from_connection(conn)
    assert settings.api_secret == SECRET  # it is there, only not shown
    assert_no_secret(shown(settings))
    assert repr(settings) == "ConnectionSettings(base_url='https://platform.example.com/api/v2.1', account_id=1001)"
    sync_client = client_from_settings(settings, MessagingPlatformClient)
    async_client = client_from_settings(settings, AsyncMessagingPlatformClient)
    try:
        assert_no_secret(shown(sync_client, async_client))
        assert repr(sync_client) == (
            "MessagingPlatformClient(base_url='https://platform.example.com/api/v2.1', account_id=1001)"
        )
    finally:
        sync_client.close()
        asyncio.run(async_client.aclose())


def test_the_hooks_and_their_clients_show_no_secret(monkeypatch):
    conn = {
        "conn_type": "messagingplatform",
        "login": KEY,
        "password": SECRET,
        "extra": {"base_url": "https://platform.example.com/api/v2.1", "account_id": 1001},
    }
    monkeypatch.setenv("AIRFLOW_CONN_MP_REPR_PROBE", json.dumps(conn))
    hook = MessagingPlatformHook("mp_repr_probe")
    assert hook.settings.api_secret == SECRET
    try:
        assert_no_secret(shown(hook, hook.settings, hook.client, hook.get_conn()))
    finally:
        hook.close()

    async def read() -> list[str]:
        async_hook = MessagingPlatformAsyncHook("mp_repr_probe")
        try:
            client = await async_hook.aget_conn()
            return shown(async_hook, client, await async_hook.aget_settings())
        finally:
            await async_hook.aclose()

    assert_no_secret(asyncio.run(read()))


# -- the secrets masker ----------------------------------------------------------------------------------------------


def unseen_key(platform: Any, label: str) -> dict[str, Any]:
    """A key made on the platform (not through a hook): its secret has not been read by anything in this process."""
    key = platform.control.add_api_key(label=label)
    assert not masked(key["Secret"]), "the test needs a secret nothing has masked yet"
    return key


def test_the_sync_hook_masks_each_secret_it_reads(platform):
    hook = MessagingPlatformHook()
    created = hook.create_api_key("Masked on create")
    assert masked(created["Secret"])
    key = unseen_key(platform, "Masked on get")
    assert hook.get_api_key(key["Id"])["Secret"] == key["Secret"]
    assert masked(key["Secret"])
    changed = hook.change_api_key_secret(key["Id"])["Secret"]
    assert changed != key["Secret"] and masked(changed)


def test_call_many_masks_each_secret_it_reads(platform):
    keys = [unseen_key(platform, f"Masked in bulk {i}") for i in range(3)]
    outcomes = MessagingPlatformHook().call_many(Operations.get_api_key, [{"key_id": k["Id"]} for k in keys])
    assert [o.value["Secret"] for o in outcomes] == [k["Secret"] for k in keys]
    assert [masked(k["Secret"]) for k in keys] == [True, True, True]


def test_the_async_hook_masks_each_secret_it_reads(platform):
    key = unseen_key(platform, "Masked by a trigger")

    async def read() -> dict[str, Any]:
        hook = MessagingPlatformAsyncHook()
        try:
            answer: dict[str, Any] = await hook.call(Operations.get_api_key, key_id=key["Id"])
            return answer
        finally:
            await hook.aclose()

    assert asyncio.run(read())["Secret"] == key["Secret"]
    assert masked(key["Secret"])


@pytest.mark.parametrize("hook_class", [MessagingPlatformHook, MessagingPlatformAsyncHook], ids=["sync", "async"])
def test_reading_the_connection_masks_its_password_in_every_form(monkeypatch, hook_class):
    secret = f"{hook_class.__name__}-connection-secret-{uuid.uuid4().hex}"  # masked by no earlier session either
    conn = {
        "conn_type": "messagingplatform",
        "login": KEY,
        "password": secret,
        "extra": {"base_url": "https://platform.example.com/api/v2.1", "account_id": 1001},
    }
    monkeypatch.setenv("AIRFLOW_CONN_MP_MASK_PROBE", json.dumps(conn))
    basic = base64.b64encode(f"{KEY}:{secret}".encode()).decode()
    assert not masked(secret) and not masked(basic)
    hook = hook_class("mp_mask_probe")
    if isinstance(hook, MessagingPlatformHook):
        assert hook.settings.api_secret == secret
    else:
        assert asyncio.run(hook.aget_settings()).api_secret == secret
    assert masked(secret) and masked(basic)
