"""
The system test: scenarios against a real multi-process Airflow deployment (``make system-test``). Each scenario
of ``system_scenarios.SCENARIOS`` is one test and one row of the table printed at the end. Against the
LocalExecutor deployment the scenarios that need the CeleryExecutor one's separate workers
(``system_celery.CELERY_ONLY``) are rows "not run".
"""

from __future__ import annotations

import time

import pytest

import tests.integration.system.system_scenarios_callbacks  # noqa: F401 - registers scenario 6
import tests.integration.system.system_scenarios_kills  # noqa: F401 - registers scenario 7
import tests.integration.system.system_scenarios_logs  # noqa: F401 - registers scenarios 9, 10 and 11
import tests.integration.system.system_scenarios_platform  # noqa: F401 - registers scenarios 3, 4 and 5
import tests.integration.system.system_scenarios_workers  # noqa: F401 - registers scenario 8
from tests.integration.system.system_celery import runs_on_chosen_executor
from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_scenarios import Scenario, in_order, redact

pytestmark = [pytest.mark.system, pytest.mark.slow]


#: the scenarios of the chosen deployment; the others are rows "not run" of the table (conftest.py)
RUN = [s for s in in_order() if runs_on_chosen_executor(s.name)]


@pytest.mark.parametrize("scenario", RUN, ids=[s.name.split(" ", 1)[0] for s in RUN])
def test_scenario(scenario: Scenario, deployment: Deployment, results: list[tuple[str, str, str]]) -> None:
    started = time.monotonic()
    try:
        figures = scenario.run(deployment)
    except BaseException as exc:
        took = time.monotonic() - started
        why = redact(deployment, f"{type(exc).__name__}: {exc}".splitlines()[0])
        results.append((scenario.name, f"FAILED {took:.0f} s", why[:600]))
        raise
    results.append((scenario.name, f"passed {time.monotonic() - started:.0f} s", figures))
