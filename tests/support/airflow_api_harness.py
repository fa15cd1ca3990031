"""
A real Airflow API server on loopback, for the tests, the demo and the scripts (never for production; not part of
the shipped packages: scripts put the repository root on ``sys.path`` to import it).

The launcher, the Fernet key shared with the server and putting a connection through the REST API are the emulator
package's (``messaging_platform_emulator.airflow_api``, which the pytest plugin users load builds its fixtures on):
one implementation for users and for the suite. What is here needs the provider or serves only the suite and the
scripts: ``api()`` (the provider's REST client), the rotation example's connections, XCom, the secret scans. The
suite's pytest fixtures are in ``tests/support/airflow_api_server.py``.
"""

from __future__ import annotations

import base64
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from messaging_platform_emulator.airflow_api import (
    AIRFLOW_API_CONN_ENV,
    AIRFLOW_API_CONN_ID as AIRFLOW_API_CONN_ID,
    AirflowApiServer as Launcher,
)
from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.prefixes import CONTROL_PREFIX
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.hooks.names import CONN_TYPE
from messaging_platform_provider.rotation.airflow_api import AirflowRestApi

#: The id of the connection the rotation example DAG and the rotation tests rotate.
ROTATED_CONN_ID = "messaging_platform_rotated"


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


class AirflowApiServer(Launcher):
    """The emulator package's launcher, plus ``api()``: the provider's REST client on the server, for the tests."""

    def api(self) -> AirflowRestApi:
        return AirflowRestApi(self.url)

    @classmethod
    def running_at(cls, home: str | os.PathLike[str], url: str) -> AirflowApiServer:
        """A server on ``home`` that another process started at ``url`` and stops (``stop()`` leaves it running)."""
        server = cls(home)
        server.url = url.rstrip("/")
        server.port = urlsplit(server.url).port or 80
        return server


def prepare_rotated_connection(
    server: Launcher,
    manager: MessagingPlatformClient,
    *,
    conn_id: str = ROTATED_CONN_ID,
    label: str = "Workload key",
) -> dict[str, Any]:
    """
    Make a key with ``manager`` and put it in the database connection ``conn_id`` (through ``server``'s REST API,
    with the manager's base URL and account): the credential a rotation will replace. Returns the key's id and label.
    """
    key = manager.create_api_key(label)
    server.put_connection(
        conn_id,
        CONN_TYPE,
        login=key["Key"],
        password=key["Secret"],
        extra={"base_url": manager.base_url, "account_id": manager.account_id},
    )
    return {"Id": key["Id"], "Label": key["Label"]}


def manager_from_uri(uri: str) -> MessagingPlatformClient:
    """A client from a connection URI as the emulator writes it (``messagingplatform://KEY:SECRET@/?__extra__=``)."""
    parts = urlsplit(uri)
    extras = uri_extras(uri)
    return MessagingPlatformClient(
        extras["base_url"],
        unquote(parts.username or ""),
        unquote(parts.password or ""),
        account_id=int(extras["account_id"]) if "account_id" in extras else None,
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
        env[AIRFLOW_API_CONN_ENV] = server.connection_uri
        with manager_from_uri(manager_uri) as manager:
            prepare_rotated_connection(server, manager)
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
