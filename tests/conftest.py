"""
Shared fixtures. Airflow reads AIRFLOW_HOME when first imported, so it is pointed at a throwaway folder here,
before any test module imports Airflow: the suite never touches a developer's own Airflow home.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tests.support.paths import EXAMPLE_DAGS, TEST_DAGS

# Each pytest process (each xdist worker too) has its own AIRFLOW_HOME, and with it its own metadata database.
_HOME = tempfile.mkdtemp(prefix="messaging-platform-tests-airflow-")
# The metadata database is migrated once per run, in a folder the run's xdist workers share: the controller (or the
# one process of a plain `pytest`) makes the folder, and its workers inherit the variable.
_DB_TEMPLATE_ENV = "MESSAGING_PLATFORM_TESTS_DB_TEMPLATE"
if "PYTEST_XDIST_WORKER" not in os.environ:
    os.environ[_DB_TEMPLATE_ENV] = tempfile.mkdtemp(prefix="messaging-platform-tests-db-")
_DB_TEMPLATE = Path(os.environ[_DB_TEMPLATE_ENV])
os.environ["AIRFLOW_HOME"] = _HOME
os.environ["AIRFLOW__CORE__DAGS_FOLDER"] = str(EXAMPLE_DAGS)
os.environ["AIRFLOW__CORE__LOAD_EXAMPLES"] = "False"
# Two bundles: the example DAGs, and the test DAGs under tests/integration/dags (dag.test() re-reads a DAG from its
# bundle).
os.environ["AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST"] = json.dumps(
    [
        {
            "name": name,
            "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle",
            "kwargs": {"path": str(path)},
        }
        for name, path in (("examples", EXAMPLE_DAGS), ("tests", TEST_DAGS))
    ]
)

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

from messaging_platform_emulator.server import EmulatorServer  # noqa: E402
from tests.support.home_scan import HomeScan  # noqa: E402
from tests.support.in_process_api import build_once_per_process  # noqa: E402

if TYPE_CHECKING:  # importing the plugin before pytest_plugins registers it makes pytest warn (no assert rewrite)
    from tests.support.platform import Platform

# Fixtures that tests in several folders use: the emulator and the Airflow API server, through the plugin the
# emulator ships for users' tests (``messaging_platform_server``, ``messaging_platform``, aliased below as
# ``emulator_server`` and ``platform``; ``airflow_api``), the suite's own ``airflow_api_server`` (registered after the
# plugin, it overrides the plugin's: one server per worker, with the callback receiver's settings) and
# ``rotation_example_connections``, the callback store and receivers (``database_url``, ``store``, ``receiver``,
# ``receiver_for``), and pytest's ``pytester`` (the plugin's own tests).
pytest_plugins = [
    "messaging_platform_emulator.pytest_plugin",
    "tests.support.airflow_api_server",
    "tests.support.callback_fixtures",
    "pytester",
]


# Hypothesis budgets. `default` (used by `make test`) keeps the suite's time in check; `long` is the soak that
# `make fuzz` runs (figures in docs/reliability.md). A property that wants more examples than another asks for a
# multiple of the profile's budget, so the soak scales it too.
settings.register_profile("default", max_examples=50, deadline=None, print_blob=True)
settings.register_profile("long", max_examples=1000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def airflow_db() -> None:
    """
    A migrated SQLite metadata database in the throwaway AIRFLOW_HOME, for dag.test(). The first worker that needs
    one runs ``airflow db migrate`` into the run's template (the others wait on the lock), and each copies it.
    """
    template = _DB_TEMPLATE / "airflow.db"
    with (_DB_TEMPLATE / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not template.exists():
            migrating = _DB_TEMPLATE / "migrating.db"
            env = {
                **os.environ,
                "AIRFLOW_HOME": str(_DB_TEMPLATE),
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": f"sqlite:///{migrating}",
            }
            out = subprocess.run(
                [sys.executable, "-m", "airflow", "db", "migrate"], env=env, capture_output=True, text=True, timeout=300
            )
            assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
            migrating.rename(template)  # only a finished migration becomes the template
    shutil.copyfile(template, Path(_HOME) / "airflow.db")


@pytest.fixture(scope="session")
def dag_runs(airflow_db: None) -> None:
    """For a test that runs DAGs in this process (``dag.test()``): the migrated metadata database."""
    build_once_per_process()


@pytest.fixture(scope="session")
def emulator_server(messaging_platform_server: EmulatorServer) -> EmulatorServer:
    """The one emulator of the session (of each xdist worker), the plugin's; ``platform`` and ``emu`` reset it."""
    return messaging_platform_server


@pytest.fixture
def closed_port() -> Iterator[int]:
    """
    A local TCP port where nobody listens, from the OS: bound but never listening, so a connection to it is refused,
    and held for the test so that nothing else takes it meanwhile.
    """
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]


@pytest.fixture
def home_scan(airflow_db: None) -> HomeScan:
    """What this test leaves in the shared AIRFLOW_HOME (files and database rows), for its secret scans."""
    return HomeScan.take(Path(_HOME))


@pytest.fixture
def platform(messaging_platform: Platform) -> Platform:
    """The session's emulator reset (``platform.control``: its control client), ``messaging_platform_default`` on it."""
    return messaging_platform


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under pytest-xdist, the slow tests first, so that the workers end on short tests together."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    shutil.rmtree(_HOME, ignore_errors=True)
    if "PYTEST_XDIST_WORKER" not in os.environ:
        shutil.rmtree(_DB_TEMPLATE, ignore_errors=True)
