"""
``airflow dags test`` for several DAGs, one after the other, in one process: Airflow's CLI parses and runs each
command as it would from a shell, but Airflow starts once (about 13 s of CPU per ``airflow dags test`` process,
most of it building the in-process execution API, go to the first DAG only).

    python scripts/dags_test.py PLAN RESULTS

``PLAN``: JSON ``{"dags": [{"dag_id": ..., "conf": {...} or null}, ...], "emulator": URL or null}``. ``RESULTS``:
a file this writes one JSON line to after each DAG, ``{"dag_id", "state" ("success" or "failed"), "seconds",
"last_request"}``; ``last_request`` is the emulator's sequence number of the last platform request it received by
then (with ``"emulator"`` given), so the caller can tell which requests each DAG made. Exit code 0 when every DAG
succeeded.
"""

from __future__ import annotations

import json
import logging
import sys
import time
import traceback
from pathlib import Path

import structlog
from airflow.configuration import conf, write_default_airflow_configuration_if_needed

from messaging_platform_emulator.control_client import EmulatorControl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository: tests/support
from tests.support.in_process_api import build_once_per_process  # noqa: E402

# Airflow 3.1+ configures structlog when imported; 3.0 leaves it unconfigured outside the task process, and
# `airflow dags test` would then print debug lines, a secret among them: filter at [logging] logging_level.
if not structlog.is_configured():
    level = logging.getLevelName(conf.get("logging", "logging_level").upper())
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level))


def dags_test(dag_id: str, run_conf: dict[str, object] | None) -> str:
    """One ``airflow dags test DAG_ID [--conf JSON]``, parsed and run by Airflow's CLI; its final state."""
    from airflow.cli import cli_parser

    argv = ["dags", "test", dag_id, *(["--conf", json.dumps(run_conf)] if run_conf is not None else [])]
    args = cli_parser.get_parser().parse_args(argv)
    try:
        args.func(args)
    except SystemExit as exc:  # the CLI's way of saying the DAG run failed
        return "success" if exc.code in (0, None) else "failed"
    except Exception:
        traceback.print_exc()
        return "failed"
    return "success"


def main(plan_path: str, results_path: str) -> int:
    write_default_airflow_configuration_if_needed()
    build_once_per_process()
    plan = json.loads(Path(plan_path).read_text())
    control = EmulatorControl(plan["emulator"]) if plan.get("emulator") else None
    last_request = 0
    states = []
    with open(results_path, "w") as results:
        for entry in plan["dags"]:
            print(f"=== airflow dags test {entry['dag_id']}", flush=True)
            started = time.monotonic()
            state = dags_test(entry["dag_id"], entry.get("conf"))
            seconds = round(time.monotonic() - started, 1)
            if control is not None:
                last_request = max((r["seq"] for r in control.requests(since=last_request)), default=last_request)
            line = {"dag_id": entry["dag_id"], "state": state, "seconds": seconds, "last_request": last_request}
            results.write(json.dumps(line) + "\n")
            results.flush()
            states.append(state)
    return 0 if states and all(state == "success" for state in states) else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
