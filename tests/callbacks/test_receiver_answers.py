"""
The receiver's answers, exactly as the platform (or a prober) reads them: each status with its whole body, the body
size limit at its edge, the routes it serves and those it does not (no API pages). In process, through the ASGI
interface (httpx's ASGI transport, or ASGI messages written out where a client cannot send them), over SQLite.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest

from messaging_platform_provider.callbacks import receiver as receiver_module
from messaging_platform_provider.callbacks.receiver import Receiver, create_receiver_app
from messaging_platform_provider.callbacks.settings import DATABASE_URL_ENV
from messaging_platform_provider.callbacks.store import CallbackStore
from tests.support.callback_helpers import BOUND_TOKEN, TOKEN, callback

Exchange = Callable[[httpx.AsyncClient], Awaitable[Any]]


def run(app: Any, receiver: Receiver, exchange: Exchange) -> Any:
    """``exchange`` with a client of ``app``, in one event loop; the receiver's writer is closed at the end."""

    async def main() -> Any:
        transport = httpx.ASGITransport(app=app)
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://receiver") as client:
                return await exchange(client)
        finally:
            await receiver.aclose()

    return asyncio.run(main())


def answers(receiver: Receiver, requests: list[tuple[str, str, Any]], path: str = "/callbacks") -> list[Any]:
    """``(method, url, json body)`` requests in order; each answer as ``(status, json body)``."""
    app = create_receiver_app(receiver, path=path)

    async def exchange(client: httpx.AsyncClient) -> list[Any]:
        out = []
        for method, url, body in requests:
            response = await client.request(method, url, json=body)
            out.append((response.status_code, response.json()))
        return out

    return run(app, receiver, exchange)


def test_each_answer_with_its_status_and_whole_body(database_url, store):
    stored = callback(1)
    other_account = callback(1, AccountId=2002)
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    got = answers(
        receiver,
        [
            ("POST", "/callbacks", stored),
            ("POST", "/callbacks", stored),
            ("POST", "/callbacks", [stored]),
            ("POST", "/callbacks", callback(1, token="not-the-token")),
            ("POST", "/callbacks", other_account),
            ("GET", "/health", None),
        ],
    )
    assert got == [
        (200, {"status": "stored", "TransactionId": stored["TransactionId"]}),
        (200, {"status": "duplicate", "TransactionId": stored["TransactionId"]}),
        (422, {"detail": [{"loc": [], "msg": "the body must be a JSON object", "type": "object_type"}]}),
        (401, {"detail": "unknown or missing CallbackToken"}),
        (401, {"detail": "the CallbackToken is not the token of this AccountId"}),
        (200, {"status": "ok"}),
    ]
    assert store.transaction_ids() == [stored["TransactionId"]]


def test_a_body_that_is_not_json_is_answered_422_json_invalid(database_url):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)

    async def exchange(client: httpx.AsyncClient) -> tuple[int, Any]:
        response = await client.post("/callbacks", content=b"{not json")
        return response.status_code, response.json()

    assert run(create_receiver_app(receiver), receiver, exchange) == (
        422,
        {"detail": [{"loc": [], "msg": "the body is not JSON", "type": "json_invalid"}]},
    )


def test_without_a_token_configured_the_answer_is_503_saying_so(database_url):
    receiver = Receiver(tokens=[], database_url=database_url)
    assert answers(receiver, [("POST", "/callbacks", callback(1))]) == [
        (503, {"detail": "the receiver has no callback token configured"})
    ]


def test_a_store_that_cannot_be_opened_is_answered_503_saying_so(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the store's directory should be")
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=f"sqlite:///{blocker}/sub/callbacks.db")
    assert answers(receiver, [("POST", "/callbacks", callback(1))]) == [
        (503, {"detail": "the callback store could not be opened"})
    ]


@pytest.mark.parametrize(
    ("failure", "expected"),
    [
        (OSError("disk I/O error"), (503, {"detail": "the callback store could not be written"})),
        (
            OverflowError("Python int too large to convert to SQLite INTEGER"),
            (422, {"detail": [{"loc": [], "msg": "the store cannot hold this callback", "type": "store_refused"}]}),
        ),
    ],
    ids=["unavailable", "refused"],
)
def test_a_failed_write_is_answered_with_what_the_platform_should_do(store, monkeypatch, failure, expected):
    """503: the platform redelivers; 422: the data itself is refused, a redelivery would fail the same way."""
    receiver = Receiver(tokens=[BOUND_TOKEN], store=store)

    def fails(items: Any) -> Any:
        raise failure

    monkeypatch.setattr(store, "add_many", fails)
    assert answers(receiver, [("POST", "/callbacks", callback(1))]) == [expected]


def test_the_store_given_is_the_one_written(tmp_path, monkeypatch):
    """Not one the environment names."""
    monkeypatch.setenv(DATABASE_URL_ENV, f"sqlite:///{tmp_path / 'from-the-environment.db'}")
    given = CallbackStore(f"sqlite:///{tmp_path / 'given.db'}")
    try:
        body = callback(1)
        assert answers(Receiver(tokens=[BOUND_TOKEN], store=given), [("POST", "/callbacks", body)])[0][0] == 200
        assert given.transaction_ids() == [body["TransactionId"]]
    finally:
        given.close()
    assert not (tmp_path / "from-the-environment.db").exists()


def test_the_store_is_opened_off_the_event_loop(database_url, monkeypatch):
    """Opening it touches the disk (and creates the schema): a thread of its own, never the loop's."""
    opened_on: list[int] = []

    class Recorded(CallbackStore):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            opened_on.append(threading.get_ident())
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(receiver_module, "CallbackStore", Recorded)
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    loop_thread: list[int] = []

    async def exchange(client: httpx.AsyncClient) -> int:
        loop_thread.append(threading.get_ident())
        return (await client.post("/callbacks", json=callback(1))).status_code

    assert run(create_receiver_app(receiver), receiver, exchange) == 200
    assert len(opened_on) == 1 and opened_on != loop_thread


# -- the body size limit ------------------------------------------------------------------------------------------


def exactly(size: int) -> bytes:
    """A valid callback body of exactly ``size`` bytes (JSON allows trailing white space)."""
    data = json.dumps(callback(1)).encode()
    assert len(data) <= size
    return data + b" " * (size - len(data))


@pytest.mark.parametrize("declared", [True, False], ids=["content-length", "chunked"])
def test_the_body_limit_is_inclusive_whether_declared_or_streamed(database_url, declared):
    limit = 1024
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, max_body_bytes=limit)

    async def exchange(client: httpx.AsyncClient) -> list[tuple[int, Any]]:
        out = []
        for size in (limit, limit + 1):
            data = exactly(size)

            async def chunks(data: bytes = data) -> AsyncIterator[bytes]:
                yield data[:100]
                yield data[100:]

            response = await client.post("/callbacks", content=data if declared else chunks())
            assert ("content-length" in response.request.headers) is declared
            out.append((response.status_code, response.json()))
        return out

    got = run(create_receiver_app(receiver), receiver, exchange)
    assert [status for status, _ in got] == [200, 413]
    assert got[1][1] == {"detail": "the body is larger than 1024 bytes"}


async def call_asgi(app: Any, headers: list[tuple[bytes, bytes]], messages: list[dict[str, Any]]) -> list[Any]:
    """One POST through the ASGI interface: ``messages`` are what ``receive`` yields, then it waits forever."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/callbacks",
        "raw_path": b"/callbacks",
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8080),
    }
    pending = list(messages)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        await asyncio.Event().wait()  # the client sends nothing more
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await asyncio.wait_for(app(scope, receive, send), timeout=10)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return [start["status"], json.loads(body)]


def test_a_declared_oversized_body_is_refused_before_any_of_it_is_read(database_url):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, max_body_bytes=1024)
    app = create_receiver_app(receiver)
    headers = [(b"content-type", b"application/json"), (b"content-length", b"1000000000")]
    assert asyncio.run(call_asgi(app, headers, [])) == [413, {"detail": "the body is larger than 1024 bytes"}]


def test_a_client_gone_before_its_body_is_complete_is_answered_400_and_nothing_is_stored(database_url, store):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    app = create_receiver_app(receiver)
    data = json.dumps(callback(1)).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    messages = [{"type": "http.request", "body": data[:20], "more_body": True}, {"type": "http.disconnect"}]
    assert asyncio.run(call_asgi(app, headers, messages)) == [400, {"detail": "the client disconnected"}]
    assert store.count() == 0


# -- routes ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "served", "not_served"),
    [
        ("/callbacks", ["/callbacks", "/callbacks/", "/callbacks/keyword"], ["/", "/callback", "/keyword"]),
        ("/Xmas/", ["/Xmas", "/Xmas/", "/Xmas/keyword"], ["/mas", "/Xmas/a/b"]),
        ("/", ["/", "/keyword"], ["/keyword/", "/a/b"]),
        ("", ["/", "/keyword"], ["/keyword/", "/a/b"]),
    ],
)
def test_the_path_is_served_as_written_with_a_trailing_slash_and_a_name(database_url, path, served, not_served):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    got = answers(receiver, [("POST", url, callback(1)) for url in served + not_served], path=path)
    assert [status for status, _ in got] == [200] * len(served) + [404] * len(not_served)


@pytest.mark.parametrize("url", ["/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"])
def test_no_api_pages_are_served(database_url, url):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    assert answers(receiver, [("GET", url, None)]) == [(404, {"detail": "Not Found"})]


def test_no_route_is_in_the_apps_schema_even_when_a_host_app_publishes_one(database_url):
    """Mounted into Airflow's API server, nothing of the receiver joins Airflow's published API."""
    app = create_receiver_app(Receiver(tokens=[TOKEN], database_url=database_url))
    assert app.openapi()["paths"] == {}


def test_health_answers_get_only(database_url):
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url)
    got = answers(receiver, [("GET", "/health", None), ("POST", "/health", None)], path="/callbacks")
    assert got == [(200, {"status": "ok"}), (405, {"detail": "Method Not Allowed"})]
