"""
Answers spelled in camelCase (seen from the live platform, platform facts §1) are read like PascalCase ones,
redirects are never followed on either path, and a secret change is never resent blindly.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError, RetryPolicy
from messaging_platform_provider.client.request import pascal_keys
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import MessagingPlatformGetApiKeyOperator
from tests.support.airflow_versions import secrets_masker
from tests.support.operator_context import run

CAMEL_SECRET = "camel-case-secret-that-must-be-masked"


class _CamelPlatform(BaseHTTPRequestHandler):
    """A stand-in for a platform that answers in camelCase, or redirects."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        if self.path.endswith("/api-key/7"):
            body = {"id": 7, "accountId": 1001, "label": "Ops", "key": "k" * 32, "secret": CAMEL_SECRET, "typeId": 2}
            self._send(200, body)
        elif "/schedule/" in self.path:
            self.send_response(301)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self._send(404, [{"ErrorCodeId": 404, "ErrorMessage": "not here"}])

    def _send(self, status: int, body: object) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def camel_platform(monkeypatch) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _CamelPlatform)
    # shutdown() waits for the serving loop's next look: every 0.5 s by default, here 0.02 s.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/api/v2.1"
    conn = {"conn_type": "messagingplatform", "login": "key", "password": "secret-of-key", "extra": {}}
    conn["extra"] = {"base_url": base_url, "account_id": 1001}
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", json.dumps(conn))
    yield base_url
    server.shutdown()


def test_keys_are_read_in_the_specs_spelling():
    assert pascal_keys({"processStatus": "Completed", "url": "https://x", "logs": [{"logDate": "t"}]}) == {
        "ProcessStatus": "Completed",
        "URL": "https://x",
        "Logs": [{"LogDate": "t"}],
    }


def test_a_camel_case_secret_is_masked_and_kept_out_of_xcom(camel_platform):
    redact = secrets_masker().redact

    key = MessagingPlatformHook().get_api_key(7)
    assert key["Secret"] == CAMEL_SECRET and "secret" not in key
    assert redact(f"x {CAMEL_SECRET}") == "x ***"
    op = MessagingPlatformGetApiKeyOperator(task_id="k", key_id=7)
    xcom = run(op)
    assert CAMEL_SECRET not in json.dumps(xcom) and xcom["Label"] == "Ops"


def test_a_redirect_is_an_answer_not_followed_on_the_sync_path(camel_platform):
    with pytest.raises(MessagingPlatformApiError) as caught:
        MessagingPlatformHook(retry_policy=RetryPolicy(max_attempts=1)).get_schedule(5001, 1)
    assert caught.value.status == 301


def test_a_redirect_is_an_answer_not_followed_on_the_async_path(camel_platform):
    import asyncio

    from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient

    async def read() -> None:
        client = AsyncMessagingPlatformClient(camel_platform, "key", "secret-of-key", account_id=1001)
        try:
            await client.call("get_schedule", action_id=5001, schedule_id=1)
        finally:
            await client.aclose()

    with pytest.raises(MessagingPlatformApiError) as caught:
        asyncio.run(read())
    assert caught.value.status == 301


def test_a_secret_change_is_never_resent(platform):
    hook = MessagingPlatformHook(retry_policy=RetryPolicy(max_attempts=4, backoff_base=0.01))
    key = hook.create_api_key("Changed once")
    platform.control.add_fault(kind="status", status=503, count=1, method="PUT")
    with pytest.raises(MessagingPlatformApiError):
        hook.change_api_key_secret(key["Id"])
    assert [r["method"] for r in platform.control.requests()].count("PUT") == 1


def test_a_base_url_with_credentials_is_refused_without_echoing_them(platform, monkeypatch):
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(extra={"base_url": "https://user:hunter2@platform.example.com/api/v2.1"}),
    )
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().list_campaigns()
    assert "base_url" in str(caught.value) and "hunter2" not in str(caught.value)
