"""
The first execution-API request after a start: where its time goes (issue 39).

Starts PostgreSQL (``tests/support/postgres_server.py``), runs ``airflow db migrate``, then one ``airflow
api-server`` on a free loopback port, with the system test's API server settings that matter here (the JWT secret,
no async database URL, one worker process; no DAG bundles, no callback store), and measures:

- process start -> ``/api/v2/monitor/health`` answers;
- the first ``GET /execution/health`` against the second, and how long a ``/api/v2/monitor/health`` sent
  0.2 s into that first request waited (the API server's event loop is held while the first request is served);
- the first and second call that carries a task token (``GET /execution/variables/...``);
- the triggerer's side: a fresh interpreter building Airflow's in-process execution API and sending it two
  requests (``bench/in_process_first_request.py``), as a triggerer's supervisor does for its first trigger.

``--load N`` starts N processes that spin on the CPU for the whole run (stopped at the end), to mimic a busy
machine. ``--py-spy`` records the API server with py-spy (``--subprocesses``) during the first request and
prints which share of the samples was spent in Cadwyn's route generation; the raw stacks are kept in the run
folder under ``build/``. Prints figures; stops everything it started, also on failure.

    .venv/bin/python bench/first_request.py [--load 0] [--py-spy]
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import jwt
import psutil
import requests

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from tests.support.postgres_server import PostgresServer, free_port  # noqa: E402

BIN = Path(sys.executable).parent
AUDIENCE = "urn:airflow.apache.org:task"  # Airflow's default [execution_api] jwt_audience
SPIN = "while True:\n    pass\n"
#: Frames that mark the one-time work of the first request (Cadwyn builds every API version's routes then).
FIRST_REQUEST_FRAMES = ("_cadwyn_initialize", "generate_versioned_routers")


def airflow_env(home: Path, database_url: str, port: int, jwt_secret: str) -> dict[str, str]:
    """The API server's environment: as ``tests/integration/system/system_deployment.py`` sets it up."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "_AIRFLOW", "MESSAGING_PLATFORM"))}
    (home / "dags").mkdir(parents=True, exist_ok=True)
    env.update(
        {
            "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(home / "dags"),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
            "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"http://127.0.0.1:{port}/execution/",
            "AIRFLOW__API_AUTH__JWT_SECRET": jwt_secret,
            "AIRFLOW__API__SECRET_KEY": secrets.token_urlsafe(32),
            "AIRFLOW__API__BASE_URL": f"http://127.0.0.1:{port}",
            "AIRFLOW__API__WORKERS": "1",
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": database_url,
            "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC": "",  # no async driver installed: no async engine
            "AIRFLOW__LOGGING__COLORED_CONSOLE_LOG": "False",
        }
    )
    return env


def task_token(jwt_secret: str) -> str:
    """A short-lived execution token for a task instance that does not exist (the call is refused after auth)."""
    now = int(time.time())
    claims = {"sub": str(uuid.uuid4()), "aud": AUDIENCE, "iat": now, "nbf": now, "exp": now + 600}
    return jwt.encode({**claims, "scope": "execution"}, jwt_secret, algorithm="HS512")


def timed_get(url: str, **kwargs: object) -> tuple[float, int]:
    started = time.monotonic()
    status = requests.get(url, timeout=600, **kwargs).status_code  # type: ignore[arg-type]
    return time.monotonic() - started, status


def wait_healthy(base: str, proc: subprocess.Popen[bytes], timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"airflow api-server exited with {proc.returncode} before answering")
        try:
            if requests.get(f"{base}/api/v2/monitor/health", timeout=5).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"airflow api-server did not answer /api/v2/monitor/health within {timeout:.0f} s")


def stop_group(proc: subprocess.Popen[bytes] | None, grace: float = 20) -> None:
    """SIGTERM to the process group of ``proc`` (started with ``start_new_session``), then SIGKILL."""
    if proc is None:
        return
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # whatever of the group outlived its leader
    except ProcessLookupError:
        pass


def start_py_spy(pid: int, out: Path) -> subprocess.Popen[bytes] | None:
    """py-spy recording ``pid`` and its children; ``None`` (and why) when it is missing or may not attach."""
    py_spy = shutil.which("py-spy", path=str(BIN)) or shutil.which("py-spy")
    if py_spy is None:
        print("py-spy: not installed (pip install -c requirements/constraints.txt py-spy)")
        return None
    argv = [py_spy, "record", "--pid", str(pid), "--subprocesses", "--rate", "100", "--format", "raw", "-o", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    time.sleep(2)  # attaching takes a moment; a refusal (no ptrace permission) ends it at once
    if proc.poll() is not None:
        error = proc.stderr.read().decode(errors="replace")[-300:] if proc.stderr else ""
        print(f"py-spy: could not record (exit {proc.returncode}): {error.strip()}")
        return None
    return proc


def stop_py_spy(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def summarise_stacks(raw: Path, top: int = 8) -> None:
    """Share of the recorded samples spent in the first request's one-time work, and the heaviest calls in it."""
    if not raw.exists():
        print(f"py-spy: no stacks written to {raw}")
        return
    total = in_first = 0
    calls: Counter[str] = Counter()
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        total += int(count)
        frames = stack.split(";")
        marks = [i for i, frame in enumerate(frames) if frame.startswith(FIRST_REQUEST_FRAMES)]
        if marks:
            in_first += int(count)
            for frame in set(frames[marks[0] + 1 :]):
                calls[frame.replace(str(REPO / ".venv"), "")] += int(count)
    share = in_first / total if total else 0.0
    print(f"py-spy: {total} samples at 100 Hz while busy; {in_first} ({share:.0%}) in Cadwyn's route generation")
    for frame, samples in calls.most_common(top):
        print(f"    {samples / in_first:4.0%}  {frame[:110]}")
    print(f"py-spy: raw stacks in {raw}")


def in_process_figures(env: dict[str, str]) -> dict[str, float]:
    """``bench/in_process_first_request.py`` in a fresh interpreter with the API server's settings."""
    script = Path(__file__).resolve().parent / "in_process_first_request.py"
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=900)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if out.returncode != 0 or not lines:
        raise RuntimeError(f"in-process probe failed ({out.returncode}): {out.stderr[-1500:]}")
    figures: dict[str, float] = json.loads(lines[-1])
    return figures


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of ``pid`` and its children (the API server's worker processes)."""
    root = psutil.Process(pid)
    total = 0.0
    for proc in (root, *root.children(recursive=True)):
        try:
            times = proc.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def measure_api_server(base: str, pid: int, token: str, spy: subprocess.Popen[bytes] | None) -> dict[str, float]:
    """The first and second execution-API requests, and a health check sent while the first one is served."""
    figures: dict[str, float] = {}
    cpu_before = cpu_seconds(pid)
    blocked: dict[str, float] = {}

    def health_meanwhile() -> None:
        time.sleep(0.2)
        blocked["health_during_first_s"], _status = timed_get(f"{base}/api/v2/monitor/health")

    checker = threading.Thread(target=health_meanwhile)
    checker.start()
    figures["first_execution_health_s"], status = timed_get(f"{base}/execution/health")
    checker.join()
    figures["first_execution_health_cpu_s"] = cpu_seconds(pid) - cpu_before
    if spy is not None:
        stop_py_spy(spy)
    assert status == 200, f"GET /execution/health answered {status}"
    figures["second_execution_health_s"], _status = timed_get(f"{base}/execution/health")
    figures.update(blocked)
    headers = {"Authorization": f"Bearer {token}"}
    url = f"{base}/execution/variables/first_request_bench_missing"
    figures["first_token_call_s"], first_status = timed_get(url, headers=headers)
    figures["second_token_call_s"], second_status = timed_get(url, headers=headers)
    figures["token_call_status"] = float(first_status)
    assert first_status != 401 and second_status != 401, "the task token was refused: check the JWT settings"
    return figures


def run(load: int, use_py_spy: bool) -> None:
    run_dir = REPO / "build" / f"first-request-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    run_dir.mkdir(parents=True)
    spinners: list[subprocess.Popen[bytes]] = []
    server: subprocess.Popen[bytes] | None = None
    spy: subprocess.Popen[bytes] | None = None
    pg = PostgresServer()
    try:
        pg.start()
        port, jwt_secret = free_port(), secrets.token_urlsafe(64)
        env = airflow_env(run_dir / "airflow", pg.create_database(), port, jwt_secret)
        started = time.monotonic()
        migrate = subprocess.run([str(BIN / "airflow"), "db", "migrate"], env=env, capture_output=True, timeout=600)
        if migrate.returncode != 0:
            raise RuntimeError(f"airflow db migrate failed: {migrate.stderr[-1500:]!r}")
        print(f"airflow db migrate: {time.monotonic() - started:.1f} s")
        for _ in range(load):
            spinners.append(subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True))
        base = f"http://127.0.0.1:{port}"
        argv = [str(BIN / "airflow"), "api-server", "--host", "127.0.0.1", "--port", str(port)]
        with (run_dir / "api-server.log").open("wb") as log:
            started = time.monotonic()
            server = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_healthy(base, server)
        print(f"api-server: start -> /api/v2/monitor/health answers: {time.monotonic() - started:.1f} s")
        if use_py_spy:
            spy = start_py_spy(server.pid, run_dir / "first-request.raw")
        figures = measure_api_server(base, server.pid, task_token(jwt_secret), spy)
        first, cpu = figures["first_execution_health_s"], figures["first_execution_health_cpu_s"]
        print(f"api-server: first  GET /execution/health: {first:.2f} s ({cpu:.2f} s of CPU in the API server)")
        print(f"api-server: second GET /execution/health: {figures['second_execution_health_s']:.3f} s")
        if "health_during_first_s" in figures:
            print(f"api-server: /api/v2/monitor/health sent 0.2 s into it: {figures['health_during_first_s']:.2f} s")
        status = int(figures["token_call_status"])
        print(f"api-server: first  call with a task token: {figures['first_token_call_s']:.3f} s (HTTP {status})")
        print(f"api-server: second call with a task token: {figures['second_token_call_s']:.3f} s")
        if spy is not None:
            summarise_stacks(run_dir / "first-request.raw")
        stop_group(server)
        server = None  # its CPU is the in-process probe's now
        inner = in_process_figures(env)
        print(
            f"in-process (triggerer): import {inner['import_s']:.2f} s, build {inner['build_s']:.2f} s, "
            f"first request {inner['first_request_s']:.2f} s ({inner['first_request_cpu_s']:.2f} s of CPU), "
            f"second {inner['second_request_s']:.3f} s"
        )
        print(
            f"in-process, a second instance in the same process: build {inner['another_instance_build_s']:.2f} s, "
            f"first request {inner['another_instance_first_request_s']:.2f} s"
        )
        print(f"logs: {run_dir}")
    finally:
        if spy is not None and spy.poll() is None:
            stop_py_spy(spy)
        stop_group(server)
        for spinner in spinners:
            stop_group(spinner, grace=5)
        pg.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--load", type=int, default=0, help="CPU-spinning processes to run beside the bench")
    parser.add_argument("--py-spy", action="store_true", help="record the API server during the first request")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; --load {args.load}")
    run(args.load, args.py_spy)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
