"""
The sync client's credentials (a key and its secret, both, or no client), and its reading of a ``requests`` error
that is not a transport failure: an answer arrived, but ``requests`` could not decode it (a proxy that labels a plain
body ``Content-Encoding: gzip``). Nothing says the platform is overloaded or that the request was lost: the call
fails at once, naming the error, even for a read that a lost connection would have retried. Against a stand-in HTTP
server on loopback (the emulator never mislabels a body).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from messaging_platform_provider.client import (
    MessagingPlatformApiError,
    MessagingPlatformClient,
    MessagingPlatformValidationError,
    RetryPolicy,
)
from messaging_platform_provider.client.operations import Operations

#: unique to this file: the process-global secrets masker keeps every secret it saw
SECRET = "sync-undecodable-answer-secret-5c2e"


class MislabelledGzip(BaseHTTPRequestHandler):
    """Answers every GET 200 with a JSON body labelled gzip-compressed, which it is not; records the paths asked."""

    paths: list[str]

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self.paths.append(self.path)
        body = json.dumps([{"Id": 3001, "Name": "Spring sale"}]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def mislabelled() -> Iterator[tuple[str, list[str]]]:
    """The stand-in's base URL and the paths it was asked for."""
    paths: list[str] = []
    handler = type("Handler", (MislabelledGzip,), {"paths": paths})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v2.1", paths
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def test_an_answer_requests_cannot_decode_fails_the_read_at_once_naming_the_error(
    mislabelled: tuple[str, list[str]],
) -> None:
    base_url, paths = mislabelled
    waits: list[float] = []
    with MessagingPlatformClient(
        base_url,
        "key",
        SECRET,
        account_id=1001,
        retry_policy=RetryPolicy(max_attempts=3, backoff_base=0),
        sleep=waits.append,
    ) as client:
        with pytest.raises(MessagingPlatformApiError) as caught:
            client.call(Operations.list_campaigns)
    error = caught.value
    assert (error.method, error.path, error.status, error.attempts) == ("GET", "/account/1001/campaign", None, 1)
    assert error.reason == "ContentDecodingError: request error"
    assert str(error) == "GET /account/1001/campaign failed: no response (ContentDecodingError: request error)"
    assert isinstance(error.__cause__, Exception) and type(error.__cause__).__name__ == "ContentDecodingError"
    assert paths == ["/api/v2.1/account/1001/campaign"]  # sent once: a read is not resent for this
    assert waits == []


@pytest.mark.parametrize(("key", "secret"), [("", SECRET), ("key", "")], ids=["no key", "no secret"])
def test_a_client_without_both_a_key_and_its_secret_is_refused(key: str, secret: str) -> None:
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformClient("https://platform.example.com/api/v2.1", key, secret, account_id=1001)
    assert (caught.value.field, caught.value.problem) == (
        "login/password",
        "the API key and its secret are both required",
    )
