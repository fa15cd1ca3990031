"""The suite's dag.test() runs build Airflow's in-process execution API once per process, on every Airflow 3."""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("dag_runs")
def test_the_in_process_execution_api_is_built_once_per_process(dag_runs):
    from airflow.sdk.execution_time import supervisor

    first = supervisor.in_process_api_server()
    assert supervisor.in_process_api_server() is first  # 3.0-3.2 built a new one for every task (~10 s of CPU on 3.2)
