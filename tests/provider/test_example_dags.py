"""Every example DAG imports cleanly and runs to success against the emulator, with no secret leaking."""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import pytest

pytest_plugins = ["airflow_api_server"]  # the rotation example needs a real Airflow API server

REPO = Path(__file__).resolve().parents[2]
DAG_FILES = sorted((REPO / "dags").glob("messaging_platform_*.py"))


def load_dags():
    from airflow.dag_processing.dagbag import DagBag

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        return DagBag(dag_folder=str(REPO / "dags"))


def test_dag_files_import_without_errors_and_are_named_by_dag_id():
    bag = load_dags()
    assert bag.import_errors == {}
    assert DAG_FILES, "no example DAGs found"
    assert sorted(bag.dag_ids) == [p.stem for p in DAG_FILES]


@pytest.mark.parametrize("dag_file", DAG_FILES, ids=lambda p: p.stem)
def test_example_dag_runs_to_success(platform, airflow_db, capfd, dag_file, request):
    if dag_file.stem == "messaging_platform_api_key_rotation":
        request.getfixturevalue("rotation_example_connections")  # API server, airflow_api_default, the DB connection
    bag = load_dags()
    dag = bag.get_dag(dag_file.stem)
    run = dag.test()
    captured = capfd.readouterr()
    assert run.state == "success", captured.out[-3000:] + captured.err[-3000:]
    assert platform.requests(), "the DAG sent nothing to the emulator"
    assert platform.seed.api_secret not in captured.out + captured.err
    for ti in run.get_task_instances():
        assert ti.state in ("success", "skipped"), (ti.task_id, ti.state)
    # XCom, rendered fields and task logs all live under AIRFLOW_HOME (SQLite database and log folder).
    secret = platform.seed.api_secret.encode()
    leaks = [p for p in Path(os.environ["AIRFLOW_HOME"]).rglob("*") if p.is_file() and secret in p.read_bytes()]
    assert leaks == []
