"""Slow clients against the receiver with the standalone server's protection (``callbacks.guard``), over loopback."""

from __future__ import annotations

import json
import re
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from messaging_platform_provider.callbacks import guard
from messaging_platform_provider.callbacks.connection_cap import connection_limits
from messaging_platform_provider.callbacks.guard import PROTOCOLS, guarded_protocol
from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.store import CallbackStore
from tests.support.callback_helpers import BOUND_TOKEN, callback, post, wait_until


def slow_socket(server: ReceiverServer, head: bytes) -> socket.socket:
    sock = socket.create_connection((server.host, server.port), timeout=30)
    sock.sendall(head)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    """Whether the server has closed the connection (without waiting: a non-blocking peek)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        sock.setblocking(True)


def open_ones(sockets: list[socket.socket]) -> list[int]:
    """The positions of the sockets the server has not closed."""
    return [i for i, sock in enumerate(sockets) if not closed_by_server(sock)]


@pytest.fixture
def sockets() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for sock in opened:
        sock.close()


@pytest.fixture(params=sorted(PROTOCOLS))
def guarded(request, database_url):
    """Serve with the limits given, on each of uvicorn's HTTP/1.1 parsers (``serve`` picks httptools)."""

    def serve(**limits: float) -> ReceiverServer:
        protocol = guarded_protocol(http=request.param, **limits)  # type: ignore[arg-type]
        # uvicorn's keep-alive (5 s by default) set far beyond every wait below: only the guard closes connections
        return ReceiverServer(tokens=[BOUND_TOKEN], database_url=database_url, http=protocol, timeout_keep_alive=300)

    return serve


def test_both_parsers_are_guarded_and_serve_picks_the_faster():
    assert sorted(PROTOCOLS) == ["h11", "httptools"]  # Airflow core installs uvicorn[standard], so httptools
    assert guarded_protocol().__mro__[1] is PROTOCOLS["httptools"]
    with pytest.raises(ValueError, match="http must be one of"):
        guarded_protocol(http="h2")


def test_a_connection_that_trickles_its_head_is_closed_after_the_header_deadline(guarded, store, sockets, monkeypatch):
    # The deadline given (0.5 s), not the protocol's default: the default is put an hour away, far beyond the wait
    # below, so that only the deadline given can close the connection.
    monkeypatch.setattr(guard._Guard, "header_timeout", 3600.0)
    with guarded(header_timeout=0.5) as server:
        sockets.append(slow_socket(server, b"POST /callbacks HTTP/1.1\r\nHost: x\r\n"))
        wait_until(lambda: closed_by_server(sockets[0]), timeout=30, what="the trickling connection closed")
        assert post(server.url, callback(1)).status_code == 200  # a complete request is served as before


def test_a_body_that_never_completes_is_cut_off_and_nothing_is_stored(guarded, store, sockets):
    with guarded(header_timeout=5, body_timeout=0.5) as server:
        head = b"POST /callbacks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
        sockets.append(slow_socket(server, head + b'{"AccountId": 10'))
        wait_until(lambda: closed_by_server(sockets[0]), timeout=30, what="the unfinished body's connection closed")
        assert post(server.url, callback(1)).status_code == 200
    assert store.count() == 1


def test_pipelined_requests_are_all_answered_then_the_idle_connection_is_closed(guarded, store):
    with guarded(header_timeout=1.0, body_timeout=1.0) as server:
        sock = socket.create_connection((server.host, server.port), timeout=10)
        try:
            requests_ = b""
            for _ in range(3):
                body = json.dumps(callback()).encode()
                requests_ += (
                    f"POST {server.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n"
                ).encode() + body
            sock.sendall(requests_)  # three requests in one write: the second and third wait their turn
            received = b""
            while received.count(b"HTTP/1.1 200") < 3:
                chunk = sock.recv(65536)
                assert chunk, f"closed after {received.count(b'HTTP/1.1 200')} answers"
                received += chunk
            assert received.count(b"HTTP/1.1 200") == 3
            # idle: closed by the head deadline (1 s); uvicorn's keep-alive would wait 300 s
            wait_until(lambda: closed_by_server(sock), timeout=30, what="the idle connection closed")
        finally:
            sock.close()
    assert store.count() == 3


def test_beyond_the_connection_cap_the_slowest_waiting_connections_make_room(guarded, store, sockets):
    with guarded(header_timeout=60, max_connections=20) as server:
        for _ in range(60):
            sockets.append(slow_socket(server, b"POST /callbacks HTTP/1.1\r\n"))
        wait_until(lambda: sum(closed_by_server(s) for s in sockets) >= 40, timeout=30, what="40 of 60 closed")
        # the oldest waiting were closed, in the order they opened: exactly the newest 20 are left. The 60 open
        # within a few milliseconds, so this fails if the order is read from a clock that ties them (uvloop's).
        assert open_ones(sockets) == list(range(40, 60))
        response = post(server.url, callback(1))  # the legitimate callback gets a place (the cap closes another)
        assert response.status_code == 200
        wait_until(lambda: open_ones(sockets) == list(range(41, 60)), timeout=30, what="the oldest of 20 closed")
    assert store.count() == 1


def test_the_cap_fits_the_file_descriptor_limit():
    import resource

    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        assert connection_limits(10) == 10
        raised = resource.getrlimit(resource.RLIMIT_NOFILE)[0]  # the soft limit is raised to the hard one
        assert raised >= before[0]
        # room for one burst of accepts (the backlog, at most a quarter of the limit) is kept free, and 64 more
        assert connection_limits(10**9, backlog=2048) == max(8, raised - 64 - min(2048, raised // 4))
        assert connection_limits(10**9, backlog=16) == max(8, raised - 64 - 16)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)
    with pytest.raises(ValueError):
        guarded_protocol(header_timeout=0)
    with pytest.raises(ValueError):
        guarded_protocol(max_head_bytes=100)


def raw_exchange(server: ReceiverServer, *writes: bytes) -> bytes:
    """Send each write on one connection, then read every answer until the server closes it."""
    sock = socket.create_connection((server.host, server.port), timeout=30)
    try:
        for data in writes:
            try:
                sock.sendall(data)
            except OSError:  # the server answered and closed while we were still sending
                break
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
        return received
    except ConnectionResetError:
        return received
    finally:
        sock.close()


def request(server: ReceiverServer, body: dict | None = None, *, headers: bytes = b"") -> bytes:
    content = json.dumps(body if body is not None else callback(1)).encode()
    return (
        (
            f"POST {server.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(content)}\r\n"
        ).encode()
        + headers
        + b"\r\n"
        + content
    )


def statuses(received: bytes) -> list[int]:
    """The status of every answer, in order (an answer follows the previous body on the same line)."""
    return [int(code) for code in re.findall(rb"HTTP/1\.1 (\d{3}) ", received)]


def test_a_request_head_streamed_past_the_bound_is_answered_431_and_closed(guarded, store):
    with guarded(max_head_bytes=4096) as server:
        start = f"POST {server.path} HTTP/1.1\r\nHost: x\r\nX-Endless: ".encode()
        received = raw_exchange(server, start, *[b"a" * 1024] * 64)  # 64 KiB of one header value, in pieces
        assert statuses(received) == [431]
        long_url = f"POST {server.path}?{'q' * 1024}".encode()
        assert statuses(raw_exchange(server, long_url, *[b"q" * 1024] * 64)) == [431]
        assert post(server.url, callback(1)).status_code == 200  # the receiver is fine
    assert store.count() == 1


def test_a_complete_request_head_over_the_bound_is_answered_431_and_one_under_it_is_served(guarded, store):
    with guarded(max_head_bytes=4096) as server:
        padding = b"X-Pad: " + b"p" * 3000 + b"\r\n"
        assert statuses(raw_exchange(server, request(server, headers=padding * 2))) == [431]  # in one write
        assert statuses(raw_exchange(server, request(server, headers=padding))) == [200]
    assert store.count() == 1


@pytest.mark.parametrize("bad", [b"NOT HTTP AT ALL\r\n\r\n", b"GET / HTTP/1.1\r\nBad Header\r\n\r\n"])
def test_a_callback_pipelined_before_a_malformed_request_is_answered_then_the_400(guarded, store, bad):
    """Both in one write: the callback is committed, so it is answered as committed, before the 400."""
    first, second = callback(1), callback(1)
    with guarded() as server:
        received = raw_exchange(server, request(server, first) + request(server, second) + bad)
        assert statuses(received) == [200, 200, 400]
        assert received.count(b'"status":"stored"') == 2
    assert sorted(store.transaction_ids()) == sorted([first["TransactionId"], second["TransactionId"]])


def test_a_callback_pipelined_before_an_oversized_head_is_answered_then_the_431(guarded, store):
    with guarded(max_head_bytes=4096) as server:
        oversized = f"POST {server.path} HTTP/1.1\r\nX-Endless: ".encode() + b"a" * 8192
        received = raw_exchange(server, request(server) + oversized, b"a" * 8192)
        assert statuses(received) == [200, 431]
    assert store.count() == 1


#: The headers of a refusal (400, 431): uvicorn's own and the guard's, nothing else.
REFUSAL_HEADERS = {"content-type", "content-length", "connection", "date", "server", "transfer-encoding"}


def answer(received: bytes) -> tuple[str, dict[str, str], bytes]:
    """The status line, the headers (names lower-cased) and the body (chunks joined) of the one answer received."""
    head, _, body = received.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        chunks = b""
        while (size := int(body.split(b"\r\n", 1)[0], 16)) > 0:
            body = body.split(b"\r\n", 1)[1]
            chunks, body = chunks + body[:size], body[size + 2 :]
        body = chunks
    elif "content-length" in headers:
        body = body[: int(headers["content-length"])]
    return status, headers, body


def test_refusals_say_why_in_plain_text_and_close_the_connection(guarded, store):
    with guarded(max_head_bytes=4096, header_timeout=5) as server:
        # a head still arriving, cut off once past the bound: 6 KiB, within h11's own buffer bound (16 KiB)
        start = f"POST {server.path} HTTP/1.1\r\nHost: x\r\nX-Endless: ".encode()
        streamed = answer(raw_exchange(server, start, *[b"a" * 1024] * 6))
        complete = answer(raw_exchange(server, request(server, headers=b"X-Pad: " + b"p" * 5000 + b"\r\n")))
        for status, headers, body in (streamed, complete):
            assert status == "HTTP/1.1 431 Request Header Fields Too Large"
            assert headers["content-type"] == "text/plain; charset=utf-8" and headers["connection"] == "close"
            assert set(headers) <= REFUSAL_HEADERS, headers
            assert body == b"the request head is longer than 4096 bytes"
        status, headers, body = answer(raw_exchange(server, b"GET / HTTP/1.1\r\nBad Header\r\n\r\n"))
        assert status == "HTTP/1.1 400 Bad Request"
        assert headers["content-type"] == "text/plain; charset=utf-8" and headers["connection"] == "close"
        assert set(headers) <= REFUSAL_HEADERS, headers
        assert body.strip()  # uvicorn's reason
    assert store.count() == 0


def test_a_malformed_request_is_a_400_whatever_follows_it_up_to_the_bound(guarded, store):
    """Its head is short: not a 431, even with as many bytes as the bound behind it in the same write."""
    with guarded(max_head_bytes=4096) as server:
        assert statuses(raw_exchange(server, b"GET / HTTP/1.1\r\nBad Header\r\n\r\n" + b"x" * 4096)) == [400]


def head_of(server: ReceiverServer, length: int, target: str) -> bytes:
    """
    A callback POSTed to ``target`` whose head (request line, headers and the blank line) is ``length`` bytes, on a
    connection closed after its answer.
    """
    body = json.dumps(callback(1)).encode()
    start = (
        f"POST {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n"
    ).encode()
    padding = length - len(start) - len(b"X-Pad: \r\n\r\n")
    head = start + b"X-Pad: " + b"p" * padding + b"\r\n\r\n"
    assert len(head) == length
    return head + body


@pytest.mark.parametrize("query", ["", "?source=platform"], ids=["path", "path-and-query"])
def test_a_head_of_the_bound_is_served_and_one_a_byte_longer_is_refused(guarded, store, query):
    with guarded(max_head_bytes=4096) as server:
        assert statuses(raw_exchange(server, head_of(server, 4096, server.path + query))) == [200]
        assert statuses(raw_exchange(server, head_of(server, 4096 + 1, server.path + query))) == [431]
    assert store.count() == 1


def test_connections_that_closed_leave_their_place_under_the_cap(guarded, store):
    with guarded(max_connections=2) as server:
        for _ in range(6):  # each on a connection of its own, closed after its answer
            assert post(server.url, callback(1)).status_code == 200
    assert store.count() == 6


def read_until(sock: socket.socket, marker: bytes, count: int = 1) -> bytes:
    """What the server sends until ``marker`` has come ``count`` times; fails if it closes the connection first."""
    received = b""
    while received.count(marker) < count:
        chunk = sock.recv(65536)
        assert chunk, f"closed after {received!r}"
        received += chunk
    return received


def continue_head(server: ReceiverServer, body: bytes) -> bytes:
    """A callback's head asking for ``100 Continue`` before its body: the answer says the head is in."""
    return (
        f"POST {server.path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n\r\n"
    ).encode()


def test_a_connection_busy_with_a_callback_is_not_the_one_the_cap_closes(guarded, store, sockets):
    body = json.dumps(callback(1)).encode()
    with guarded(header_timeout=60, max_connections=2) as server:
        sockets.append(slow_socket(server, continue_head(server, body)))
        assert read_until(sockets[0], b"\r\n\r\n").startswith(b"HTTP/1.1 100 Continue")  # its head is in
        sockets.append(slow_socket(server, b""))  # waits for a head
        sockets.append(slow_socket(server, b""))  # one more than the cap: the one waiting longest makes room
        wait_until(lambda: closed_by_server(sockets[1]), timeout=30, what="the connection waiting longest closed")
        sockets[0].sendall(body)
        assert b'"status":"stored"' in read_until(sockets[0], b'"TransactionId":')
        assert open_ones(sockets) == [0, 2]
    assert store.count() == 1


def test_a_callback_pipelined_behind_one_whose_body_followed_100_continue_is_answered(guarded, store):
    first = json.dumps(callback(1)).encode()
    with guarded() as server:
        sock = socket.create_connection((server.host, server.port), timeout=30)
        try:
            sock.sendall(continue_head(server, first))
            assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 Continue")
            sock.sendall(first + request(server))  # the body, and the next callback behind it in the same write
            received = read_until(sock, b'"TransactionId":', 2)
            assert statuses(received) == [200, 200] and received.count(b'"status":"stored"') == 2
        finally:
            sock.close()
    assert store.count() == 2


def test_a_callback_whose_storing_outlasts_the_body_deadline_is_still_answered(guarded, store, monkeypatch):
    """
    The body deadline is for the client's sending, not for the store: a complete callback that a slow database
    keeps past it is answered as committed (closed unanswered, it would be redelivered though stored).
    """
    deadline_passed, release = threading.Event(), threading.Event()
    body_expired = guard._Guard._body_expired

    def observed_body_expired(self: Any, cycle: Any) -> None:
        body_expired(self, cycle)
        deadline_passed.set()

    add_many = CallbackStore.add_many

    def slow_add_many(self: CallbackStore, items: Any) -> Any:
        release.wait(30)  # the database is slow: until the body deadline has passed
        return add_many(self, items)

    monkeypatch.setattr(guard._Guard, "_body_expired", observed_body_expired)
    monkeypatch.setattr(CallbackStore, "add_many", slow_add_many)
    body = json.dumps(callback(1)).encode()
    with guarded(header_timeout=60, body_timeout=1.0) as server:
        sock = socket.create_connection((server.host, server.port), timeout=30)
        try:
            sock.sendall(continue_head(server, body))
            assert read_until(sock, b"\r\n\r\n").startswith(b"HTTP/1.1 100 Continue")
            sock.sendall(body)
            wait_until(deadline_passed.is_set, timeout=30, what="the body deadline passed")
            release.set()
            assert statuses(read_until(sock, b'"TransactionId":')) == [200]
        finally:
            release.set()
            sock.close()
    assert store.count() == 1
