"""Fixtures for the emulator tests: the session's emulator server, reset before every test, a strict one (``--strict``:
it refuses every departure from the API reference), and a callback receiver."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
import requests

from messaging_platform_emulator import EmulatorServer


class Emu:
    """The running emulator: platform calls authenticated as the seed key, and control calls."""

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.seed = server.seed
        self.account = server.seed.account_id
        self.action = server.seed.action_id
        self.http = requests.Session()
        self.http.auth = (self.seed.api_key, self.seed.api_secret)

    def api(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        return self.http.request(method, self.server.base_url + path, timeout=10, **kwargs)

    def control(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """A control call's answer, whatever its status (``path`` below ``/_emulator``)."""
        return self.server.control.request(method, path, **kwargs)

    def violations(self) -> list[tuple[str, str | None, str]]:
        """The violations recorded since the reset, as (path, property, rule)."""
        return [(v["path"], v["property"], v["rule"]) for v in self.server.control.violations()]

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        """A control call that must succeed; returns its JSON."""
        return self.server.control.call(method, path, **kwargs)

    def at(self, path: str) -> str:
        """A platform path under the seeded account, e.g. ``at("/callback")``."""
        return f"/account/{self.account}{path}"

    def created(self, path: str, body: Any) -> dict[str, Any]:
        """POST ``body`` to a platform path that must answer 201; returns the created object."""
        response = self.api("POST", path, json=body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    def error(self, response: requests.Response, status: int = 400) -> tuple[int, str, str | None]:
        """The single platform error of a response: (ErrorCodeId, PropertyName, ObjectType)."""
        assert response.status_code == status, response.text
        [error] = response.json()
        return error["ErrorCodeId"], error["PropertyName"], error["ObjectType"]

    @property
    def campaigns(self) -> str:
        return f"/account/{self.account}/campaign"

    @property
    def schedules(self) -> str:
        return f"/account/{self.account}/action/{self.action}/schedule"

    def create_campaign(self, **fields: Any) -> dict[str, Any]:
        response = self.api("POST", self.campaigns, json={"Name": "Spring sale", "CampaignTypeId": 1, **fields})
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    def create_schedule(self, **fields: Any) -> dict[str, Any]:
        response = self.api("POST", self.schedules, json=self.schedule_body(**fields))
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    @staticmethod
    def schedule_body(**fields: Any) -> dict[str, Any]:
        """A valid one-time schedule request; a field given as None is left out."""
        body: dict[str, Any] = {"ScheduleTypeId": 2, "RunAt": "17:30:00", "StartFrom": "2026-12-01T17:30:00"}
        body.update(fields)
        return {k: v for k, v in body.items() if v is not None}


class CallbackSink:
    """
    A bare recording HTTP server for callbacks (not the provider's receiver). Records every POST; answers the
    statuses of ``script`` in turn (then 200). While ``answering`` is clear, each POST is recorded (``received``
    counts it) and then held unanswered until the test sets it again.
    """

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.script: list[int] = []
        self.answering = threading.Event()
        self.answering.set()
        self.received = threading.Semaphore(0)
        self.lock = threading.Lock()
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with sink.lock:
                    sink.bodies.append(body)
                    sink.paths.append(self.path)
                    status = sink.script.pop(0) if sink.script else 200
                sink.received.release()
                sink.answering.wait(300)  # a held answer: released by the test (or its teardown)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        # shutdown() waits for the serving loop's next look (every 0.5 s by default): every test with a sink paid it.
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def close(self) -> None:
        self.answering.set()  # no handler thread left waiting: server_close() joins them
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def emu(emulator_server: EmulatorServer) -> Iterator[Emu]:
    """The session's emulator (``emulator_server``, shared with the ``platform`` tests), reset to its seed."""
    emulator_server.control.reset()
    handle = Emu(emulator_server)
    yield handle
    handle.http.close()


@pytest.fixture(scope="session")
def strict_server() -> Iterator[EmulatorServer]:
    """An emulator started as ``--strict`` starts it, for the session (of each xdist worker)."""
    with EmulatorServer(strict=True) as server:
        yield server


@pytest.fixture
def strict_emu(strict_server: EmulatorServer) -> Iterator[Emu]:
    """The strict emulator, reset to its seed."""
    strict_server.control.reset()
    handle = Emu(strict_server)
    yield handle
    handle.http.close()


@pytest.fixture
def sink() -> Iterator[CallbackSink]:
    receiver = CallbackSink()
    yield receiver
    receiver.close()
