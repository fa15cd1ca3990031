"""
Processes of the system test: each component in its own process group (stopped with SIGTERM, then SIGKILL), a
run marker in every environment so that stragglers can be found and ended, and a poll-with-deadline helper.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

import psutil

#: Set in the environment of every process the system test starts; its value is unique per run.
RUN_MARKER = "MP_SYSTEM_TEST_RUN"

T = TypeVar("T")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Budget:
    """The whole run's time budget: every wait ends by it, so a hanging run fails in time to stop cleanly."""

    ends_at = float("inf")

    @classmethod
    def start(cls, seconds: float) -> None:
        cls.ends_at = time.monotonic() + seconds


def wait_for(what: str, probe: Callable[[], T | None], timeout: float, interval: float = 0.5) -> T:
    """
    Call ``probe`` until it returns something other than ``None`` or ``False``; fail after ``timeout`` s, or when
    the run's budget is spent.
    """
    deadline = min(time.monotonic() + timeout, Budget.ends_at)
    last_error: Exception | None = None
    while True:
        try:
            value = probe()
            if value is not None and value is not False:
                return value
        except AssertionError:
            raise
        except Exception as exc:  # noqa: BLE001 - a probe of a starting service fails until it is up
            last_error = exc
        if time.monotonic() >= deadline:
            why = f" (last error: {type(last_error).__name__}: {str(last_error)[:200]})" if last_error else ""
            spent = " (the run's time budget is spent)" if deadline == Budget.ends_at else ""
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}{why}{spent}")
        time.sleep(interval)


class Component:
    """One long-running command, its output appended to ``log``, in a process group of its own."""

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str], log: Path, cwd: Path) -> None:
        self.name = name
        self.argv = list(argv)
        self.env = dict(env)
        self.log = log
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._terminated = 0  # the pid whose group was sent SIGTERM

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self) -> Component:
        if self.running():
            raise RuntimeError(f"{self.name} is already running")
        with self.log.open("ab") as out:
            out.write(f"\n===== start {self.starts + 1} of {self.name} =====\n".encode())
            out.flush()
            self.proc = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # own process group: its workers and children end with it
            )
        self.starts += 1
        return self

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the whole process group at once, as a crash of the machine's process would."""
        if self.proc is None:
            return
        _killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def crash(self) -> None:
        """
        SIGKILL the process and everything under it at once, also the children that run in process groups of their
        own (Airflow 3.3's supervisor runs each task so): the machine it runs on died.
        """
        if self.proc is None:
            return
        try:
            under = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            under = []
        _killpg(self.proc.pid, signal.SIGKILL)
        for child in under:
            try:
                child.kill()
            except psutil.NoSuchProcess:
                pass
        self.proc.wait(timeout=30)
        psutil.wait_procs(under, timeout=30)

    def terminate(self) -> None:
        """SIGTERM the process group, once: a second SIGTERM makes Airflow's components skip their clean-up."""
        if self.proc is not None and self.proc.poll() is None and self._terminated != self.proc.pid:
            self._terminated = self.proc.pid
            _killpg(self.proc.pid, signal.SIGTERM)

    def stop(self, grace: float = 15.0) -> None:
        """SIGTERM the process group, wait up to ``grace`` s for the leader, then SIGKILL whatever is left of it."""
        if self.proc is None:
            return
        self.terminate()
        try:
            self.proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        _killpg(self.proc.pid, signal.SIGKILL)  # children that outlived the leader
        self.proc.wait(timeout=30)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def _killpg(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def marked_pids(marker: str) -> list[int]:
    """Processes (other than this one) whose environment holds ``RUN_MARKER=marker``: those this run started."""
    needle = f"{RUN_MARKER}={marker}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if needle in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def end_marked(marker: str, timeout: float = 10.0) -> list[int]:
    """SIGTERM, then SIGKILL, every process left with this run's marker; returns the pids that were left."""
    left = marked_pids(marker)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in left:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and marked_pids(marker):
            time.sleep(0.2)
        if not marked_pids(marker):
            break
    return left
