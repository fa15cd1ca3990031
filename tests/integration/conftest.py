"""The README's main job, ``scripts/demo.py``, run once for the tests that read what it did."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import pytest

from tests.support.paths import SCRIPTS

#: The demo's emulator gets this API secret, so the tests know what must never show.
DEMO_SECRET = "demo-secret-that-must-not-leak-4f1c9a"


@dataclass(frozen=True)
class DemoRow:
    """One line of the demo's table: a DAG's final state, its number of platform calls, and the rest as printed."""

    state: str
    calls: int
    line: str


@dataclass(frozen=True)
class DemoRun:
    returncode: int
    text: str  # everything the demo printed
    rows: dict[str, DemoRow]  # by DAG id

    @property
    def tail(self) -> str:
        return self.text[-4000:]

    @property
    def scan_clean(self) -> bool:
        """Whether the demo's secret scan (DAG output, task logs, metadata database) found nothing."""
        return "(DAG output, task logs, metadata database): clean" in self.text


@pytest.fixture(scope="session")
def demo_run() -> DemoRun:
    """
    ``scripts/demo.py`` in its own process, as ``make demo`` runs it: every example DAG through ``airflow dags test``.
    The tests that use it are in ``xdist_group("demo")``, so it runs once.
    """
    env = {**os.environ, "MESSAGING_PLATFORM_EMULATOR_API_SECRET": DEMO_SECRET}
    env.pop("AIRFLOW_HOME")  # the demo makes its own
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "demo.py")], env=env, capture_output=True, text=True, timeout=600
    )
    text = out.stdout + out.stderr
    rows = {}
    for line in text.splitlines():
        # DAG id, state, duration ("12.3 s"), calls, created, deleted, params
        words = line.split()
        if len(words) >= 5 and words[1] in ("success", "failed") and words[3] == "s" and words[4].isdigit():
            rows[words[0]] = DemoRow(state=words[1], calls=int(words[4]), line=line)
    return DemoRun(out.returncode, text, rows)
