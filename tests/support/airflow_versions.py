"""
The one place the tests learn which Airflow they run on (3.0, 3.1, 3.2 or 3.3: ``make test-matrix``).

Tests use Airflow's public API where it has one. Where a test needs something that moved between versions, it
takes it from here; where a test needs a capability an older Airflow lacks, it is skipped with the marker below,
whose reason names that capability.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import airflow
import pytest
from packaging.version import Version

from messaging_platform_provider.triggers.callback import HAVE_SHARED_STREAMS

AIRFLOW_VERSION = Version(Version(airflow.__version__).base_version)
AIRFLOW_3_2_PLUS = AIRFLOW_VERSION >= Version("3.2")

needs_shared_streams = pytest.mark.skipif(
    not HAVE_SHARED_STREAMS,
    reason=f"Airflow {AIRFLOW_VERSION} has no shared streams for event triggers (airflow.triggers.shared_stream, "
    "3.3+): the watcher runs its standalone path, tested by the other trigger tests",
)

#: Airflow 3.0's ``dag.test()`` hands a rescheduled sensor its first poke time as text, so every poke after the
#: first reschedule that does not end the wait fails with a TypeError, for any sensor (apache/airflow#58777).
RESCHEDULE_UNDER_DAG_TEST = AIRFLOW_VERSION >= Version("3.1")
needs_reschedule_under_dag_test = pytest.mark.skipif(
    not RESCHEDULE_UNDER_DAG_TEST,
    reason=f"Airflow {AIRFLOW_VERSION}'s dag.test() cannot reschedule a sensor twice (first poke time comes back as "
    "text, apache/airflow#58777; works from 3.1): reschedule mode is tested on 3.1+",
)


def dag_bag(dag_folder: str) -> Any:
    """A ``DagBag`` of a folder (``airflow.dag_processing.dagbag`` from 3.2, ``airflow.models.dagbag`` before)."""
    if AIRFLOW_3_2_PLUS:
        from airflow.dag_processing.dagbag import DagBag
    else:
        from airflow.models.dagbag import DagBag  # type: ignore[no-redef]
    return DagBag(dag_folder=dag_folder)


def param_validation_error() -> type[Exception]:
    """What Airflow raises for a missing or invalid DAG param."""
    if AIRFLOW_3_2_PLUS:
        from airflow.sdk.exceptions import ParamValidationError
    else:
        from airflow.exceptions import ParamValidationError  # type: ignore[no-redef]
    return ParamValidationError


def serde() -> Any:
    """Airflow's serializer of trigger kwargs (``airflow.sdk.serde`` from 3.2, ``airflow.serialization.serde``)."""
    if AIRFLOW_3_2_PLUS:
        import airflow.sdk.serde as module
    else:
        import airflow.serialization.serde as module  # type: ignore[no-redef]
    return module


def hook_info(conn_type: str) -> Any:
    """What the task runtime knows of a connection type's hook (its own providers manager from 3.2)."""
    if AIRFLOW_3_2_PLUS:
        from airflow.sdk.providers_manager_runtime import ProvidersManagerTaskRuntime

        return ProvidersManagerTaskRuntime().hooks[conn_type]
    from airflow.providers_manager import ProvidersManager

    return ProvidersManager().hooks[conn_type]


def plugin_import_errors() -> dict[str, str]:
    """The plugins Airflow failed to load, by source (a function from 3.2, a module-level dict before)."""
    from airflow import plugins_manager

    if AIRFLOW_3_2_PLUS:
        return dict(plugins_manager.get_import_errors())
    return dict(plugins_manager.import_errors)  # type: ignore[attr-defined]


def secrets_masker() -> Any:
    """The Task SDK's secrets masker module (``redact``, ``SecretsMasker``): moved to ``_shared`` in 3.1."""
    if AIRFLOW_VERSION >= Version("3.1"):
        from airflow.sdk._shared.secrets_masker import secrets_masker as module
    else:
        from airflow.sdk.execution_time import secrets_masker as module  # type: ignore[no-redef]
    return module


def as_serialized(dag: Any) -> Any:
    """
    The DAG as Airflow's API server reads it, serialized and read back (``DagSerialization`` from 3.2,
    ``SerializedDAG`` before): what the UI's extra links come from.
    """
    import airflow.serialization.serialized_objects as serialized

    if AIRFLOW_3_2_PLUS:
        return serialized.DagSerialization.deserialize_dag(serialized.DagSerialization.serialize_dag(dag))
    return serialized.SerializedDAG.deserialize_dag(serialized.SerializedDAG.serialize_dag(dag))  # type: ignore[attr-defined]


def connection_from_uri(uri: str, conn_id: str) -> Any:
    """
    The connection the task runtime builds from an ``AIRFLOW_CONN_`` URI: the Task SDK's ``Connection.from_uri``
    (3.1+, which leaves the query's extra values strings). Airflow 3.0's SDK ``Connection`` has no ``from_uri``;
    its secrets backends build the core ``airflow.models.Connection(uri=...)`` instead (``airflow/secrets/
    base_secrets.py``), which in 3.0 leaves them strings too.
    """
    from airflow.sdk import Connection

    if hasattr(Connection, "from_uri"):
        return Connection.from_uri(uri, conn_id=conn_id)
    from airflow.models import Connection as CoreConnection

    return CoreConnection(conn_id=conn_id, uri=uri)


#: Airflow 3.0 leaves structlog unconfigured outside the task process, in ``dag.test()`` and ``airflow dags test``,
#: so it prints every level, debug included, whatever ``[logging] logging_level`` says; and there its ``mask_secret``
#: hands the secret to the in-process supervisor before registering it with the masker, and the supervisor logs
#: the message at debug ("Sending request msg=MaskSecret(value=...)"), in clear. 3.1 configures structlog at
#: ``logging_level`` and registers the secret first. Tests that scan output for secrets run Airflow 3.0 at that
#: level too (``airflow_logs_at_level``, ``airflow_command``).
AIRFLOW_PRINTS_DEBUG_LOGS = AIRFLOW_VERSION < Version("3.1")


@contextmanager
def airflow_logs_at_level() -> Iterator[None]:
    """Within, Airflow's structlog output (``dag.test()``) is filtered at ``[logging] logging_level``, as from 3.1."""
    if not AIRFLOW_PRINTS_DEBUG_LOGS:
        yield
        return
    import logging

    import structlog

    from messaging_platform_provider.version_compat import conf

    saved = structlog.get_config()
    level = logging.getLevelName(conf.get("logging", "logging_level").upper())
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level))
    try:
        yield
    finally:
        structlog.configure(**saved)


def providers_listing(what: str, home: Path) -> set[str]:
    """What ``airflow providers <what> --output plain`` lists (one class path a line), in Airflow home ``home``."""
    out = subprocess.run(
        [*airflow_command(), "providers", what, "--output", "plain"],
        env={**os.environ, "AIRFLOW_HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return {line.strip() for line in out.stdout.splitlines()}


def airflow_command(python: str = sys.executable) -> list[str]:
    """
    The ``airflow`` CLI run by ``python`` (``[*airflow_command(), "dags", "test", ...]``), its logs filtered at
    ``[logging] logging_level`` on Airflow 3.0 as well.
    """
    if AIRFLOW_PRINTS_DEBUG_LOGS:
        from tests.support.airflow_api_harness import airflow_cli

        return airflow_cli(python)
    return [python, "-m", "airflow"]
