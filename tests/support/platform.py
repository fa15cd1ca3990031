"""The emulator as the tests see it (the ``platform`` fixture): a thin handle on a running ``EmulatorServer``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.server import EmulatorServer

CONN_ENV = "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"


class Platform:
    """
    The running emulator: its seed, its platform base URL, ``control`` (the server's ``EmulatorControl``: reset,
    faults, the request record, the clock, ...) and the Airflow connection that points at it.
    """

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.seed = server.seed
        self.base_url = server.base_url
        self.control: EmulatorControl = server.control

    def connection_json(self, **overrides: Any) -> str:
        extra = {"base_url": self.base_url, "account_id": self.seed.account_id}
        extra.update(overrides.pop("extra", {}))
        conn = {
            "conn_type": "messaging_platform",
            "login": self.seed.api_key,
            "password": self.seed.api_secret,
            "extra": extra,
        }
        conn.update(overrides)
        return json.dumps(conn)


def reset_platform(server: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> Platform:
    """The server reset to its seed, with ``messaging_platform_default`` pointing at it (undone by ``monkeypatch``)."""
    handle = Platform(server)
    handle.control.reset()
    monkeypatch.setenv(CONN_ENV, handle.connection_json())
    return handle


@contextmanager
def module_platform(server: EmulatorServer) -> Iterator[Platform]:
    """What the ``platform`` fixture gives a test, for a module-scoped fixture (that one is per test)."""
    with pytest.MonkeyPatch.context() as patch:
        yield reset_platform(server, patch)
