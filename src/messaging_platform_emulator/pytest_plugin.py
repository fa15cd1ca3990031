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

``airflow_api_server`` (session)
    For DAGs that write through Airflow's REST API (``MessagingPlatformRotateApiKeyOperator``): one
    ``airflow api-server --apps core`` (``messaging_platform_emulator.airflow_api.AirflowApiServer``) on a free
    loopback port, on the session's AIRFLOW_HOME and its metadata database (migrated beforehand, as ``dag.test()``
    needs), with this process's Fernet key. Started on first use, stopped at the end of the session whether the
    tests passed or not, and stopped by a start that fails. Override it to start it another way
    (``serving_airflow_api``).

``airflow_api`` (each test)
    That server, with the connection ``airflow_api_default`` pointing at it for the duration of the test
    (``AIRFLOW_CONN_AIRFLOW_API_DEFAULT``, set with ``monkeypatch``). ``airflow_api.put_connection(conn_id,
    conn_type, login=..., password=..., extra={...})`` creates or replaces a connection in the metadata database
    through the REST API, where a rotated connection must live.

``using_emulator(server)`` gives the same handle to a module- or class-scoped fixture, whose tests then share one
state (one DAG run asserted on by several tests, say).

Violations. Where a request departs from the API reference in a way the platform accepts (a property name in
another case, a date-time with an offset, an unknown property ...), the emulator takes it as the platform would
and records a violation; ``messaging_platform.violations`` lists those of the test. Settings (an ini option, or
the command-line option, which wins when given):

``messaging_platform_fail_on_violations = true`` (``--messaging-platform-fail-on-violations``)
    A test during which the emulator recorded a violation fails at teardown, naming each. A test that sends them
    on purpose says so: ``@pytest.mark.messaging_platform_allow_violations("why")``.
``messaging_platform_strict = true`` (``--messaging-platform-strict``)
    The session's emulator refuses every departure with 400 instead (``python -m messaging_platform_emulator
    --strict`` does the same for a standalone one).

The plugin is not registered with a ``pytest11`` entry point, although, being only fixtures, it would start
nothing in a session that does not use them: a test suite opts in explicitly, as with moto, and an installed
provider never adds fixture names to every pytest session on the machine, where they could clash with a
project's own. pytest is not a dependency of the provider: this module imports it, and only test code imports
this module.
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Generator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from .airflow_api import AIRFLOW_API_CONN_ENV, AirflowApiServer, serving_airflow_api
from .connection import CONN_TYPE
from .control_client import EmulatorControl
from .server import EmulatorServer
from .services.accounts import Seed
from .violations import ViolationBook

__all__ = [
    "ALLOW_VIOLATIONS",
    "CONN_ENV",
    "CONN_ID",
    "MessagingPlatform",
    "reset_messaging_platform",
    "using_emulator",
]

#: The connection the provider's hooks, operators and sensors use when a task names none.
CONN_ID = "messaging_platform_default"
#: The environment variable Airflow reads that connection from (ahead of the metadata database).
CONN_ENV = f"AIRFLOW_CONN_{CONN_ID.upper()}"
#: The marker of a test that sends departures from the API reference on purpose.
ALLOW_VIOLATIONS = "messaging_platform_allow_violations"
FAIL_ON_VIOLATIONS = "messaging_platform_fail_on_violations"
STRICT = "messaging_platform_strict"
#: The last violation each emulator's book had when a test was judged (per pytest session).
_JUDGED = pytest.StashKey["weakref.WeakKeyDictionary[ViolationBook, int]"]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("messaging_platform", "messaging platform emulator")
    settings = {
        FAIL_ON_VIOLATIONS: "fail a test during which the emulator recorded a departure from the API reference",
        STRICT: "the session's emulator refuses every departure from the API reference with 400",
    }
    for name, text in settings.items():
        group.addoption(f"--{name.replace('_', '-')}", action="store_true", default=None, dest=name, help=text)
        parser.addini(name, f"{text} (default false)", type="bool", default=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{ALLOW_VIOLATIONS}(reason): the test sends departures from the API reference to the messaging platform "
        "emulator on purpose; they do not fail it",
    )


def _setting(config: pytest.Config, name: str) -> bool:
    given = config.getoption(name, None)
    return bool(config.getini(name) if given is None else given)


class MessagingPlatform:
    """A running emulator as a test sees it.

    ``seed``: the seeded account (``account_id``, ``api_key``, ``api_secret``, ``api_key_id``, ``action_id``,
    ``callback_token``, and in ``resources`` the ids of its contact list, root filter group, short code channel,
    keyword and long code channel); the same after every reset. ``base_url``: the platform API's base
    (``http://127.0.0.1:PORT/api/v2.1``). ``url``: the server's root. ``control``: the server's ``EmulatorControl``.
    ``server``: the ``EmulatorServer``.
    ``violations``: the departures from the API reference recorded since the reset (``GET /_emulator/violations``).
    """

    def __init__(self, server: EmulatorServer) -> None:
        self.server = server
        self.seed: Seed = server.seed
        self.url = server.url
        self.base_url = server.base_url
        self.control: EmulatorControl = server.control

    @property
    def violations(self) -> list[dict[str, Any]]:
        """The violations recorded since the reset, oldest first: ``{seq, method, path, property, rule, detail,
        status}`` each."""
        return self.control.violations()

    def connection_json(self, **overrides: Any) -> str:
        """
        The Airflow connection to the seeded account as JSON (the form ``AIRFLOW_CONN_*`` variables take).
        Keyword arguments replace its fields (``password="wrong"``, ``login=None``); ``extra={...}`` is merged into
        its extras (``extra={"read_timeout": 5}``; a None value is sent as null).
        """
        extra: dict[str, Any] = {"base_url": self.base_url, "account_id": self.seed.account_id}
        extra.update(overrides.pop("extra", {}))
        conn: dict[str, Any] = {
            "conn_type": CONN_TYPE,
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
def messaging_platform_server(pytestconfig: pytest.Config) -> Iterator[EmulatorServer]:
    """The session's emulator on a free port (port 0: the OS picks it), stopped at the end of the session; strict
    when ``messaging_platform_strict`` says so."""
    with EmulatorServer(port=0, strict=_setting(pytestconfig, STRICT)) as server:
        yield server


@pytest.fixture
def messaging_platform(messaging_platform_server: EmulatorServer, monkeypatch: pytest.MonkeyPatch) -> MessagingPlatform:
    """The session's emulator reset to its seed, ``messaging_platform_default`` pointing at it for this test."""
    return reset_messaging_platform(messaging_platform_server, monkeypatch)


@pytest.fixture(scope="session")
def airflow_api_server() -> Iterator[AirflowApiServer]:
    """One Airflow API server for the session on AIRFLOW_HOME and its metadata database, sharing this process's
    Fernet key; stopped at the end of the session, or by a start that fails."""
    from airflow.configuration import get_airflow_home

    with serving_airflow_api(AirflowApiServer(get_airflow_home())) as server:
        yield server


@pytest.fixture
def airflow_api(airflow_api_server: AirflowApiServer, monkeypatch: pytest.MonkeyPatch) -> AirflowApiServer:
    """The session's Airflow API server, ``airflow_api_default`` pointing at it for this test."""
    monkeypatch.setenv(AIRFLOW_API_CONN_ENV, airflow_api_server.connection_uri)
    return airflow_api_server


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Generator[None, None, None]:
    """After a test's teardown (its fixtures' included): with ``messaging_platform_fail_on_violations``, fail it when
    the session's emulator recorded violations since the test before, unless it allows them."""
    server = (getattr(item, "funcargs", None) or {}).get("messaging_platform_server")
    yield
    if isinstance(server, EmulatorServer):
        _judge(item, server.emulator.violations)


def _judge(item: pytest.Item, book: ViolationBook) -> None:
    judged = item.config.stash.setdefault(_JUDGED, weakref.WeakKeyDictionary())
    found = book.recorded_after(judged.get(book, 0))  # a reset during the test does not hide them
    if not found:
        return
    judged[book] = found[-1].seq
    if not _setting(item.config, FAIL_ON_VIOLATIONS) or item.get_closest_marker(ALLOW_VIOLATIONS) is not None:
        return
    lines = "\n".join(f"  {violation}" for violation in found)
    pytest.fail(
        f"the messaging platform emulator recorded {len(found)} departure(s) from the API reference during this "
        f"test ({FAIL_ON_VIOLATIONS} is on):\n{lines}\nFix the request, or mark a test that sends them on purpose "
        f"with @pytest.mark.{ALLOW_VIOLATIONS}.",
        pytrace=False,
    )
