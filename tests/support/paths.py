"""Where the tests find the repository's folders."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
#: The example DAGs (the ``examples`` bundle of the test Airflow).
EXAMPLE_DAGS = REPO / "dags"
#: The test DAGs (the ``tests`` bundle), run by the tests with ``dag.test()``.
TEST_DAGS = REPO / "tests" / "integration" / "dags"
SCRIPTS = REPO / "scripts"
