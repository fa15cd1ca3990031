"""pytest fixtures that put the emulator under your tests, so that your DAGs are tested offline.

Enable the plugin in your ``conftest.py``::

    pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]

Fixtures:

``messaging_platform_server`` (session)
    One ``EmulatorServer`` for the whole session (for each pytest-xdist worker), on a port the OS picks. It is
    stopped when the session ends, whether the tests passed or not. Override this fixture in your ``conftest.py``
    to start it another way (your own ``api_key`` and ``api_secret``, say).

``messaging_platform`` (each test)
    The session's server reset to its seed (no faults, an empty request record, the clock back to real time), and
    the Airflow connection ``messaging_platform_default`` pointing at it for the duration of the test: the
    variable ``AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT`` is set with ``monkeypatch``, so it is back to what it was
    (unset, usually) after the test. The value is the ``MessagingPlatform`` handle below: the seed's ids and
    credentials, the base URL, and ``control``, the emulator's control client (faults, the requests the emulator
    received, the clock, events).

``using_emulator(server)`` gives the same handle to a module- or class-scoped fixture, whose tests then share one
state (one DAG run asserted on by several tests, say).

The plugin is not registered with a ``pytest11`` entry point, although, being only fixtures, it would start
nothing in a session that does not use them: a test suite opts in explicitly, as with moto, and an installed
provider never adds fixture names to every pytest session on the machine, where they could clash with a
project's own. pytest is not a dependency of the provider: this module imports it, and only test code imports
this module.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .control_client import EmulatorControl
from .server import EmulatorServer
from .services.accounts import Seed

__all__ = ["CONN_ENV", "CONN_ID", "MessagingPlatform", "reset_messaging_platform", "using_emulator"]

#: The connection the provider's hooks, operators and sensors use when a task names none.
CONN_ID = "messaging_platform_default"
#: The environment variable Airflow reads that connection from (ahead of the metadata database).
CONN_ENV = f"AIRFLOW_CONN_{CONN_ID.upper()}"


class MessagingPlatform:
    """A running emulator as a test sees it.

    ``seed``: the seeded account (``account_id``, ``api_key``, ``api_secret``, ``api_key_id``, ``action_id``,
    ``callback_token``, and in ``resources`` the ids of its contact list, root filter group, channel and keyword);
    the same after every reset. ``base_url``: the platform API's base (``http://127.0.0.1:PORT/api/v2.1``).
    ``url``: the server's root. ``control``: the server's ``EmulatorControl``. ``server``: the ``EmulatorServer``.
    """

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.seed: Seed = server.seed
        self.url = server.url
        self.base_url = server.base_url
        self.control: EmulatorControl = server.control

    def connection_json(self, **overrides: Any) -> str:
        """
        The Airflow connection to the seeded account as JSON (the form ``AIRFLOW_CONN_*`` variables take).
        Keyword arguments replace its fields (``password="wrong"``, ``login=None``); ``extra={...}`` is merged into
        its extras (``extra={"read_timeout": 5}``; a None value is sent as null).
        """
        extra: dict[str, Any] = {"base_url": self.base_url, "account_id": self.seed.account_id}
        extra.update(overrides.pop("extra", {}))
        conn: dict[str, Any] = {
            "conn_type": "messaging_platform",
            "login": self.seed.api_key,
            "password": self.seed.api_secret,
            "extra": extra,
        }
        conn.update(overrides)
        return json.dumps(conn)


def reset_messaging_platform(server: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> MessagingPlatform:
    """``server`` reset to its seed, with ``messaging_platform_default`` pointing at it until ``monkeypatch`` undoes
    it; answers the handle."""
    handle = MessagingPlatform(server)
    handle.control.reset()
    monkeypatch.setenv(CONN_ENV, handle.connection_json())
    return handle


@contextmanager
def using_emulator(server: EmulatorServer) -> Iterator[MessagingPlatform]:
    """Within: ``server`` reset to its seed and ``messaging_platform_default`` pointing at it (the variable is back
    to what it was on exit). For a fixture of a wider scope than a test::

        @pytest.fixture(scope="module")
        def launched(messaging_platform_server):
            with using_emulator(messaging_platform_server) as platform:
                yield platform, dag.test()
    """
    with pytest.MonkeyPatch.context() as patch:
        yield reset_messaging_platform(server, patch)


@pytest.fixture(scope="session")
def messaging_platform_server() -> Iterator[EmulatorServer]:
    """The session's emulator on a free port (port 0: the OS picks it), stopped at the end of the session."""
    with EmulatorServer(port=0) as server:
        yield server


@pytest.fixture
def messaging_platform(messaging_platform_server: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> MessagingPlatform:
    """The session's emulator reset to its seed, ``messaging_platform_default`` pointing at it for this test."""
    return reset_messaging_platform(messaging_platform_server, monkeypatch)
