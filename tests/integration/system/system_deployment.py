"""
A real multi-process Airflow deployment on loopback, for the system test.

PostgreSQL 15 (``tests/support/postgres_server.py``) holds Airflow's metadata database and the callback store;
the platform emulator runs as its own process; Airflow runs as ``airflow api-server``, ``scheduler`` (with the
LocalExecutor), ``dag-processor`` and ``triggerer``, each in its own process group, on free ports, with a fresh
AIRFLOW_HOME. Everything written goes to a fresh folder under ``build/``. The connections and the Variable the
example DAGs need are created through the REST API, as a user would. With ``MESSAGING_PLATFORM_SYSTEM_EXECUTOR=celery``
(``make system-test EXECUTOR=celery``) it is the CeleryExecutor deployment of ``system_celery.py`` instead.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import requests
from sqlalchemy import create_engine, text

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.process import spawn as spawn_emulator
from tests.integration.system.system_celery import CeleryParts, chosen_executor
from tests.integration.system.system_processes import RUN_MARKER, Component, end_marked, free_port, wait_for
from tests.integration.system.system_rest import AirflowRest
from tests.integration.system.system_user_setup import set_up_as_a_user
from tests.support.paths import EXAMPLE_DAGS, REPO
from tests.support.postgres_server import PG_BIN, PostgresServer

BIN = Path(sys.executable).parent
DAGS = EXAMPLE_DAGS
SYSTEM_DAGS = Path(__file__).resolve().parent / "dags"  # DAGs of the scenarios only, in a bundle of their own
EXAMPLE_DAG_IDS = sorted(p.stem for p in DAGS.glob("messaging_platform_*.py"))
SYSTEM_DAG_IDS = sorted(p.stem for p in SYSTEM_DAGS.glob("messaging_platform_*.py"))
AIRFLOW_COMPONENTS = ("api-server", "scheduler", "dag-processor", "triggerer")
RECEIVER_PATH = "/messaging-platform/callbacks"  # where the provider's plugin mounts the receiver
#: The triggerer's "async thread was blocked" warning threshold in this deployment (Airflow's default is 0.2 s).
BLOCKED_THRESHOLD_SECONDS = 1.0
STRAY_EXPORTS = Path("/tmp/messaging-platform-exports")  # the contacts export's default destination


def execution_api_answers(api_url: str) -> bool:
    return requests.get(f"{api_url}/execution/health", timeout=120).ok


class Deployment:
    """Start with ``start()``, always end with ``stop()`` (also after a failed start)."""

    def __init__(self) -> None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.run_dir = REPO / "build" / f"system-test-{stamp}-{os.getpid()}"
        self.home = self.run_dir / "airflow"
        self.logs = self.run_dir / "logs"
        for folder in (self.home, self.logs, self.run_dir / "emulator", self.run_dir / "exports"):
            folder.mkdir(parents=True, exist_ok=True)
        self.marker = f"{stamp}-{os.getpid()}-{secrets.token_hex(4)}"
        self.timings: dict[str, float] = {}
        self.pg: PostgresServer | None = None
        self.emulator: subprocess.Popen[bytes] | None = None
        self.components: dict[str, Component] = {}
        self.api_port = free_port()
        self.api_url = f"http://127.0.0.1:{self.api_port}"
        self.celery = CeleryParts(self.run_dir, self.logs, self.api_port) if chosen_executor() == "celery" else None
        self.homes = [self.home, *(self.celery.worker_homes if self.celery is not None else [])]  # each has its logs
        # What the callback records name: the API server, or the load balancer in front of the two.
        self.receiver_url = (self.api_url if self.celery is None else self.celery.balancer.url) + RECEIVER_PATH
        self.rest = AirflowRest(self.api_url)
        self.metadata_url = self.store_url = ""
        self.emulator_uri = ""  # holds the seeded secret: never printed
        self.control: EmulatorControl | None = None
        self.seed: dict[str, Any] = {}
        self.env: dict[str, str] = {}
        self.extra_secrets: set[str] = set()  # secrets made during setup (the key the rotation replaces)
        self._exports_folder_existed = STRAY_EXPORTS.is_dir()
        self._exports_before = {p.name for p in STRAY_EXPORTS.glob("*")} if self._exports_folder_existed else set()

    # -- start -----------------------------------------------------------------------------------------------

    @contextmanager
    def _timed(self, step: str) -> Iterator[None]:
        started = time.monotonic()
        yield
        self.timings[step] = time.monotonic() - started

    def start(self) -> Deployment:
        with self._timed("postgres"):
            self.pg = PostgresServer().start()
            self.metadata_url = self.pg.create_database()
            self.store_url = self.pg.create_database()
        if self.celery is not None:
            with self._timed("redis"):
                self.celery.start(self.pg, self._base_env())
        with self._timed("emulator"):
            self.emulator, self.emulator_uri = spawn_emulator(self.run_dir / "emulator", env=self._base_env())
            base_url = uri_extras(self.emulator_uri)["base_url"]
            # Generous: an event with ``wait`` answers once its callbacks are delivered, on a busy deployment.
            self.control = EmulatorControl(base_url.removesuffix("/api/v2.1"), timeout=60)
            self.seed = self.control.seed()
        self.env = self._airflow_env()
        with self._timed("db migrate"):
            migrate = self._component("db-migrate", ["db", "migrate"]).start()
            assert migrate.proc is not None
            try:
                code = wait_for("airflow db migrate", migrate.proc.poll, timeout=180)
            except BaseException:  # not in self.components: stop() would not stop it
                migrate.stop()
                raise
            assert code == 0, f"airflow db migrate failed:\n{migrate.log_tail()}"
        with self._timed("components up"):
            for name, component in self._airflow_components().items():
                self.components[name] = component.start()
            wait_for("the API server", self._api_healthy, timeout=90)
            wait_for("scheduler, triggerer and dag processor heartbeats", self._all_healthy, timeout=90)
            if self.celery is not None:
                wait_for("the second API server and both Celery workers", self.celery.ready, timeout=120)
        # Each API server's first execution API request builds that API (docs/deployment.md): made here, before
        # any task runs (no DAG is unpaused yet), rather than by a worker that gives up after a few seconds.
        with self._timed("execution API warm"):
            for url in [self.api_url] if self.celery is None else self.celery.balancer.server_urls:
                wait_for(f"{url}/execution/health", partial(execution_api_answers, url), timeout=300)
        with self._timed("DAGs parsed"):
            wait_for("every example DAG in /api/v2/dags", self._dags_parsed, timeout=90)
        with self._timed("setup via REST"):
            set_up_as_a_user(self)
        return self

    def _base_env(self) -> dict[str, str]:
        """This environment without any Airflow or provider setting (the pytest session sets its own)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "_AIRFLOW", "MESSAGING_PLATFORM"))}
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        env[RUN_MARKER] = self.marker
        return env

    def _airflow_env(self) -> dict[str, str]:
        env = self._base_env()
        env.update(
            {
                "AIRFLOW_HOME": str(self.home),
                "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
                "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST": json.dumps(
                    [
                        {
                            "name": name,
                            "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle",
                            "kwargs": {"path": str(path)},
                        }
                        for name, path in (("examples", DAGS), ("system", SYSTEM_DAGS))
                    ]
                ),
                "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
                "AIRFLOW__CORE__PARALLELISM": "4",  # 2 cores: a few tasks at once
                # As production deployments do: a failed task is tried again. Creates are retry-safe; scenario 1
                # (no faults) checks that nothing needed a second try, scenario 5 (faults) that retries suffice.
                "AIRFLOW__CORE__DEFAULT_TASK_RETRIES": "4",
                "AIRFLOW__CORE__DEFAULT_TASK_RETRY_DELAY": "2",
                "AIRFLOW__CORE__FERNET_KEY": base64.urlsafe_b64encode(os.urandom(32)).decode(),
                "AIRFLOW__CORE__SIMPLE_AUTH_MANAGER_ALL_ADMINS": "True",
                "AIRFLOW__CORE__EXECUTION_API_SERVER_URL": f"{self.api_url}/execution/",
                "AIRFLOW__API_AUTH__JWT_SECRET": secrets.token_urlsafe(64),  # 64 bytes or more for HS512
                "AIRFLOW__API__SECRET_KEY": secrets.token_urlsafe(32),
                "AIRFLOW__API__BASE_URL": self.api_url,
                "AIRFLOW__API__WORKERS": "1",
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN": self.metadata_url,
                # No async PostgreSQL driver (asyncpg, psycopg 3) is installed: without this Airflow derives a
                # postgresql+asyncpg URL and fails at import. Empty: no async engine (no route we call needs one).
                "AIRFLOW__DATABASE__SQL_ALCHEMY_CONN_ASYNC": "",
                "AIRFLOW__LOGGING__COLORED_CONSOLE_LOG": "False",
                "AIRFLOW__LOGGING__WORKER_LOG_SERVER_PORT": str(free_port()),
                "AIRFLOW__LOGGING__TRIGGER_LOG_SERVER_PORT": str(free_port()),
                "AIRFLOW__DAG_PROCESSOR__REFRESH_INTERVAL": "5",
                "AIRFLOW__DAG_PROCESSOR__MIN_FILE_PROCESS_INTERVAL": "120",
                "AIRFLOW__SCHEDULER__SCHEDULER_IDLE_SLEEP_TIME": "0.5",
                # A killed triggerer's triggers go to another triggerer once its heartbeat is this old: Airflow's
                # default, above what a triggerer's first execution API request takes here (docs/deployment.md).
                "AIRFLOW__TRIGGERER__JOB_HEARTBEAT_SEC": "2",
                "AIRFLOW__TRIGGERER__TRIGGERER_HEALTH_CHECK_THRESHOLD": "30",
                # The triggerer warns when its event loop was held this long (its watchdog sleeps 0.1 s, so this is
                # 0.1 s plus the lateness). Airflow's default, 0.2 s, is crossed by a loaded machine alone; a trigger
                # that blocks (a synchronous call, a sleep) holds it for seconds.
                "AIRFLOW__TRIGGERER__BLOCKED_MAIN_THREAD_WARNING_THRESHOLD": str(BLOCKED_THRESHOLD_SECONDS),
                # What docs/deployment.md advises for a triggerer that runs many triggers: its start-up heap frozen,
                # so that a full garbage collection does not pause the event loop (it is off by default).
                "AIRFLOW__MESSAGING_PLATFORM__FREEZE_TRIGGERER_HEAP": "True",
                "MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL": self.store_url,
                "MESSAGING_PLATFORM_CALLBACK_TOKENS": f"{self.seed['account_id']}:{self.seed['callback_token']}",
            }
        )
        env.update(self.celery.settings() if self.celery is not None else {"AIRFLOW__CORE__EXECUTOR": "LocalExecutor"})
        return env

    def _component(self, name: str, args: list[str], env: Mapping[str, str] | None = None) -> Component:
        # Airflow records the user a job runs as (`getpass.getuser()`, which reads LOGNAME first) as the job's
        # `unixname`, and names no process otherwise: with LOGNAME set to the component's name, /api/v2/jobs says
        # which component runs each job (scenario 2 kills the triggerer running a given job).
        env = {**(self.env if env is None else env), "LOGNAME": name}
        return Component(name, [str(BIN / "airflow"), *args], env, self.logs / f"{name}.log", self.run_dir)

    def component_of_job(self, job_id: int) -> str:
        """The name of the component that runs Airflow job ``job_id`` (its ``unixname``, see ``_component``)."""
        jobs = self.rest.get("/api/v2/jobs", order_by="-id", limit=100)["jobs"]
        name = next((job["unixname"] for job in jobs if job["id"] == job_id), None)
        assert name in self.components, f"job {job_id} runs as {name!r}, no component of this deployment"
        return str(name)

    def _airflow_components(self) -> dict[str, Component]:
        if self.celery is not None:
            return self.celery.components(self.env, self._component)
        return {name: self._airflow_component(name) for name in AIRFLOW_COMPONENTS}

    def _airflow_component(self, name: str) -> Component:
        args = {
            "api-server": ["api-server", "--host", "127.0.0.1", "--port", str(self.api_port)],
            "scheduler": ["scheduler", "--skip-serve-logs"],
            "dag-processor": ["dag-processor"],
            "triggerer": ["triggerer", "--skip-serve-logs"],
        }[name]
        return self._component(name, args)

    def _api_healthy(self) -> bool:
        for name, component in self.components.items():
            assert component.running(), f"{name} exited:\n{component.log_tail()}"
        return bool(self.health())

    def health(self) -> dict[str, Any]:
        health: dict[str, Any] = self.rest.get("/api/v2/monitor/health")
        return health

    def _all_healthy(self) -> bool:
        for name, component in self.components.items():
            assert component.running(), f"{name} exited:\n{component.log_tail()}"
        health = self.health()
        return all(health.get(k, {}).get("status") == "healthy" for k in ("scheduler", "triggerer", "dag_processor"))

    def _dags_parsed(self) -> bool:
        errors = self.rest.get("/api/v2/importErrors")["import_errors"]
        assert not errors, f"import errors: {[e.get('filename') for e in errors]}"
        found = {d["dag_id"] for d in self.rest.get("/api/v2/dags", limit=100)["dags"]}
        return set(EXAMPLE_DAG_IDS) | set(SYSTEM_DAG_IDS) <= found

    # -- what scenarios use ----------------------------------------------------------------------------------

    def kill_component(self, name: str) -> None:
        """SIGKILL the component's process group (no shutdown of any kind)."""
        self.components[name].kill()

    def start_component(self, name: str) -> None:
        self.components[name].start()

    def restart_component(self, name: str) -> None:
        """SIGTERM (then SIGKILL) the component's process group, and start it again."""
        self.components[name].stop()
        self.components[name].start()

    def triggerers(self) -> list[Component]:
        return [component for name, component in self.components.items() if name.startswith("triggerer")]

    def component_logs(self) -> list[Path]:
        return sorted(self.logs.glob("*.log"))

    def airflow_logs(self) -> list[Path]:
        """Every file under the ``logs`` folder of each AIRFLOW_HOME (the deployment's, and each worker's)."""
        return sorted(p for home in self.homes for p in (home / "logs").rglob("*") if p.is_file())

    def store_rows(self, sql: str, url: str = "", **params: Any) -> list[tuple[Any, ...]]:
        """Rows of a query on the callback store, or on the database at ``url`` (read-only use)."""
        engine = create_engine(url or self.store_url)
        try:
            with engine.connect() as conn:
                return [tuple(row) for row in conn.execute(text(sql), params)]
        finally:
            engine.dispose()

    def dump_database(self, url: str, name: str) -> bytes:
        """``pg_dump`` of one database, kept in ``dumps/`` of the run folder."""
        assert self.pg is not None
        command = [str(PG_BIN / "pg_dump"), "-h", "127.0.0.1", "-p", str(self.pg.port), "-U", "postgres"]
        command.append(url.rsplit("/", 1)[1])
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        out = subprocess.run(command, capture_output=True, timeout=120, cwd="/")
        assert out.returncode == 0, f"pg_dump {name} failed: {out.stderr[-500:]!r}"
        (self.run_dir / "dumps").mkdir(exist_ok=True)
        (self.run_dir / "dumps" / f"{name}.sql").write_bytes(out.stdout)
        return out.stdout

    # -- stop ------------------------------------------------------------------------------------------------

    def stop(self) -> list[str]:
        """Stop everything this deployment started, also after a failure; returns notes on what was forced."""
        notes: list[str] = []
        try:
            for component in self.components.values():  # SIGTERM to every group first: they shut down side by side
                component.terminate()
            for component in self.components.values():
                component.stop(grace=20)
        finally:
            try:
                if self.celery is not None:
                    self.celery.stop()  # after the workers and the scheduler, which talk to it
                if self.emulator is not None and self.emulator.poll() is None:
                    self.emulator.terminate()
                    try:
                        self.emulator.wait(timeout=15)
                    except subprocess.TimeoutExpired:
                        self.emulator.kill()
                        self.emulator.wait(timeout=10)
            finally:
                left = end_marked(self.marker)
                if left:
                    notes.append(f"ended {len(left)} leftover process(es) of this run: {left}")
                notes.extend(self._remove_stray_exports())
                if self.pg is not None:
                    if self.pg.log.exists():
                        shutil.copy(self.pg.log, self.logs / "postgres.log")
                    self.pg.stop()
        return notes

    def _remove_stray_exports(self) -> list[str]:
        """
        Unpausing the contacts export makes a scheduled run with the DAG's default destination, outside build/:
        remove the files of this deployment's scheduled runs that were not there before (and the folder if new).
        """
        made = [p for p in STRAY_EXPORTS.glob("contacts-scheduled__*") if p.name not in self._exports_before]
        for path in made:
            path.unlink(missing_ok=True)
        if not self._exports_folder_existed and STRAY_EXPORTS.is_dir() and not any(STRAY_EXPORTS.iterdir()):
            STRAY_EXPORTS.rmdir()
        if not made:
            return []
        return [f"removed {len(made)} file(s) of scheduled runs from {STRAY_EXPORTS} (the DAG's default destination)"]
