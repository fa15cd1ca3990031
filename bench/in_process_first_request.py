"""
The triggerer's side of the first execution-API request, run as a child process of ``bench/first_request.py``
(or on its own, with an ``AIRFLOW_HOME`` and a database URL in the environment).

The triggerer's supervisor does not call the API server: it builds Airflow's ``InProcessExecutionAPI`` the first
time a trigger asks it for something (a connection, a variable) and sends its requests through that, in its own
process and in the same thread that heartbeats the triggerer's job. This prints, as one JSON line, how long each
step of that takes in a fresh interpreter: importing the execution API, building the app and its transport, the
first request and the second one; then the same two requests through a second instance, to show that the cost
belongs to each app rather than to the process.

    .venv/bin/python bench/in_process_first_request.py
"""

from __future__ import annotations

import json
import time


def first_and_second(api: object) -> tuple[float, float, float, float, int]:
    """
    Seconds to build ``api``'s transport, to answer its first ``GET /health`` (and the CPU seconds of this process
    meanwhile: the request is served on a thread of it), to answer the second one; the status.
    """
    import httpx

    started = time.monotonic()
    transport = api.transport  # type: ignore[attr-defined]
    built, cpu_before = time.monotonic(), time.process_time()
    with httpx.Client(transport=transport, base_url="http://in-process.invalid./") as client:
        client.get("/health")
        first, cpu = time.monotonic(), time.process_time() - cpu_before
        status = client.get("/health").status_code
        second = time.monotonic()
    return built - started, first - built, cpu, second - first, status


def main() -> int:
    started = time.monotonic()
    from airflow.api_fastapi.execution_api.app import InProcessExecutionAPI

    imported = time.monotonic() - started
    build, first, cpu, second, status = first_and_second(InProcessExecutionAPI())
    build_again, first_again, _cpu, _second, _status = first_and_second(InProcessExecutionAPI())
    figures = {
        "import_s": imported,
        "build_s": build,
        "first_request_s": first,
        "first_request_cpu_s": cpu,
        "second_request_s": second,
        "status": status,
        "another_instance_build_s": build_again,
        "another_instance_first_request_s": first_again,
    }
    print(json.dumps(figures), flush=True)
    return 0 if status == 200 else 1


if __name__ == "__main__":
    raise SystemExit(main())
