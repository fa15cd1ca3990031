"""
``AsyncMessagingPlatformClient`` on its own, as a trigger or a bulk run uses it: what each call sends (the account,
query and plain-http permission it names, the client's User-Agent), what a call that gets no answer raises, and
what the client is built with: the transport, timeouts, time zone and trust it is given, and a connection pool
whose connections are kept for the next calls.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import threading
from collections.abc import Awaitable, Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import parse_qs

import httpx
import pytest
import requests

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.request import USER_AGENT
from tests.support.certificates import issue_certificate

T = TypeVar("T")

#: a callback receiver in plain http: its URL carries the account's callback token
PLAIN_RECEIVER = "http://hooks.example.com/in?token=async-plain-receiver-token-7c1d"
#: secrets of clients that never reach the emulator (unique: the process-global masker keeps what it saw)
OFFLINE_SECRET = "async-offline-secret-3e9a"


def using(make: Callable[[], AsyncMessagingPlatformClient], work: Callable[[Any], Awaitable[T]]) -> T:
    """``work`` on a client made in the event loop that uses it, closed after."""

    async def run() -> T:
        client = make()
        try:
            return await work(client)
        finally:
            await client.aclose()

    return asyncio.run(run())


def on_platform(platform: Any, **options: Any) -> Callable[[], AsyncMessagingPlatformClient]:
    seed = platform.seed
    return lambda: AsyncMessagingPlatformClient(
        platform.base_url, seed.api_key, seed.api_secret, account_id=seed.account_id, **options
    )


# -- what a call sends ---------------------------------------------------------------------------------------------


def test_each_call_goes_to_the_account_and_with_the_query_it_names(platform):
    account = platform.seed.account_id

    async def work(client: AsyncMessagingPlatformClient) -> None:
        await client.call(Operations.list_contacts, query={"$top": 1})
        with pytest.raises(MessagingPlatformApiError) as caught:
            await client.call(Operations.list_contacts, account_id=account + 7)  # an account the key does not hold
        assert caught.value.status is not None

    using(on_platform(platform), work)
    sent = [(r["path"], parse_qs(r["query"] or "")) for r in platform.control.requests()]
    assert sent == [
        (f"/api/v2.1/account/{account}/contact", {"$top": ["1"]}),
        (f"/api/v2.1/account/{account + 7}/contact", {}),
    ]


def test_calls_carry_the_providers_user_agent(platform):
    using(on_platform(platform), lambda client: client.call(Operations.list_campaigns))
    (record,) = platform.control.requests()
    assert record["headers"]["user-agent"] == USER_AGENT


def test_a_plain_http_callback_url_is_sent_where_the_client_allows_it(platform):
    body = {"CallbackType": 1, "URL": PLAIN_RECEIVER, "Active": True}
    created = using(
        on_platform(platform, allow_insecure_http=True),
        lambda client: client.call(Operations.create_callback, body=body),
    )
    assert created["URL"] == PLAIN_RECEIVER
    with pytest.raises(MessagingPlatformValidationError):  # and refused where it does not
        using(on_platform(platform), lambda client: client.call(Operations.create_callback, body=body))
    assert [r["method"] for r in platform.control.requests()] == ["POST"]


def test_a_call_that_gets_no_answer_names_the_request_and_the_failure(closed_port):
    base_url = f"http://127.0.0.1:{closed_port}/api/v2.1"

    def make() -> AsyncMessagingPlatformClient:
        return AsyncMessagingPlatformClient(base_url, "key", OFFLINE_SECRET, account_id=1001)

    with pytest.raises(MessagingPlatformApiError) as caught:
        using(make, lambda client: client.call(Operations.list_contacts))
    error = caught.value
    assert (error.method, error.path, error.status, error.reason) == (
        "GET",
        "/account/1001/contact",
        None,
        "ConnectError",
    )
    assert "GET /account/1001/contact" in str(error) and "ConnectError" in str(error)


def test_the_repr_names_the_class_url_and_account_never_the_secret():
    client = AsyncMessagingPlatformClient("https://platform.example.com/api/v2.1", "key", OFFLINE_SECRET, account_id=7)
    try:
        assert repr(client) == (
            "AsyncMessagingPlatformClient(base_url='https://platform.example.com/api/v2.1', account_id=7)"
        )
    finally:
        asyncio.run(client.aclose())


# -- what the client is built with ---------------------------------------------------------------------------------


def test_the_transport_given_carries_the_calls_with_the_timeouts_given():
    """
    What a test (or a proxy) hands in is what sends: nothing goes to the network. The connect timeout bounds the
    connecting, the read timeout the reading and the writing, and a call waiting for a pooled connection waits on.
    """
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[{"Id": 3001, "Name": "Spring"}])

    def make() -> AsyncMessagingPlatformClient:
        return AsyncMessagingPlatformClient(
            "https://platform.example.com/api/v2.1",
            "key",
            OFFLINE_SECRET,
            account_id=1001,
            timeout=(3.0, 7.0),
            transport=httpx.MockTransport(answer),
        )

    campaigns = using(make, lambda client: client.call(Operations.list_campaigns))
    assert campaigns == [{"Id": 3001, "Name": "Spring"}]
    (request,) = seen
    assert str(request.url) == "https://platform.example.com/api/v2.1/account/1001/campaign"
    assert request.extensions["timeout"] == {"connect": 3.0, "read": 7.0, "write": 7.0, "pool": None}


def test_the_platform_zone_defaults_to_utc_as_on_the_sync_client():
    client = AsyncMessagingPlatformClient("https://platform.example.com/api/v2.1", "key", OFFLINE_SECRET)
    sync = MessagingPlatformClient("https://platform.example.com/api/v2.1", "key", OFFLINE_SECRET)
    try:
        assert client.platform_timezone == sync.platform_timezone == "UTC"
    finally:
        asyncio.run(client.aclose())
        sync.close()


# -- trust: a private CA named as requests would take it, else requests' own default -------------------------------


class _Campaigns(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        data = json.dumps([{"Id": 3001, "Name": "Behind a private CA"}]).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def private_ca_platform(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A platform stand-in on https whose certificate a private CA issued: its base URL, and the CA's bundle."""
    from cryptography.hazmat.primitives import serialization

    ca = issue_certificate("Async test private CA")
    cert, key = issue_certificate("127.0.0.1", issuer=ca)
    bundle, chain, key_file = tmp_path / "ca.pem", tmp_path / "server.pem", tmp_path / "server.key"
    bundle.write_bytes(ca[0].public_bytes(serialization.Encoding.PEM))
    chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain, key_file)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Campaigns)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/api/v2.1", bundle
    finally:
        server.shutdown()
        server.server_close()


def _no_bundle_named(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)


def test_a_platform_behind_a_private_ca_is_trusted_through_requests_ca_bundle(private_ca_platform, monkeypatch):
    base_url, bundle = private_ca_platform
    _no_bundle_named(monkeypatch)

    def make() -> AsyncMessagingPlatformClient:
        return AsyncMessagingPlatformClient(base_url, "key", OFFLINE_SECRET, account_id=1001)

    with pytest.raises(MessagingPlatformApiError) as caught:  # not trusted by default
        using(make, lambda client: client.call(Operations.list_campaigns))
    assert caught.value.reason == "ConnectError"
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))
    campaigns = using(make, lambda client: client.call(Operations.list_campaigns))
    assert campaigns == [{"Id": 3001, "Name": "Behind a private CA"}]


def test_ssl_cert_file_is_trusted_by_neither_transport(private_ca_platform, monkeypatch):
    """
    ``requests`` does not read ``SSL_CERT_FILE``; httpx's own default does. The async client follows ``requests``: a
    platform whose CA only ``SSL_CERT_FILE`` names is refused by both, whatever context an earlier call cached.
    """
    base_url, bundle = private_ca_platform
    _no_bundle_named(monkeypatch)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))

    def make() -> AsyncMessagingPlatformClient:
        return AsyncMessagingPlatformClient(base_url, "key", OFFLINE_SECRET, account_id=1001)

    with pytest.raises(MessagingPlatformApiError) as caught:
        using(make, lambda client: client.call(Operations.list_campaigns))
    assert caught.value.reason == "ConnectError"
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(base_url, timeout=10)


def test_without_a_bundle_named_the_async_client_trusts_what_requests_trusts(monkeypatch):
    """``requests``' default trust is its CA bundle (certifi's): the same authorities, not the system's."""
    from messaging_platform_provider.client import async_client

    _no_bundle_named(monkeypatch)

    def authorities(context: ssl.SSLContext) -> set[str]:
        return {json.dumps(entry["subject"]) for entry in context.get_ca_certs()}

    ours = authorities(async_client._verify())
    assert ours and ours == authorities(ssl.create_default_context(cafile=requests.utils.DEFAULT_CA_BUNDLE_PATH))


# -- the pool ------------------------------------------------------------------------------------------------------


def test_a_full_pool_keeps_its_connections_for_the_next_calls():
    """
    30 calls at once on a client of 30 connections, twice: the second round reuses the 30 connections the first
    opened (no new connection, no new TLS handshake on a real platform), however many httpx keeps by default.
    """
    size = 30
    opened: list[int] = []
    together = threading.Barrier(size)

    class Held(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # connections kept open between requests

        def setup(self) -> None:
            super().setup()
            opened.append(1)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            try:
                together.wait(timeout=10)  # every call of the round on the wire at once
            except threading.BrokenBarrierError:
                pass
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"[]")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Held)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    base_url = f"http://127.0.0.1:{server.server_address[1]}/api/v2.1"

    async def two_rounds(client: AsyncMessagingPlatformClient) -> list[int]:
        counts = []
        for _ in range(2):
            await asyncio.gather(*(client.call(Operations.list_campaigns) for _ in range(size)))
            counts.append(len(opened))
        return counts

    def make() -> AsyncMessagingPlatformClient:
        return AsyncMessagingPlatformClient(base_url, "key", OFFLINE_SECRET, account_id=1001, max_connections=size)

    try:
        assert using(make, two_rounds) == [size, size]
    finally:
        server.shutdown()
        server.server_close()
