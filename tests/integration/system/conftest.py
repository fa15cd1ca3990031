"""
Fixtures of the system test (``make system-test``): ``deployment`` starts the whole deployment once per session
and stops it at the end, also when a scenario fails, on Ctrl-C and on SIGTERM; ``results`` collects one table row
per scenario, printed at the end of the session.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

import tests.integration.system.system_scenarios_callbacks  # noqa: F401 - registers scenario 6
import tests.integration.system.system_scenarios_kills  # noqa: F401 - registers scenario 7
import tests.integration.system.system_scenarios_logs  # noqa: F401 - registers scenarios 9, 10 and 11
import tests.integration.system.system_scenarios_platform  # noqa: F401 - registers scenarios 3, 4 and 5
import tests.integration.system.system_scenarios_workers  # noqa: F401 - registers scenario 8
from tests.integration.system.system_celery import chosen_executor, runs_on_chosen_executor
from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_processes import Budget
from tests.integration.system.system_scenarios import in_order

ROWS = pytest.StashKey[list[tuple[str, str, str]]]()
NOTES = pytest.StashKey[list[str]]()
#: Seconds for starting the deployment and running every scenario; stopping takes well under a minute more, so
#: the run stays within the 10 minutes it is allowed.
RUN_BUDGET = 540.0
#: The CeleryExecutor deployment starts eight Airflow processes on the two cores, and its first tasks wait for the
#: API servers' first execution API requests (issue 39 saw them stall for 23-45 s).
CELERY_RUN_BUDGET = 780.0


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="session")
def deployment(request: pytest.FixtureRequest) -> Iterator[Deployment]:
    notes = request.config.stash.setdefault(NOTES, [])
    previous = signal.signal(signal.SIGTERM, _interrupt)  # a killed make: stop what we started, as on Ctrl-C
    Budget.start(CELERY_RUN_BUDGET if chosen_executor() == "celery" else RUN_BUDGET)
    d = Deployment()
    notes.append(f"run folder: {d.run_dir}; executor: {chosen_executor()}")
    try:
        d.start()
        notes.append("start: " + ", ".join(f"{step} {took:.0f} s" for step, took in d.timings.items()))
        yield d
    finally:
        try:
            notes.extend(d.stop())
            notes.append("stopped every process of the deployment")
        finally:
            signal.signal(signal.SIGTERM, previous)


@pytest.fixture(scope="session")
def results(request: pytest.FixtureRequest) -> list[tuple[str, str, str]]:
    return request.config.stash.setdefault(ROWS, [])


def not_run_because(scenario_name: str) -> str:
    if not runs_on_chosen_executor(scenario_name):
        return "needs the CeleryExecutor deployment's separate workers (make system-test EXECUTOR=celery)"
    return ""


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    rows = terminalreporter.config.stash.get(ROWS, [])
    notes = terminalreporter.config.stash.get(NOTES, [])
    if not rows and not notes:
        return  # no deployment was started (the system tests were deselected, as in `make test`)
    done = {row[0] for row in rows}
    rows = rows + [(s.name, "not run", not_run_because(s.name)) for s in in_order() if s.name not in done]
    header = ("scenario", "outcome", "figures")
    width = [max(len(row[i]) for row in [header, *rows]) for i in range(2)]
    terminalreporter.section("system test")
    for note in notes:
        terminalreporter.write_line(note)
    for row in [header, *rows]:
        terminalreporter.write_line(f"{row[0]:<{width[0]}}  {row[1]:<{width[1]}}  {row[2]}")
