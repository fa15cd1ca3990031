"""
A real Airflow API server on loopback, for the tests, the demo and the scripts (never for production; not part of
the shipped packages: scripts put the repository root on ``sys.path`` to import it).

It runs ``airflow api-server`` in its own process group with the caller's AIRFLOW_HOME, so it shares the SQLite
metadata database with ``dag.test()`` or ``airflow dags test``; the simple auth manager runs in all-admins mode, so
``GET /auth/token`` hands out a token without credentials. The pytest fixtures are in
``tests/support/airflow_api_server.py``.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

import requests

from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.prefixes import CONTROL_PREFIX
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi

#: The ids the rotation example DAG and the rotation tests use.
ROTATED_CONN_ID = "messaging_platform_rotated"
AIRFLOW_API_CONN_ID = "airflow_api_default"


#: Runs the ``airflow`` CLI (``python -c AIRFLOW_CLI <args>``) with Airflow's structlog output filtered at
#: ``[logging] logging_level``. Airflow 3.1+ configures structlog that way when imported; 3.0 leaves it unconfigured
#: outside the task process, so ``airflow dags test`` prints debug lines, among them the in-process supervisor's
#: "Sending request msg=MaskSecret(value=...)" with the secret in clear. A no-op where Airflow configured structlog.
AIRFLOW_CLI = """
import logging, structlog
from airflow.configuration import conf
if not structlog.is_configured():
    level = logging.getLevelName(conf.get("logging", "logging_level").upper())
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level))
from airflow.__main__ import main
main()
"""


def airflow_cli(python: str = sys.executable) -> list[str]:
    """The command that runs the ``airflow`` CLI (``[*airflow_cli(), "dags", "test", dag_id]``), see AIRFLOW_CLI."""
    return [python, "-c", AIRFLOW_CLI]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class AirflowApiServer:
    """``airflow api-server`` on ``host``:``port`` (a free port by default); output goes to ``log_path``."""

    def __init__(
        self, home: str | os.PathLike[str], *, env: Mapping[str, str] | None = None, host: str = "127.0.0.1"
    ) -> None:
        self.home = Path(home)
        self.host = host
        self.port = free_port(host)
        self.url = f"http://{host}:{self.port}"
        self.log_path = self.home / "api-server.log"
        base = dict(os.environ if env is None else env)
        self.env = {k: v for k, v in base.items() if not k.startswith("AIRFLOW_CONN_")}
        self.env.update(
            {
                "AIRFLOW_HOME": str(self.home),
                "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
                "AIRFLOW__API__WORKERS": "1",
            }
        )
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def connection_uri(self) -> str:
        """The value of ``AIRFLOW_CONN_AIRFLOW_API_DEFAULT`` for this server (no login: all-admins mode)."""
        return self.url

    def start(self, ready_timeout: float = 90.0) -> AirflowApiServer:
        """
        Start the server and wait until its health check answers (``ready_timeout`` s at most). A start that fails
        after the process exists (the wait timed out or was interrupted, the server exited) stops what it started
        before raising: no caller is left with a server it cannot reach.
        """
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                # The REST API, the UI and plugins ("core"); tasks here run in-process, not through "execution".
                [
                    sys.executable,
                    "-m",
                    "airflow",
                    "api-server",
                    "--apps",
                    "core",
                    "--host",
                    self.host,
                    "--port",
                    str(self.port),
                ],
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() ends the server and its workers only
            )
        try:
            self._wait_ready(ready_timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                _killpg(self.proc.pid, signal.SIGKILL)  # any worker that outlived it, at once (the group id is free)
                raise RuntimeError(f"the Airflow API server exited:\n{self.log_tail()}")
            try:
                if requests.get(f"{self.url}/api/v2/monitor/health", timeout=2).ok:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the Airflow API server did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def stop(self) -> None:
        """SIGTERM the server's process group, SIGKILL it when it lingers, and SIGKILL what outlived the leader."""
        if self.proc is None or self.proc.returncode is not None:
            return  # never started, or stopped (and waited for) already: its group id may be another's by now
        pgid = self.proc.pid  # the process group start_new_session made, led by our own child
        if self.proc.poll() is None:
            _killpg(pgid, signal.SIGTERM)
            # uvicorn shuts down in a fraction of a second; the CLI process then lingers for seconds before exiting.
            deadline = time.monotonic() + 20
            while self.proc.poll() is None and time.monotonic() < deadline:
                if "Finished server process" in self.log_tail(5):
                    time.sleep(0.3)
                    break
                time.sleep(0.1)
        _killpg(pgid, signal.SIGKILL)  # the leader if it lingers, and workers that outlived it (just now)
        self.proc.wait(timeout=10)

    def __enter__(self) -> AirflowApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def api(self) -> AirflowRestApi:
        return AirflowRestApi(self.url)


def _killpg(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:  # the group is gone already
        pass


def put_connection(api: AirflowRestApi, connection: Mapping[str, Any]) -> None:
    """Create the connection in the metadata database, or replace its fields if it exists."""
    try:
        api.create_connection(connection)
    except AirflowApiError as exc:
        if exc.status != 409:
            raise
        fields = {k: v for k, v in connection.items() if k not in ("connection_id", "conn_type")}
        api.update_connection(connection["connection_id"], fields, conn_type=connection["conn_type"])


def prepare_rotated_connection(
    api: AirflowRestApi,
    manager: MessagingPlatformClient,
    *,
    conn_id: str = ROTATED_CONN_ID,
    label: str = "Workload key",
) -> dict[str, Any]:
    """
    Make a key with ``manager`` and put it in the database connection ``conn_id`` (through the REST API, with the
    manager's base URL and account): the credential a rotation will replace. Returns the key's id and label.
    """
    key = manager.create_api_key(label)
    put_connection(
        api,
        {
            "connection_id": conn_id,
            "conn_type": "messaging_platform",
            "login": key["Key"],
            "password": key["Secret"],
            "extra": json.dumps({"base_url": manager.base_url, "account_id": manager.account_id}),
        },
    )
    return {"Id": key["Id"], "Label": key["Label"]}


def share_fernet_key() -> str | None:
    """
    Give this process and the processes it starts one Fernet key, through ``AIRFLOW__CORE__FERNET_KEY``.

    The test process loaded Airflow's configuration before ``airflow db migrate`` wrote ``airflow.cfg`` (and its
    generated key), so it runs without one; the API server would encrypt connection passwords with a key that
    ``dag.test()`` here cannot decrypt. Returns the previous value of the variable, for ``restore_fernet_key``.
    """
    from cryptography.fernet import Fernet

    previous = os.environ.get("AIRFLOW__CORE__FERNET_KEY")
    if not previous:
        os.environ["AIRFLOW__CORE__FERNET_KEY"] = Fernet.generate_key().decode()
        _forget_fernet()
    return previous


def _forget_fernet() -> None:
    """Make Airflow build its Fernet again from the environment (a cached function from 3.2, a global before)."""
    from airflow.models import crypto

    if hasattr(crypto.get_fernet, "cache_clear"):
        crypto.get_fernet.cache_clear()
    else:
        crypto._fernet = None  # type: ignore[attr-defined]


def restore_fernet_key(previous: str | None) -> None:
    if previous is None:
        os.environ.pop("AIRFLOW__CORE__FERNET_KEY", None)
    else:
        os.environ["AIRFLOW__CORE__FERNET_KEY"] = previous
    _forget_fernet()


def manager_from_uri(uri: str) -> MessagingPlatformClient:
    """A client from a ``messaging-platform://KEY:SECRET@/?base_url=...&account_id=...`` connection URI."""
    parts = urlsplit(uri)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    return MessagingPlatformClient(
        query["base_url"],
        unquote(parts.username or ""),
        unquote(parts.password or ""),
        account_id=int(query["account_id"]) if "account_id" in query else None,
    )


def start_for_rotation_example(
    home: str | os.PathLike[str], env: dict[str, str], manager_uri: str, *, ready_timeout: float = 90.0
) -> AirflowApiServer:
    """
    For a script running the rotation example DAG (after ``airflow db migrate``): start an API server on ``home``,
    set ``AIRFLOW_CONN_AIRFLOW_API_DEFAULT`` in ``env``, and create the database connection
    ``messaging_platform_rotated`` holding a fresh key made with the ``manager_uri`` connection. Stop it after.
    Any failure on the way (the server not ready in ``ready_timeout`` s, the platform unreachable) stops the server
    before it is raised.
    """
    server = AirflowApiServer(home, env=env).start(ready_timeout)
    try:
        env[f"AIRFLOW_CONN_{AIRFLOW_API_CONN_ID.upper()}"] = server.connection_uri
        with manager_from_uri(manager_uri) as manager:
            prepare_rotated_connection(server.api(), manager)
    except BaseException:
        server.stop()
        raise
    return server


def xcom_value(api: AirflowRestApi, dag_id: str, run_id: str, task_id: str, key: str = "return_value") -> Any:
    """
    A task's XCom as the REST API serves it: the value as stored, without ``deserialize=true``, which Airflow 3.0
    refuses (HTTP 400) unless ``[api] enable_xcom_deserialize_support`` is on. The values read here are plain
    JSON, stored as such on every version; other types would come back in Airflow's serialized form.
    """
    path = f"/api/v2/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}/xcomEntries/{key}"
    return api.get(path)["value"]


def wire_secrets(control: EmulatorControl | str) -> set[str]:
    """
    Every secret that went over the wire to the emulator (HTTP Basic passwords of the recorded requests); ``control``
    is the emulator's control client, or its control URL (``.../_emulator``).
    """
    if isinstance(control, str):
        with EmulatorControl(control.removesuffix("/").removesuffix(CONTROL_PREFIX)) as client:
            return wire_secrets(client)
    found = set()
    for record in control.requests():
        auth = {k.lower(): v for k, v in (record.get("headers") or {}).items()}.get("authorization", "")
        if auth.startswith("Basic "):
            found.add(base64.b64decode(auth[6:]).decode().split(":", 1)[1])
    return {s for s in found if s}


def files_containing(root: Path, secrets: set[str]) -> list[str]:
    """Files under ``root`` (logs, the SQLite database, server output) holding any of ``secrets`` in clear."""
    needles = [s.encode() for s in secrets]
    return [str(p) for p in root.rglob("*") if p.is_file() and any(n in p.read_bytes() for n in needles)]
