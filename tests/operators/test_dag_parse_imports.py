"""
What a DAG file pays when it imports the operators and sensors: the DAG processor parses every DAG file again and
again, so the import must stay light. Airflow's trigger machinery (``airflow.triggers``, about 30 ms) and our
triggers are the triggerer's business, and the HTTP clients the worker's: a DAG file reaches them only when a task
runs or defers.

Each test starts a fresh interpreter, as the DAG processor's parsing process is one, imports ``airflow.sdk`` (what
Airflow itself loads for a DAG file; Airflow 3.1 loads some ``airflow.triggers`` modules there, for its deadline
support), then the operators and sensors, and looks only at the modules that this second step added.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
from airflow.sdk import DAG, BaseOperator, BaseSensorOperator, PokeReturnValue  # what the DAG file has anyway
airflows_own = set(sys.modules)
import messaging_platform_provider.operators
import messaging_platform_provider.sensors as sensors
for name in sensors.__all__:  # every sensor class, as `from ... import X` in a DAG file loads it
    getattr(sensors, name)
print(json.dumps(sorted(set(sys.modules) - airflows_own)))
"""

#: Our modules that talk to the platform or wait in the triggerer: only a running or deferring task imports them.
RUN_TIME_ONLY = (
    "messaging_platform_provider.triggers",
    "messaging_platform_provider.hooks.messaging_platform",  # the sync hook and ``requests``
    "messaging_platform_provider.hooks.messaging_platform_async",  # the async hook and ``httpx``
    "messaging_platform_provider.client.client",
    "messaging_platform_provider.client.async_client",
)


@pytest.fixture(scope="module")
def added() -> list[str]:
    """The modules importing the operators and sensors added, probed once: starting Airflow costs 3 s of CPU."""
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-2000:]
    modules: list[str] = json.loads(probe.stdout.splitlines()[-1])
    assert "messaging_platform_provider.operators.schedules" in modules  # the probe saw the operators' own modules
    return modules


def within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_importing_the_operators_and_sensors_adds_no_airflow_triggers_module_and_none_of_our_run_time_modules(added):
    assert [m for m in added if within(m, "airflow.triggers")] == []
    assert [m for m in added if any(within(m, package) for package in RUN_TIME_ONLY)] == []


def test_importing_the_operators_and_sensors_adds_no_third_party_module(added):
    """Neither ``requests`` nor ``httpx`` nor any other: only the standard library's, Airflow's and ours."""
    ours = {"airflow", "messaging_platform_provider", *sys.stdlib_module_names}
    assert [m for m in added if m.split(".")[0] not in ours] == []
