"""
The REST client of Airflow's API (``rotation/airflow_api.py``) on the wire: how it takes its token and sends it,
which answers it tries again (and after which pauses), and what it never sends twice. Against a stand-in server on
loopback, which answers what a test scripts (a real Airflow server cannot be made to answer 503, drop a connection or
expire a token on cue) and records every request it received; test_airflow_rest_api_errors.py and
test_airflow_rest_api_settings.py use it too. The calls against a real Airflow server, and the paths of the
connection calls, are in test_airflow_rest_api_errors.py. The client's pauses are recorded instead of slept.
"""

from __future__ import annotations

import json
import ssl
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from messaging_platform_provider.rotation import airflow_api
from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi
from tests.support.airflow_versions import secrets_masker

#: An answer that closes the connection without a word (a proxy or a server that went away mid-request).
DROP = "drop"


@dataclass
class Seen:
    """A request the stand-in received: the path as sent (percent-encoding kept), header names in lower case."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: Any  # the JSON body decoded; None without a body


#: ``(status, body)`` or ``(status, body, reason)``: a dict or list body goes as JSON, text as text/plain.
Reply = tuple[int, Any] | tuple[int, Any, str] | str | Callable[[Seen], Any]


class StandIn:
    """
    Airflow's API server as a test needs it to answer. ``routes`` maps ``"METHOD /path"`` to the replies it gives
    in turn, the last one for every request after; a reply may be ``DROP`` or a function of the request. Any other
    request gets 404. Past ``LIMIT`` requests every connection is dropped, so that a client that loops gives up.
    """

    LIMIT = 30

    def __init__(self, routes: dict[str, list[Reply]]) -> None:
        self.routes = {key: list(replies) for key, replies in routes.items()}
        self.seen: list[Seen] = []
        self.url = ""
        self._lock = threading.Lock()

    def reply(self, seen: Seen) -> Any:
        with self._lock:
            self.seen.append(seen)
            if len(self.seen) > self.LIMIT:
                return DROP
            replies = self.routes.get(f"{seen.method} {seen.path}") or [(404, {"detail": "Not Found"})]
            answer = replies.pop(0) if len(replies) > 1 else replies[0]
        return answer(seen) if callable(answer) else answer

    def calls(self) -> list[tuple[str, str]]:
        return [(s.method, s.path) for s in self.seen]


class _Handler(BaseHTTPRequestHandler):
    server: Any

    def _serve(self) -> None:
        parts = urlsplit(self.path)
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        seen = Seen(
            self.command,
            parts.path,
            parse_qsl(parts.query, keep_blank_values=True),
            {name.lower(): value for name, value in self.headers.items()},
            json.loads(raw) if raw else None,
        )
        answer = self.server.stand_in.reply(seen)
        if answer == DROP:
            self.close_connection = True
            return
        status, body, *reason = answer
        as_json = isinstance(body, (dict, list))
        data = json.dumps(body).encode() if as_json else (body or "").encode()
        self.send_response(status, reason[0] if reason else None)
        self.send_header("Content-Type", "application/json" if as_json else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = _serve

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serving(routes: dict[str, list[Reply]], tls: ssl.SSLContext | None = None) -> Iterator[StandIn]:
    """A ``StandIn`` on a loopback port (``.url``; over TLS with ``tls``), shut down on the way out."""
    stand_in = StandIn(routes)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.stand_in = stand_in  # type: ignore[attr-defined]
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    stand_in.url = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield stand_in
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def naps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The client's pauses between tries, recorded instead of slept (an eleventh is a loop that never ends)."""
    taken: list[float] = []

    def nap(seconds: float) -> None:
        taken.append(seconds)
        if len(taken) > 10:
            raise RuntimeError("the client tries again without end")

    monkeypatch.setattr(airflow_api, "time", SimpleNamespace(sleep=nap))
    return taken


def fresh(kind: str) -> str:
    """
    A secret no earlier test (nor the unmutated run a mutation run forks from) can have masked, nor a part of it:
    ``kind`` is too short for the masker (under 5 characters).
    """
    return f"{kind}-{uuid.uuid4().hex}"


def masked(secret: str) -> bool:
    """Whether Airflow's secrets masker hides ``secret`` in a log line."""
    return bool(secrets_masker().redact(f"value={secret}") == "value=***")


OK = (200, {"ok": True})
#: The token of the tests that are not about tokens (masked by the first of them: no fresh secret contains it).
ISSUED = "a-token-issued-beforehand"


# -- the token -----------------------------------------------------------------------------------------------------


def test_without_a_login_the_client_takes_a_token_once_and_sends_it_with_every_call(naps: list[float]) -> None:
    """The simple auth manager in all-admins mode: ``GET /auth/token`` without credentials."""
    token = fresh("tok")
    routes: dict[str, list[Reply]] = {"GET /auth/token": [(201, {"access_token": token})], "GET /api/v2/x": [OK]}
    with serving(routes) as server:
        api = AirflowRestApi(server.url)
        assert api.get("/api/v2/x") == {"ok": True}
        assert api.get("/api/v2/x", params={"limit": 5}) == {"ok": True}
        api.close()
    assert server.calls() == [("GET", "/auth/token"), ("GET", "/api/v2/x"), ("GET", "/api/v2/x")]
    taking, first, second = server.seen
    assert "authorization" not in taking.headers and taking.body is None
    assert taking.headers["accept"] == "application/json"
    for call in (first, second):
        assert call.headers["authorization"] == f"Bearer {token}"
        assert call.headers["accept"] == "application/json"
    assert (first.query, second.query) == ([], [("limit", "5")])
    assert masked(token) and naps == []


def test_with_a_login_the_client_posts_it_for_a_token_and_masks_both_secrets() -> None:
    password, token = fresh("pw"), fresh("tok")
    routes: dict[str, list[Reply]] = {"POST /auth/token": [(201, {"access_token": token})], "GET /api/v2/x": [OK]}
    with serving(routes) as server:
        api = AirflowRestApi(server.url, username="alice", password=password)
        assert masked(password)  # from the start, before anything could log it
        assert api.token() == token
        assert api.get("/api/v2/x") == {"ok": True}
    assert server.calls() == [("POST", "/auth/token"), ("GET", "/api/v2/x")]
    assert server.seen[0].body == {"username": "alice", "password": password}
    assert "authorization" not in server.seen[0].headers
    assert server.seen[1].headers["authorization"] == f"Bearer {token}"
    assert masked(token)


def test_a_login_without_a_password_posts_an_empty_one() -> None:
    routes: dict[str, list[Reply]] = {"POST /auth/token": [(201, {"access_token": fresh("tok")})]}
    with serving(routes) as server:
        AirflowRestApi(server.url, username="bob").token()
    assert server.seen[0].body == {"username": "bob", "password": ""}


def test_a_token_issued_beforehand_is_used_as_is_and_a_401_is_final() -> None:
    token = fresh("tok")
    routes: dict[str, list[Reply]] = {"GET /api/v2/x": [OK, (401, {"detail": "Invalid JWT token"})]}
    with serving(routes) as server:
        api = AirflowRestApi(server.url, access_token=token)
        assert masked(token)
        assert api.get("/api/v2/x") == {"ok": True}
        with pytest.raises(AirflowApiError) as caught:
            api.get("/api/v2/x")
        assert api.token(renew=True) == token  # nothing to renew it with
    assert (caught.value.status, caught.value.detail) == (401, "Invalid JWT token")
    assert server.calls() == [("GET", "/api/v2/x")] * 2
    assert [s.headers["authorization"] for s in server.seen] == [f"Bearer {token}"] * 2


def test_a_token_refused_with_401_is_renewed_once() -> None:
    """An expired token: a new one is taken and the call sent again; a second 401 is the answer."""
    first, second = fresh("tok"), fresh("tok")
    routes: dict[str, list[Reply]] = {
        "GET /auth/token": [(201, {"access_token": first}), (201, {"access_token": second})],
        "GET /api/v2/x": [(401, {"detail": "Token expired"}), OK, (401, {"detail": "Token expired"})],
    }
    with serving(routes) as server:
        api = AirflowRestApi(server.url)
        assert api.get("/api/v2/x") == {"ok": True}
        with pytest.raises(AirflowApiError) as caught:
            api.get("/api/v2/x")
    assert (caught.value.status, caught.value.detail) == (401, "Token expired")
    token, call = ("GET", "/auth/token"), ("GET", "/api/v2/x")
    assert server.calls() == [token, call, token, call, call, token, call]
    sent = [s.headers.get("authorization") for s in server.seen if s.path == "/api/v2/x"]
    assert sent == [f"Bearer {first}", f"Bearer {second}", f"Bearer {second}", f"Bearer {second}"]
    assert masked(second)


@pytest.mark.parametrize(
    ("login", "method"), [pytest.param(None, "GET", id="all-admins"), pytest.param("alice", "POST", id="login")]
)
@pytest.mark.parametrize(
    ("status", "body"),
    [pytest.param(200, {"token": "misnamed"}, id="no access_token"), pytest.param(204, "", id="empty")],
)
def test_an_answer_without_a_token_is_an_error(login: str | None, method: str, status: int, body: Any) -> None:
    with serving({f"{method} /auth/token": [(status, body)]}) as server:
        api = AirflowRestApi(server.url, username=login, password="pw-unused" if login else None)
        with pytest.raises(AirflowApiError) as caught:
            api.get("/api/v2/x")
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == (method, "/auth/token", status, "no token")
    assert str(error) == f"Airflow API {method} /auth/token failed with HTTP {status}: no token"
    assert server.calls() == [(method, "/auth/token")]


@pytest.mark.parametrize(("login", "method"), [(None, "GET"), ("alice", "POST")])
def test_a_token_endpoint_that_fails_fails_the_call(login: str | None, method: str) -> None:
    with serving({f"{method} /auth/token": [(403, {"detail": "Forbidden"})]}) as server:
        api = AirflowRestApi(server.url, username=login)
        with pytest.raises(AirflowApiError) as caught:
            api.get("/api/v2/x")
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == (method, "/auth/token", 403, "Forbidden")
    assert server.calls() == [(method, "/auth/token")]


# -- tries ---------------------------------------------------------------------------------------------------------


def test_502_503_and_504_are_tried_again_after_a_growing_pause(naps: list[float]) -> None:
    with serving({"GET /api/v2/x": [(502, "<html>Bad Gateway</html>"), (504, "timeout"), OK]}) as server:
        assert AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x") == {"ok": True}
    assert server.calls() == [("GET", "/api/v2/x")] * 3
    assert naps == [0.2, 0.4]


def test_a_server_still_unavailable_after_three_tries_is_an_error(naps: list[float]) -> None:
    unavailable = (503, {"detail": "Service Unavailable"})
    with serving({"GET /api/v2/x": [unavailable, unavailable, unavailable, OK]}) as server:
        with pytest.raises(AirflowApiError) as caught:
            AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x")
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == ("GET", "/api/v2/x", 503, "Service Unavailable")
    assert str(error) == "Airflow API GET /api/v2/x failed with HTTP 503: Service Unavailable"
    assert server.calls() == [("GET", "/api/v2/x")] * 3
    assert naps == [0.2, 0.4]


@pytest.mark.parametrize(("attempts", "tries"), [(0, 1), (1, 1), (2, 2), (5, 5)])
def test_the_number_of_tries_is_the_clients_attempts(attempts: int, tries: int, naps: list[float]) -> None:
    replies: list[Reply] = [(503, {"detail": "busy"})] * 5
    with serving({"GET /api/v2/x": [*replies, OK]}) as server:
        with pytest.raises(AirflowApiError, match="HTTP 503: busy"):
            AirflowRestApi(server.url, access_token=ISSUED, attempts=attempts).get("/api/v2/x")
    assert len(server.seen) == tries
    assert naps == pytest.approx([0.2, 0.4, 0.6, 0.8][: tries - 1])


@pytest.mark.parametrize("status", [400, 404, 409, 422, 500])
def test_other_error_answers_are_not_tried_again(status: int, naps: list[float]) -> None:
    with serving({"GET /api/v2/x": [(status, {"detail": f"answer {status}"}), OK]}) as server:
        with pytest.raises(AirflowApiError) as caught:
            AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x")
    assert (caught.value.status, caught.value.detail) == (status, f"answer {status}")
    assert len(server.seen) == 1 and naps == []


def test_a_dropped_connection_is_tried_again(naps: list[float]) -> None:
    with serving({"GET /api/v2/x": [DROP, DROP, OK]}) as server:
        assert AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x") == {"ok": True}
    assert len(server.seen) == 3 and naps == [0.2, 0.4]


def test_no_answer_after_three_tries_is_an_error_without_a_status(naps: list[float]) -> None:
    with serving({"GET /api/v2/x": [DROP, DROP, DROP, OK]}) as server:
        with pytest.raises(AirflowApiError) as caught:
            AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x")
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == ("GET", "/api/v2/x", None, "ConnectionError")
    assert str(error) == "Airflow API GET /api/v2/x failed with no response: ConnectionError"
    assert error.__cause__ is None and error.__suppress_context__
    assert len(server.seen) == 3 and naps == [0.2, 0.4]


def test_a_create_is_sent_once_whatever_the_answer(naps: list[float]) -> None:
    """A create tried again could find its own first try's connection (409): it is never tried again."""
    created = (201, {"connection_id": "c", "conn_type": "generic"})
    with serving({"POST /api/v2/connections": [(503, {"detail": "busy"}), DROP, created]}) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED)
        with pytest.raises(AirflowApiError) as unavailable:
            api.create_connection({"connection_id": "c", "conn_type": "generic"})
        with pytest.raises(AirflowApiError) as dropped:
            api.create_connection({"connection_id": "c", "conn_type": "generic"})
        assert api.create_connection({"connection_id": "c", "conn_type": "generic"}) == created[1]
    assert (unavailable.value.method, unavailable.value.status) == ("POST", 503)
    assert (dropped.value.method, dropped.value.status, dropped.value.detail) == ("POST", None, "ConnectionError")
    assert server.calls() == [("POST", "/api/v2/connections")] * 3 and naps == []


def test_a_server_that_does_not_answer_in_time_is_given_up() -> None:
    release = threading.Event()

    def late(seen: Seen) -> Any:
        release.wait(3)
        return OK

    with serving({"GET /api/v2/x": [late]}) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED, timeout=(2.0, 0.2), attempts=1)
        try:
            with pytest.raises(AirflowApiError) as caught:
                api.get("/api/v2/x")
        finally:
            release.set()
    assert (caught.value.status, caught.value.detail) == (None, "ReadTimeout")
