"""
A real Airflow API server on loopback for tests (never for production), and what a test needs around it.

A DAG that rotates an API key (``MessagingPlatformRotateApiKeyOperator``) writes the rotated connection through
Airflow's REST API, reached through the connection ``airflow_api_default``. ``AirflowApiServer`` runs
``airflow api-server --apps core`` in its own process group, on the caller's AIRFLOW_HOME and so on its metadata
database: what the server writes, ``dag.test()`` in the test's process reads. The simple auth manager runs in
all-admins mode, so ``GET /auth/token`` hands out a token without credentials. ``serving_airflow_api`` starts a
server with this process's Fernet key (``share_fernet_key``) and stops it on the way out; ``put_connection`` creates
or replaces a connection in the metadata database through ``/api/v2/connections``. The pytest plugin's fixtures
``airflow_api_server`` and ``airflow_api`` are built on them.

Airflow is imported inside the functions that need it (only the Fernet key does), the HTTP calls use ``requests``.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import requests

__all__ = [
    "AIRFLOW_API_CONN_ENV",
    "AIRFLOW_API_CONN_ID",
    "AirflowApiCallError",
    "AirflowApiServer",
    "free_port",
    "put_connection",
    "restore_fernet_key",
    "serving_airflow_api",
    "share_fernet_key",
]

#: The connection the rotation operator reaches Airflow's REST API through, and the variable that sets it.
AIRFLOW_API_CONN_ID = "airflow_api_default"
AIRFLOW_API_CONN_ENV = f"AIRFLOW_CONN_{AIRFLOW_API_CONN_ID.upper()}"
FERNET_KEY_ENV = "AIRFLOW__CORE__FERNET_KEY"
#: How long ``requests`` waits for the server (connect, read), in seconds.
TIMEOUT = (5.0, 30.0)
#: An ``AirflowApiServer`` or a subclass of it (``start()`` and ``serving_airflow_api`` answer the same class).
Server = TypeVar("Server", bound="AirflowApiServer")


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


class AirflowApiServer:
    """
    ``airflow api-server`` on ``host``:``port`` (a free port), with ``home`` as its AIRFLOW_HOME; its output goes to
    ``home/api-server.log``. ``env``: its environment (this process's by default), without any ``AIRFLOW_CONN_*``
    variable; add to ``server.env`` before ``start()``.
    """

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

    def start(self: Server, ready_timeout: float = 90.0) -> Server:
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
                with _loopback() as http:
                    if http.get(f"{self.url}/api/v2/monitor/health", timeout=2).ok:
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

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self: Server) -> Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the REST API ----------------------------------------------------------------------------------------

    def put_connection(self, connection_id: str, conn_type: str, **fields: Any) -> dict[str, Any]:
        """
        Create the connection in the metadata database, or replace the given fields of the one there: ``login``,
        ``password``, ``host``, ``port``, ``schema``, ``description``, ``extra`` (a dict, or JSON text). Answers the
        connection as the API shows it (the password redacted).
        """
        return put_connection(self.url, {"connection_id": connection_id, "conn_type": conn_type, **fields})

    def get_connection(self, connection_id: str) -> dict[str, Any]:
        """The connection as the REST API shows it (``login``, ``extra`` ...; the password comes back as ``***``)."""
        found: dict[str, Any] = _call("GET", self.url, _connection_path(connection_id), _token(self.url)).json()
        return found


def _killpg(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:  # the group is gone already
        pass


# -- connections through the REST API, with plain requests --------------------------------------------------------


class AirflowApiCallError(RuntimeError):
    """A call to the server's REST API answered an error; ``status`` is its HTTP status."""

    def __init__(self, method: str, path: str, status: int, detail: str) -> None:
        self.status = status
        super().__init__(f"Airflow API {method} {path} answered {status}: {detail[:300]}")


def _connection_path(connection_id: str) -> str:
    return f"/api/v2/connections/{quote(connection_id, safe='')}"


def _token(url: str) -> str:
    """A token from ``GET /auth/token``: the simple auth manager in all-admins mode gives one to anybody."""
    token = _call("GET", url, "/auth/token", None).json().get("access_token")
    if not token:
        raise AirflowApiCallError("GET", "/auth/token", 200, "no access_token in the answer")
    return str(token)


def _loopback() -> requests.Session:
    """A session that ignores proxy settings (``HTTP_PROXY`` ...): the server is on this machine."""
    session = requests.Session()
    session.trust_env = False
    return session


def _call(method: str, url: str, path: str, token: str | None, **kwargs: Any) -> requests.Response:
    headers = {"Accept": "application/json"} | ({"Authorization": f"Bearer {token}"} if token else {})
    with _loopback() as http:
        response = http.request(method, url.rstrip("/") + path, headers=headers, timeout=TIMEOUT, **kwargs)
    if response.status_code >= 400:
        # The detail only: a validation error repeats the request body, the password included.
        try:
            data = response.json()
        except ValueError:
            data = None
        detail = data.get("detail", response.reason) if isinstance(data, Mapping) else response.reason
        if isinstance(detail, list):  # where and what of each, never the "input" they repeat
            detail = "; ".join(
                ".".join(str(p) for p in item.get("loc", []) if p != "body") + f": {item.get('msg', '')}"
                for item in detail
                if isinstance(item, Mapping)
            )
        raise AirflowApiCallError(method, path, response.status_code, str(detail))
    return response


def put_connection(url: str, connection: Mapping[str, Any]) -> dict[str, Any]:
    """
    Create ``connection`` (``connection_id``, ``conn_type`` and any other field of ``/api/v2/connections``; ``extra``
    a dict or JSON text) in the metadata database of the API server at ``url``, or, when it exists (409), replace
    the fields given (``PATCH`` with an ``update_mask``). The server must be in all-admins mode, as
    ``AirflowApiServer`` starts it. Answers the connection as the API shows it (the password redacted).
    """
    body = dict(connection)
    if isinstance(body.get("extra"), Mapping):
        body["extra"] = json.dumps(body["extra"])
    token = _token(url)
    try:
        created: dict[str, Any] = _call("POST", url, "/api/v2/connections", token, json=body).json()
        return created
    except AirflowApiCallError as exc:
        if exc.status != 409:
            raise
    mask = [("update_mask", name) for name in body if name != "connection_id"]
    path = _connection_path(str(body["connection_id"]))
    replaced: dict[str, Any] = _call("PATCH", url, path, token, params=mask, json=body).json()
    return replaced


# -- one Fernet key for the test process and the server ----------------------------------------------------------


def share_fernet_key() -> str | None:
    """
    Give this process and the processes it starts one Fernet key, through ``AIRFLOW__CORE__FERNET_KEY``: the key
    this process's Airflow configuration has, or a new one when it has none.

    A test process that loaded Airflow's configuration before ``airflow db migrate`` wrote ``airflow.cfg`` (and its
    generated key) runs without one; the API server would then encrypt connection passwords with a key that
    ``dag.test()`` here cannot decrypt. Returns the previous value of the variable, for ``restore_fernet_key``.
    """
    previous = os.environ.get(FERNET_KEY_ENV)
    if not previous:
        from airflow.configuration import conf
        from cryptography.fernet import Fernet

        configured = conf.get("core", "fernet_key", fallback="") or ""
        os.environ[FERNET_KEY_ENV] = configured or Fernet.generate_key().decode()
        _forget_fernet()
    return previous


def restore_fernet_key(previous: str | None) -> None:
    """Put ``AIRFLOW__CORE__FERNET_KEY`` back to what ``share_fernet_key`` found."""
    if previous is None:
        os.environ.pop(FERNET_KEY_ENV, None)
    else:
        os.environ[FERNET_KEY_ENV] = previous
    _forget_fernet()


def _forget_fernet() -> None:
    """Make Airflow build its Fernet again from the environment (a cached function from 3.2, a global before)."""
    from airflow.models import crypto

    if hasattr(crypto.get_fernet, "cache_clear"):
        crypto.get_fernet.cache_clear()
    else:
        crypto._fernet = None  # type: ignore[attr-defined]


@contextmanager
def serving_airflow_api(server: Server, *, ready_timeout: float = 90.0) -> Iterator[Server]:
    """
    Within: ``server`` started with this process's Fernet key (``share_fernet_key``). On the way out, whatever ends
    the block (a failure, an interrupt), the server is stopped and the variable put back; a start that fails stops
    its server before raising. For a fixture of your own::

        @pytest.fixture(scope="session")
        def airflow_api_server():
            server = AirflowApiServer(os.environ["AIRFLOW_HOME"])
            server.env["MY_PLUGIN_SETTING"] = "on"
            with serving_airflow_api(server) as started:
                yield started
    """
    previous = share_fernet_key()
    try:
        server.env[FERNET_KEY_ENV] = os.environ[FERNET_KEY_ENV]
        server.start(ready_timeout)
        yield server
    finally:
        server.stop()
        restore_fernet_key(previous)
