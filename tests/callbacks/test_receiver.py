"""The receiver: token, validation, size, de-duplication, durability across restarts, no token in any output."""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.receiver import Receiver, create_receiver_app
from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.settings import TOKENS_ENV
from tests.support.callback_helpers import BOUND_TOKEN, TOKEN, callback, post, wait_until
from tests.support.paths import REPO


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """Every store-facing test here runs over SQLite and over PostgreSQL."""
    return any_database_url


class AsgiClient:
    """Posts to an ASGI app in process (httpx's ASGI transport), without a server."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def post(self, path: str, json: Any) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as client:
                return await client.post(path, json=json)

        return asyncio.run(send())


def db_file(url: str) -> Path:
    return Path(url.removeprefix("sqlite:///"))


def test_a_callback_is_stored_once_and_a_resend_is_answered_200(receiver, store):
    body = callback(1)
    first = post(receiver.url, body)
    assert first.status_code == 200 and first.json() == {"status": "stored", "TransactionId": body["TransactionId"]}
    again = post(receiver.url, body)  # the platform resends after a network error: same TransactionId
    assert again.status_code == 200 and again.json()["status"] == "duplicate"
    braces = post(receiver.url, {**body, "TransactionId": "{" + body["TransactionId"].upper() + "}"})
    assert braces.json()["status"] == "duplicate"  # one GUID, whatever its spelling
    [stored] = store.read_after(0)
    assert stored.transaction_id == body["TransactionId"] and stored.seq == 1
    assert "CallbackToken" not in stored.payload and stored.payload["Keyword"] == "JOIN"


@pytest.mark.parametrize("callback_type", [1, 3, 6, 8, 11])
def test_every_type_is_accepted_with_the_fields_the_spec_names_and_unknown_extras(receiver, store, callback_type):
    extra = {"Campaign": {"Messages": [{"Text": "Hi"}]}, "SomethingNew": [1, 2]}
    if callback_type in (3, 6):
        extra.update(ContactAccountId=1001, ContactAccountName="Demo account")
    body = callback(callback_type, **extra)
    assert post(receiver.url, body).json()["status"] == "stored"
    [stored] = store.read_after(0)
    assert stored.callback_type == callback_type
    for name, value in extra.items():
        assert stored.payload[name] == value


def test_property_names_are_read_in_any_case(receiver, store):
    body = {k[0].lower() + k[1:]: v for k, v in callback(1).items()}  # camelCase, as a .NET server may send
    body["callbackUrl"] = body.pop("callbackURL")
    assert post(receiver.url, body).json()["status"] == "stored"
    assert store.read_after(0)[0].keyword == "JOIN"


def test_new_account_name_is_read_from_account_name_too(receiver, store):
    body = callback(8)
    del body["Name"]
    body["AccountName"] = "Branch"
    assert post(receiver.url, body).status_code == 200
    assert store.read_after(0)[0].payload["Name"] == "Branch"


@pytest.mark.parametrize(
    "token", ["", "not-the-token", TOKEN[:-1] + "0", None], ids=["empty", "other", "near", "missing"]
)
def test_a_bad_or_missing_token_is_refused_401_and_nothing_is_stored(receiver, store, token):
    body = callback(1)
    if token is None:
        del body["CallbackToken"]
    else:
        body["CallbackToken"] = token
    response = post(receiver.url, body)
    assert response.status_code == 401
    assert store.count() == 0


def test_tokens_are_compared_in_constant_time_against_each_configured_token(database_url, monkeypatch):
    calls = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        calls.append(b)
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    receiver = Receiver(
        tokens=["1001:old-token", "1001:" + TOKEN.upper()], database_url=database_url
    )  # rotation: two accepted
    assert receiver.token_accounts(TOKEN) == {1001} and receiver.token_accounts("old-token") == {1001}
    assert receiver.token_accounts("other") == set()
    assert len(calls) == 6  # every configured token compared every time, no early exit


def test_tokens_come_from_the_environment(database_url, monkeypatch):
    monkeypatch.setenv(TOKENS_ENV, f"7:one, {BOUND_TOKEN}\n8:three")
    client = AsgiClient(create_receiver_app(database_url=database_url))
    assert client.post("/callbacks", json=callback(1)).status_code == 200


def test_without_a_configured_token_every_callback_is_refused_503(database_url):
    client = AsgiClient(create_receiver_app(database_url=database_url, tokens=[]))
    assert client.post("/callbacks", json=callback(1)).status_code == 503


@pytest.mark.parametrize(
    "change",
    [
        {"TransactionId": "not-a-guid"},
        {"TransactionId": None},
        {"AccountId": "abc"},
        {"CallbackTimestamp": "yesterday"},
        {"CallbackType": 2},
        {"CallbackType": "Keyword"},
        {"Keyword": None},
        {"PhoneNumber": 15550100000},
    ],
    ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()),
)
def test_a_malformed_body_is_refused_422_naming_the_field_not_the_token(receiver, store, change):
    response = post(receiver.url, callback(1, **change))
    assert response.status_code == 422
    detail = response.json()["detail"]
    assert detail and all(set(e) == {"loc", "msg", "type"} for e in detail)
    assert TOKEN not in response.text
    assert store.count() == 0


def test_missing_fields_are_named(receiver):
    body = callback(3)
    del body["Answer"], body["TransactionId"]
    detail = post(receiver.url, body).json()["detail"]
    assert {e["loc"][0] for e in detail} == {"Answer", "TransactionId"}


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe", b""])
def test_a_body_that_is_not_a_json_object_is_refused_422(receiver, content):
    response = httpx.post(receiver.url, content=content, headers={"Content-Type": "application/json"})
    assert response.status_code == 422


def test_an_oversized_body_is_refused_413_by_content_length_and_by_streamed_size(database_url, store):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, max_body_bytes=2048)
    with ReceiverServer(receiver=receiver) as server:
        big = callback(11, Message="x" * 4000)
        assert post(server.url, big).status_code == 413  # Content-Length says so

        def chunks():  # no Content-Length: chunked transfer, judged on the bytes received
            data = json.dumps(big).encode()
            for i in range(0, len(data), 500):
                yield data[i : i + 500]

        response = httpx.post(server.url, content=chunks(), headers={"Content-Type": "application/json"})
        assert response.status_code == 413 and "content-length" not in response.request.headers
        small = callback(11)
        assert httpx.post(server.url, content=iter([json.dumps(small).encode()])).status_code == 200
    assert store.count() == 1


def test_a_named_path_reaches_the_same_receiver(receiver, store):
    assert post(receiver.url + "/keyword", callback(1)).status_code == 200
    assert store.count() == 1


def test_concurrent_callbacks_with_resends_are_each_stored_exactly_once(receiver, store):
    bodies = [callback(1) for _ in range(150)]
    # 30 sent twice back to back: each pair is in flight at once, often in one batch (test_store_batches makes
    # sure of that case); the other 120 after them
    sends = [b for body in bodies[:30] for b in (body, body)] + bodies[30:]

    def send(body: dict[str, Any]) -> tuple[int, str, str]:
        response = post(receiver.url, body)
        return response.status_code, response.json().get("status", ""), body["TransactionId"]

    with ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(send, sends))
    assert [code for code, _, _ in answers] == [200] * len(sends)
    stored = sorted(tid for _, status, tid in answers if status == "stored")
    assert stored == sorted(b["TransactionId"] for b in bodies)  # each once "stored", its resend "duplicate"
    assert sorted(tid for _, status, tid in answers if status == "duplicate") == sorted(
        b["TransactionId"] for b in bodies[:30]
    )
    ids = store.transaction_ids()
    assert sorted(ids) == sorted(b["TransactionId"] for b in bodies)
    seqs = [s.seq for s in store.read_after(0, limit=1000)]
    assert seqs == list(range(1, 151))  # gap-free, in commit order


def test_the_receiver_restarts_without_losing_or_repeating(database_url, store):
    before = [callback(1) for _ in range(20)]
    with ReceiverServer(tokens=[BOUND_TOKEN], database_url=database_url) as server:
        for body in before:
            assert post(server.url, body).json()["status"] == "stored"
    after = [callback(6) for _ in range(5)]
    with ReceiverServer(tokens=[BOUND_TOKEN], database_url=database_url) as server:  # a new process, same file
        assert {post(server.url, b).json()["status"] for b in before[:10]} == {"duplicate"}
        assert {post(server.url, b).json()["status"] for b in after} == {"stored"}
    assert sorted(store.transaction_ids()) == sorted(b["TransactionId"] for b in before + after)
    assert store.last_seq() == 25


def test_a_store_failure_is_answered_503_so_the_platform_redelivers(receiver, store, monkeypatch):
    body = callback(1)
    real = receiver.receiver.store.add_many
    calls = []

    def flaky(items):
        calls.append(len(items))
        if len(calls) == 1:
            raise sqlite3.OperationalError("database is locked")
        return real(items)

    monkeypatch.setattr(receiver.receiver.store, "add_many", flaky)
    assert post(receiver.url, body).status_code == 503
    assert post(receiver.url, body).json()["status"] == "stored"
    assert store.count() == 1


def test_no_token_reaches_logs_output_or_the_database(receiver, store, caplog, capfd, database_url):
    caplog.set_level(logging.DEBUG)
    post(receiver.url, callback(1))
    post(receiver.url, callback(1, CallbackToken=TOKEN + "x"))
    post(receiver.url, callback(1, TransactionId="bad"))
    assert repr(parse_callback(callback(1))).count(TOKEN) == 0
    assert TOKEN not in repr(receiver.receiver)
    out = capfd.readouterr()
    assert TOKEN not in caplog.text + out.out + out.err
    wait_until(lambda: store.count() == 1)
    if database_url.startswith("sqlite"):
        data = b"".join(p.read_bytes() for p in db_file(database_url).parent.glob("callbacks.db*"))
        assert TOKEN.encode() not in data
    rows = store.read_after(0)
    assert rows and TOKEN not in json.dumps([r.to_event() for r in rows] + [r.callback_timestamp for r in rows])


def test_the_airflow_plugin_mounts_the_receiver(database_url, monkeypatch, store):
    from airflow.plugins_manager import AirflowPlugin

    from messaging_platform_provider.callbacks.plugin import URL_PREFIX, MessagingPlatformCallbacksPlugin

    monkeypatch.setenv(TOKENS_ENV, BOUND_TOKEN)
    assert issubclass(MessagingPlatformCallbacksPlugin, AirflowPlugin)
    [entry] = MessagingPlatformCallbacksPlugin.fastapi_apps
    monkeypatch.setattr(entry["app"], "_app", None)  # built on first request, from this test's environment
    api = FastAPI()
    api.mount(entry["url_prefix"], entry["app"])  # what Airflow's API server does with fastapi_apps
    client = AsgiClient(api)
    assert client.post(f"{URL_PREFIX}/callbacks", json=callback(1)).status_code == 200
    assert client.post(f"{URL_PREFIX}/callbacks", json=callback(1, CallbackToken="x")).status_code == 401
    assert store.count() == 1


def test_the_entry_points_are_declared():
    text = (REPO / "setup.cfg").read_text()
    assert "messaging-platform-callbacks = messaging_platform_provider.callbacks.cli:main" in text
    assert (
        "messaging_platform_callbacks = messaging_platform_provider.callbacks.plugin:MessagingPlatformCallbacksPlugin"
        in text
    )
