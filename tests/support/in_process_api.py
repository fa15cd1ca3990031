"""Airflow 3.0-3.2 build dag.test()'s in-process execution API again for every task (minutes per DAG test); 3.3 once."""

from __future__ import annotations

import functools


def build_once_per_process() -> None:
    from airflow.sdk.execution_time import supervisor

    if not hasattr(supervisor.in_process_api_server, "cache_info"):  # 3.3 caches it already
        supervisor.in_process_api_server = functools.lru_cache(maxsize=1)(supervisor.in_process_api_server)
