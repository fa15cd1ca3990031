"""
``dag.test()`` runs each task against an execution API served in the same process. Airflow 3.3 builds that API once
per process (``functools.lru_cache`` on ``airflow.sdk.execution_time.supervisor.in_process_api_server``); 3.0 to 3.2
build it again for every task and leave the old one's event-loop thread running. Building it means generating its
routes for every API version: about 10 s of CPU on 3.2 (nine versions), so that a DAG of ten tasks took over a minute
of CPU there, and the suite on 3.2 three times as long as on 3.3.

``build_once_per_process()`` gives the older versions 3.3's behaviour. It changes nothing on 3.3. The suite calls it
where it prepares the metadata database for ``dag.test()`` (``tests/conftest.py``), and so does the demo's runner
(``scripts/dags_test.py``). Nothing of the provider depends on it: it only stops Airflow from doing the same work
again.
"""

from __future__ import annotations

import functools


def build_once_per_process() -> None:
    from airflow.sdk.execution_time import supervisor

    if not hasattr(supervisor.in_process_api_server, "cache_info"):  # 3.3 caches it already
        supervisor.in_process_api_server = functools.lru_cache(maxsize=1)(supervisor.in_process_api_server)
