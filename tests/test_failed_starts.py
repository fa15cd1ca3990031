"""
A start that fails once its process exists stops that process before it raises, so that no caller is left with a
server it cannot reach: the Airflow API server launcher (``messaging_platform_emulator.airflow_api``, which the
pytest plugin's ``airflow_api_server``, the suite's fixtures and ``make demo`` use), the emulator's ``spawn``
(``messaging_platform_emulator.process``) and the tests' PostgreSQL server (``tests/support/postgres_server.py``).
Each start fails for a reason that does not depend on the machine's speed: a readiness wait of 0 s, which no server
can meet.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_emulator import process as emulator_process
from messaging_platform_emulator.airflow_api import FERNET_KEY_ENV, AirflowApiServer, serving_airflow_api
from messaging_platform_emulator.connection import connection_uri
from tests.support.airflow_api_harness import start_for_rotation_example
from tests.support.postgres_server import PostgresServer

#: Set in the environment of the processes a test starts; its value is unique per test.
MARKER = "MP_FAILED_START_TEST"


def marked_env() -> tuple[dict[str, str], str]:
    value = secrets.token_hex(8)
    return {**os.environ, MARKER: value}, value


def live_processes(value: str) -> list[int]:
    """Processes still running (not zombies: their environment reads empty) whose environment holds the marker."""
    needle = f"{MARKER}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle in (entry / "environ").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:  # gone meanwhile
                continue
    return found


def gone(pid: int) -> bool:
    """No process has this pid: it ended and was waited for (a zombie still holds its pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_an_api_server_not_ready_in_time_is_stopped_with_its_process_group(tmp_path):
    env, value = marked_env()
    server = AirflowApiServer(tmp_path, env=env)
    with pytest.raises(RuntimeError, match="did not answer within 0 s"):
        server.start(ready_timeout=0)
    assert server.proc is not None and server.proc.returncode is not None  # the server process was waited for
    assert gone(server.proc.pid)
    with pytest.raises(ProcessLookupError):
        os.killpg(server.proc.pid, 0)  # its process group (start_new_session) is gone too
    assert live_processes(value) == []


def test_serving_an_api_server_that_fails_to_start_stops_it_and_puts_the_fernet_key_back(tmp_path, monkeypatch):
    """The plugin's ``airflow_api_server`` fixture starts its server so: a failed start leaves nothing behind."""
    monkeypatch.delenv(FERNET_KEY_ENV, raising=False)
    env, value = marked_env()
    server = AirflowApiServer(tmp_path, env=env)
    with pytest.raises(RuntimeError, match="did not answer within 0 s"):
        with serving_airflow_api(server, ready_timeout=0):
            pytest.fail("the block ran without a server")
    assert FERNET_KEY_ENV in server.env  # the server was given this process's key ...
    assert FERNET_KEY_ENV not in os.environ  # ... which is unset again, as it was
    assert server.proc is not None and gone(server.proc.pid)
    assert live_processes(value) == []


def test_a_failed_start_of_the_rotation_examples_api_server_leaves_no_server_running(tmp_path):
    """``make demo`` failed with "did not answer within 90 s" and left the API server running for an hour."""
    env, value = marked_env()
    unused = connection_uri("http://127.0.0.1:9/api/v2.1", "key", "secret", 1001)
    with pytest.raises(RuntimeError, match="did not answer within 0 s"):
        start_for_rotation_example(tmp_path, env, unused, ready_timeout=0)
    assert live_processes(value) == []


def test_an_emulator_that_does_not_serve_in_time_is_stopped_and_waited_for(tmp_path, monkeypatch):
    started: list[subprocess.Popen[Any]] = []

    class Recorded(subprocess.Popen):  # type: ignore[type-arg]
        """The real Popen, its processes kept for the test to look at."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self)

    monkeypatch.setattr(emulator_process.subprocess, "Popen", Recorded)
    env, value = marked_env()
    with pytest.raises(RuntimeError, match="the emulator did not start"):
        emulator_process.spawn(tmp_path, env=env, timeout=0)
    (proc,) = started
    assert proc.returncode is not None and gone(proc.pid)  # ended and waited for: not even a zombie left
    assert live_processes(value) == []


def test_a_postgres_server_not_ready_in_time_is_stopped_and_its_folder_removed(monkeypatch):
    server = PostgresServer(start_timeout=0)  # pg_ctl stops waiting at once: "server did not start in time"
    with pytest.raises(RuntimeError, match="pg_ctl failed"):
        server.start()
    assert server.processes() == []  # the postmaster (and any child of it) a start left running is ended
    assert not server.root.exists()
