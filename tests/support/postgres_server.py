"""
A throwaway PostgreSQL server for the tests: Debian's PostgreSQL 15 (``/usr/lib/postgresql/15/bin``), its data
directory under ``build/`` in the repository, listening on a free loopback port, run as the ``postgres`` user when
we are root. ``make pytest`` installs Debian's ``postgresql`` package when it is missing and we are root.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from tests.support.paths import REPO

PG_BIN = Path(os.environ.get("MP_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
#: the database ``emptied_database()`` hands out, emptied for each test
EMPTIED = "emptied_for_each_test"
#: Set in the environment of every command a server runs (``pg_ctl``, so the postmaster and its children), to the
#: server's folder: what a failed start left running is found by it and ended.
MARKER = "MP_TEST_PG_SERVER"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """``start()`` initialises a cluster and starts it (``pg_ctl -w`` waits until it accepts connections)."""

    def __init__(self, *, fsync: bool = False, start_timeout: int = 60) -> None:
        """
        ``fsync=False`` (tests): faster, and a crash of the machine loses the cluster, which is thrown away.
        ``start_timeout``: seconds ``pg_ctl -w`` waits for the server to accept connections.
        """
        if not (PG_BIN / "pg_ctl").exists():
            raise RuntimeError(
                f"PostgreSQL 15 is not installed ({PG_BIN}); run `make pytest` as root, or apt-get install postgresql"
            )
        (REPO / "build").mkdir(exist_ok=True)
        self.root = Path(tempfile.mkdtemp(prefix="pg-tests-", dir=REPO / "build"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        self.started = False
        self._as_postgres = os.geteuid() == 0
        self.fsync = fsync
        self.start_timeout = start_timeout
        self._emptied_made = False

    def _run(self, *args: str, timeout: float = 120) -> None:
        command = [str(PG_BIN / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        env = {**os.environ, MARKER: str(self.root)}
        result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=self.root, env=env)
        if result.returncode != 0:
            log = self.log.read_text()[-2000:] if self.log.exists() else ""
            raise RuntimeError(f"{args[0]} failed: {result.stdout[-2000:]}{result.stderr[-2000:]}{log}")

    def _let_postgres_reach_the_root(self) -> None:
        """
        A clone may sit below a directory only root can enter (``mktemp -d`` makes them 0700): give the ancestors
        of ``build/`` search permission only (no listing). The modes are not put back: another test session in
        the same clone (the matrix runs two Airflow versions at once) may still have a server below them, and
        taking the permission away made its ``pg_ctl stop`` fail.
        """
        for parent in reversed(self.root.parents):
            mode = parent.stat().st_mode & 0o7777
            if not mode & 0o001:
                parent.chmod(mode | 0o001)

    def start(self) -> PostgresServer:
        """Initialise and start the cluster; a start that fails stops whatever of the server runs, then raises."""
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def _start(self) -> None:
        if self._as_postgres:
            self._let_postgres_reach_the_root()
            shutil.chown(self.root, "postgres", "postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")
        for _attempt in range(5):  # another process may take the free port before the server binds it
            self.port = free_port()
            options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=200"
            options += "" if self.fsync else " -c fsync=off"
            wait = ("-w", "-t", str(self.start_timeout))
            try:
                self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, *wait, "start")
            except RuntimeError:
                self._end_server()  # a server still starting (pg_ctl stopped waiting) holds the data directory
                if _attempt == 4:
                    raise
                continue
            self.started = True
            return
        raise AssertionError("unreachable")

    def stop(self) -> None:
        """Stop the server (also one a failed start left behind) and remove its folder."""
        try:
            self._end_server()
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def _end_server(self) -> None:
        """``pg_ctl stop -m immediate``; then SIGKILL every process of this server left, and wait until none is."""
        self.started = False
        try:
            if (self.data / "postmaster.pid").exists():
                self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "-t", "60", "stop")
        finally:
            deadline = time.monotonic() + 30
            while left := self.processes():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"processes of the PostgreSQL server in {self.root} survived SIGKILL: {left}")
                for pid in left:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                time.sleep(0.05)

    def processes(self) -> list[int]:
        """The live processes this server's commands started (the postmaster and its children), by ``MARKER``."""
        needle = f"{MARKER}={self.root}".encode()
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid():
                try:
                    if needle in (entry / "environ").read_bytes().split(b"\0"):
                        found.append(int(entry.name))
                except OSError:  # gone meanwhile, or not ours to read
                    continue
        return found

    def admin_url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg2://postgres@127.0.0.1:{self.port}/{database}"

    def create_database(self) -> str:
        """A new empty database; its SQLAlchemy URL."""
        name = f"t_{uuid.uuid4().hex[:16]}"
        self._admin(f'CREATE DATABASE "{name}"')
        return self.admin_url(name)

    def emptied_database(self) -> str:
        """
        The server's test database with nothing in it, for a test that needs a fresh one; its SQLAlchemy URL. The
        database is made once; each call closes the connections to it the last test left open (as ``DROP DATABASE
        ... WITH (FORCE)`` would) and drops and re-creates its ``public`` schema with everything in it. A test
        sees the same empty database as from ``create_database()`` in a tenth of the time: ``CREATE DATABASE``
        copies a template and waits on a checkpoint (0.3-0.5 s each under load, 64 tests in the suite).
        """
        if not self._emptied_made:
            self._admin(f'CREATE DATABASE "{EMPTIED}"')
            self._emptied_made = True
        others = f"datname = '{EMPTIED}' AND pid <> pg_backend_pid()"
        self._admin(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE {others}")
        self._admin("DROP SCHEMA public CASCADE; CREATE SCHEMA public", database=EMPTIED)
        return self.admin_url(EMPTIED)

    def _admin(self, statement: str, database: str = "postgres") -> None:
        """Run ``statement`` outside a transaction (CREATE/DROP DATABASE) as the superuser, in ``database``."""
        import psycopg2

        conn = psycopg2.connect(host="127.0.0.1", port=self.port, user="postgres", dbname=database)
        try:
            conn.autocommit = True
            with conn.cursor() as cursor:
                cursor.execute(statement)
        finally:
            conn.close()
