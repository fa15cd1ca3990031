"""
A platform (or a proxy before it) that answers 401 by echoing the request's Authorization header: the base64 Basic
credential is the key and secret in all but name. The clients scrub every form of the secret from the error they
build; the hooks register every form with Airflow's secrets masker.
"""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformClient, RetryPolicy
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.errors import parse_error_details, secret_forms
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.messaging_platform_async import MessagingPlatformAsyncHook
from tests.support.airflow_versions import secrets_masker

KEY = "echo-key-0123456789abcdef"
SECRET = "s3cr3t-Echoed-Secret-0042"
TOKEN = base64.b64encode(f"{KEY}:{SECRET}".encode()).decode()
#: What must not appear in any text of the error: the secret, the pair, the base64 (and so the Basic value).
LEAKS = (SECRET, f"{KEY}:{SECRET}", TOKEN, SECRET[:8])


class _Echo(BaseHTTPRequestHandler):
    """Answers 401 echoing the Authorization header: as JSON error objects on /campaign, as plain text elsewhere."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        auth = self.headers.get("Authorization", "")
        token = auth.removeprefix("Basic ")
        pair = base64.b64decode(token).decode()
        secret = pair.split(":", 1)[1]
        echoed = f"Authorization '{auth}' refused; credential {token}; pair {pair}; secret {secret}"
        if self.path.endswith("/campaign"):
            body = json.dumps(
                [
                    {"ErrorCodeId": 401, "ErrorMessage": echoed, "ObjectType": secret, "PropertyName": auth},
                    {"ErrorMessage": "x" * 290 + secret},  # the secret across the 300 characters a message keeps
                    echoed,
                ]
            ).encode()
        else:
            body = f"401 Unauthorized: {echoed}".encode()
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Echo)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/api/v2.1"
    server.shutdown()
    server.server_close()


def assert_scrubbed(error: MessagingPlatformApiError) -> None:
    assert error.status == 401
    texts = (str(error), repr(error), repr(error.details), *(str(d) for d in error.details), str(error.args))
    for text in texts:
        for leak in LEAKS:
            assert leak not in text, text
    assert "Authorization '***' refused; credential ***; pair ***; secret ***" in str(error)  # the echo, scrubbed


@pytest.mark.parametrize("operation", ["list_campaigns", "list_contacts"], ids=["json", "text"])
def test_the_sync_client_scrubs_an_echoed_credential(echo_url, operation):
    with MessagingPlatformClient(echo_url, KEY, SECRET, account_id=1001, retry_policy=RetryPolicy(max_attempts=1)) as c:
        with pytest.raises(MessagingPlatformApiError) as caught:
            c.call(operation)
    assert_scrubbed(caught.value)


@pytest.mark.parametrize("operation", ["list_campaigns", "list_contacts"], ids=["json", "text"])
def test_the_async_client_scrubs_an_echoed_credential(echo_url, operation):
    async def call() -> None:
        client = AsyncMessagingPlatformClient(echo_url, KEY, SECRET, account_id=1001)
        try:
            await client.call(operation)
        finally:
            await client.aclose()

    with pytest.raises(MessagingPlatformApiError) as caught:
        asyncio.run(call())
    assert_scrubbed(caught.value)


def test_secret_forms_cover_both_encodings_of_a_non_ascii_pair():
    forms = secret_forms("kéy", "sécret")
    for encoding in ("utf-8", "latin-1"):
        token = base64.b64encode("kéy:sécret".encode(encoding)).decode()
        assert token in forms and f"Basic {token}" in forms
    assert secret_forms("key", "") == ()  # no secret: nothing to hide (and ":" is not hidden everywhere)
    assert parse_error_details(b"a:b plain", secret_forms("", "")) == parse_error_details(b"a:b plain")


def _connection(monkeypatch: pytest.MonkeyPatch, conn_id: str, secret: str) -> str:
    """A connection with a secret of its own: the masker is the process's, so no other test can have masked it."""
    conn = {
        "conn_type": "messagingplatform",
        "login": KEY,
        "password": secret,
        "extra": {"base_url": "https://platform.example.com/api/v2.1", "account_id": 1001},
    }
    monkeypatch.setenv(f"AIRFLOW_CONN_{conn_id.upper()}", json.dumps(conn))
    return base64.b64encode(f"{KEY}:{secret}".encode()).decode()


def test_the_hook_registers_the_base64_credential_with_the_masker(monkeypatch):
    token = _connection(monkeypatch, "mp_masked_sync", "sync-hook-secret-9f8e7d6c")
    MessagingPlatformHook("mp_masked_sync").settings  # noqa: B018 (reading the connection masks)
    redact = secrets_masker().redact
    assert redact(f"Authorization: Basic {token}") == "Authorization: ***"
    assert redact(f"echoed {token}") == "echoed ***"


def test_the_async_hook_registers_the_base64_credential_with_the_masker(monkeypatch):
    token = _connection(monkeypatch, "mp_masked_async", "async-hook-secret-1a2b3c4d")
    asyncio.run(MessagingPlatformAsyncHook("mp_masked_async").aget_settings())
    redact = secrets_masker().redact
    assert redact(f"Authorization: Basic {token}") == "Authorization: ***"
    assert redact(f"echoed {token}") == "echoed ***"


def test_call_many_scrubs_an_echoed_credential(echo_url, monkeypatch):
    conn = {
        "conn_type": "messagingplatform",
        "login": KEY,
        "password": SECRET,
        "extra": {"base_url": echo_url, "account_id": 1001},
    }
    monkeypatch.setenv("AIRFLOW_CONN_MP_ECHO_MANY", json.dumps(conn))
    (outcome,) = MessagingPlatformHook("mp_echo_many").call_many("list_campaigns", [{}])
    assert outcome.error is not None
    assert_scrubbed(outcome.error)
