"""
The CeleryExecutor deployment of the system test (``make system-test EXECUTOR=celery``), as a deployment that has
outgrown one machine runs Airflow: Debian's ``redis-server`` as the Celery broker; the Celery result backend in a
PostgreSQL database of its own; beside the scheduler and the DAG processor, two API servers (each with the
callback receiver), two triggerers and two ``airflow celery worker`` processes. The platform's callbacks reach the
API servers through a load balancer (``system_balancer.py``) that sends each to the next in turn.

Each worker has an AIRFLOW_HOME of its own and no URL of Airflow's metadata database, as a worker on another
machine: it reaches Airflow through an API server's execution API (worker 1 through API server 1, worker 2 through
API server 2). Each component gets only the settings its role needs: the callback tokens only the API servers, the
callback store's URL the API servers, the triggerers and the workers.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import redis
import requests
from celery import Celery

from tests.integration.system.system_balancer import CallbackBalancer
from tests.integration.system.system_processes import Component, free_port, wait_for
from tests.support.postgres_server import PostgresServer

#: `make system-test EXECUTOR=celery` sets it; unset (or ``local``): the LocalExecutor deployment
EXECUTOR_VARIABLE = "MESSAGING_PLATFORM_SYSTEM_EXECUTOR"
#: The scenarios (by number) that need this deployment's separate workers: rows "not run" against the LocalExecutor one.
CELERY_ONLY = frozenset({"8"})
WORKERS = 2
#: Two task processes per worker: four at once in all, as the LocalExecutor deployment's parallelism.
WORKER_CONCURRENCY = 2
#: Seconds without a heartbeat after which the scheduler fails a task's try and retries it (Airflow's default is 300
#: s): a killed worker's task is taken up again this much later (scenario 8). Generous for the first execution API
#: requests after a start, which take tens of seconds on a busy machine.
HEARTBEAT_TIMEOUT = 90
STORE_URL = "MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL"
TOKENS = "MESSAGING_PLATFORM_CALLBACK_TOKENS"
#: What a worker takes from the deployment's settings. Not the metadata database's URL, the Fernet key, the key
#: that signs the execution API's tokens, the API server's secret key or the callback tokens: a worker on another
#: machine needs none of them.
WORKER_SETTINGS = (
    "AIRFLOW__CORE__DAGS_FOLDER",
    "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST",  # a task's bundle is found by its name
    "AIRFLOW__CORE__LOAD_EXAMPLES",
    "AIRFLOW__CORE__DEFAULT_TASK_RETRIES",
    "AIRFLOW__CORE__DEFAULT_TASK_RETRY_DELAY",
    "AIRFLOW__LOGGING__COLORED_CONSOLE_LOG",
    STORE_URL,  # the keyword example's claim step and the callback sensor read the store
)

MakeComponent = Callable[[str, list[str], Mapping[str, str]], Component]


def chosen_executor() -> str:
    executor = os.environ.get(EXECUTOR_VARIABLE, "local") or "local"
    if executor not in ("local", "celery"):
        raise ValueError(f"{EXECUTOR_VARIABLE}={executor!r}: 'local' or 'celery'")
    return executor


def runs_on_chosen_executor(scenario_name: str) -> bool:
    return chosen_executor() == "celery" or scenario_name.split(" ", 1)[0] not in CELERY_ONLY


class RedisServer:
    """Debian's ``redis-server`` on a free loopback port, its data in ``folder``; RDB files written uncompressed."""

    def __init__(self, folder: Path, log: Path) -> None:
        self.folder = folder
        self.log = log
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}"
        self.process: Component | None = None

    def start(self, env: Mapping[str, str]) -> None:
        binary = shutil.which("redis-server")
        assert binary is not None, "no redis-server: `make system-test EXECUTOR=celery` installs Debian's package"
        self.folder.mkdir(parents=True, exist_ok=True)
        argv = [binary, "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.folder)]
        # No snapshot on a timer and none at shutdown; uncompressed, so that the secret scan reads the dump as is.
        argv += ["--save", "", "--appendonly", "no", "--rdbcompression", "no", "--daemonize", "no"]
        self.process = Component("redis", argv, env, self.log, self.folder).start()
        wait_for("Redis", self._answers, timeout=30)

    def _answers(self) -> bool:
        assert self.process is not None and self.process.running(), "redis-server exited:\n" + (
            self.process.log_tail() if self.process is not None else ""
        )
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()

    def dump(self) -> bytes:
        """Everything Redis holds now, as the RDB file ``SAVE`` writes."""
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=60)
        try:
            client.save()
        finally:
            client.close()
        return (self.folder / "dump.rdb").read_bytes()

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace=10)


class CeleryParts:
    """What the CeleryExecutor deployment adds: ``start`` after PostgreSQL, ``stop`` after the Airflow components."""

    def __init__(self, run_dir: Path, logs: Path, first_api_port: int) -> None:
        self.redis = RedisServer(run_dir / "redis", logs / "redis.log")
        self.worker_homes = [run_dir / f"worker-{n}" for n in range(1, WORKERS + 1)]
        self.api_ports = [first_api_port, free_port()]
        self.balancer = CallbackBalancer([f"http://127.0.0.1:{port}" for port in self.api_ports])
        self.results_url = ""

    def start(self, pg: PostgresServer, env: Mapping[str, str]) -> None:
        # A database of its own: what the workers reach of PostgreSQL is the task results, not Airflow's metadata.
        self.results_url = pg.create_database()
        self.redis.start(env)
        self.balancer.start()

    def settings(self) -> dict[str, str]:
        """The executor's settings, the same in every component that has them."""
        return {
            "AIRFLOW__CORE__EXECUTOR": "CeleryExecutor",
            "AIRFLOW__CELERY__BROKER_URL": f"{self.redis.url}/0",
            # The scheduler reads each task's Celery state where the workers write it: the same URL on both.
            "AIRFLOW__CELERY__RESULT_BACKEND": f"db+{self.results_url}",
            "AIRFLOW__CELERY__WORKER_CONCURRENCY": str(WORKER_CONCURRENCY),
            # Sending a task to Redis may take longer than the default 1 s on a busy 2-core machine.
            "AIRFLOW__CELERY__OPERATION_TIMEOUT": "10",
            "AIRFLOW__SCHEDULER__TASK_INSTANCE_HEARTBEAT_TIMEOUT": str(HEARTBEAT_TIMEOUT),
        }

    def components(self, env: Mapping[str, str], make: MakeComponent) -> dict[str, Component]:
        """Every Airflow component of this deployment, made (not started) by ``make(name, args, env)``."""
        ports = self.api_ports
        urls = self.balancer.server_urls
        scheduling = {k: v for k, v in env.items() if k not in (STORE_URL, TOKENS)}
        made: dict[str, Component] = {}
        for n, (port, url) in enumerate(zip(ports, urls, strict=True), start=1):
            args = ["api-server", "--host", "127.0.0.1", "--port", str(port)]
            made[f"api-server-{n}"] = make(f"api-server-{n}", args, {**env, "AIRFLOW__API__BASE_URL": url})
        made["scheduler"] = make("scheduler", ["scheduler", "--skip-serve-logs"], scheduling)
        made["dag-processor"] = make("dag-processor", ["dag-processor"], scheduling)
        for n, url in enumerate(urls, start=1):
            triggering = {
                **scheduling,
                STORE_URL: env[STORE_URL],
                "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{url}/execution/",
            }
            made[f"triggerer-{n}"] = make(f"triggerer-{n}", ["triggerer", "--skip-serve-logs"], triggering)
        for n, url in enumerate(urls, start=1):
            args = ["celery", "worker", "--celery-hostname", f"worker-{n}@%h", "--skip-serve-logs"]
            made[f"worker-{n}"] = make(f"worker-{n}", args, self.worker_env(env, n, url))
        return made

    def worker_env(self, env: Mapping[str, str], n: int, api_url: str) -> dict[str, str]:
        home = self.worker_homes[n - 1]
        home.mkdir(parents=True, exist_ok=True)
        worker = {k: v for k, v in env.items() if not k.startswith(("AIRFLOW", "_AIRFLOW", "MESSAGING_PLATFORM"))}
        worker.update({k: env[k] for k in WORKER_SETTINGS})
        worker.update(self.settings())
        worker["AIRFLOW_HOME"] = str(home)
        worker["AIRFLOW__CORE__EXECUTION_API_SERVER_URL"] = f"{api_url}/execution/"
        return worker

    def ready(self) -> bool:
        """The second API server answers, and both workers answer a Celery ping through the broker."""
        health = requests.get(f"{self.balancer.server_urls[1]}/api/v2/monitor/health", timeout=10)
        if health.status_code != 200:
            return False
        app = Celery("system-test-ping", broker=f"{self.redis.url}/0")
        try:
            replies = app.control.ping(timeout=2.0)
        finally:
            app.close()
        answered = {name.split("@", 1)[0] for reply in replies for name in reply}
        return answered == {f"worker-{n}" for n in range(1, WORKERS + 1)}

    def dumps(self, dump_database: Callable[[str, str], bytes]) -> dict[str, bytes]:
        """What the secret scan reads beside the LocalExecutor deployment's files and dumps."""
        return {
            "Celery result backend dump": dump_database(self.results_url, "celery-results"),
            "Redis dump": self.redis.dump(),
        }

    def stop(self) -> None:
        try:
            self.balancer.stop()
        finally:
            self.redis.stop()
