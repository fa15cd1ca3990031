"""
The tests in this folder are the ones users copy (docs/testing-your-dags.md): they use only the fixtures of the
emulator's pytest plugin, which tests/conftest.py enables as a user's conftest.py does
(``pytest_plugins = ["messaging_platform_emulator.pytest_plugin"]``).

What a user does once before running them, ``airflow db migrate``, the suite does here: each test gets the suite's
migrated metadata database in its throwaway AIRFLOW_HOME, whose ``[core] dags_folder`` is the example DAGs.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _migrated_metadata_database(dag_runs: None) -> None:
    """The suite's stand-in for the user's ``airflow db migrate``."""
