"""Fixtures for the emulator tests: one server per session, reset before every test."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

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

    def control(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        response = requests.request(method, f"{self.server.url}/_emulator{path}", timeout=10, **kwargs)
        return response

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        """A control call that must succeed; returns its JSON."""
        response = self.control(method, path, **kwargs)
        response.raise_for_status()
        return response.json()

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


@pytest.fixture(scope="session")
def server() -> Iterator[EmulatorServer]:
    with EmulatorServer() as running:
        yield running


@pytest.fixture
def emu(server: EmulatorServer) -> Iterator[Emu]:
    requests.post(f"{server.url}/_emulator/reset", timeout=10).raise_for_status()
    handle = Emu(server)
    yield handle
    handle.http.close()
