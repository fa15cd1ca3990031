"""
What a DAG file pays when it imports the operators and sensors: the DAG processor parses every DAG file again and
again, so the import must stay light. Airflow's trigger machinery (``airflow.triggers``, about 30 ms) is the
triggerer's business: a DAG file reaches the triggers only when a task defers, in the worker.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys
from airflow.sdk import DAG, BaseOperator, BaseSensorOperator, PokeReturnValue  # what the DAG file has anyway

def triggers():
    return {m for m in sys.modules if m.startswith("airflow.triggers")}

airflows_own = triggers()  # Airflow 3.1's deadline support loads some of them itself
import messaging_platform_provider
import messaging_platform_provider.hooks
import messaging_platform_provider.operators
import messaging_platform_provider.sensors as sensors
for name in sensors.__all__:  # its lazy exports too, as `from ... import X` in a DAG file loads them
    getattr(sensors, name)
print(json.dumps(sorted(triggers() - airflows_own)))
"""


def test_importing_the_operators_and_sensors_loads_no_airflow_trigger_module():
    """In a fresh interpreter, as the DAG processor's parsing process has it: none beyond what Airflow loads itself."""
    probe = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr[-2000:]
    assert json.loads(probe.stdout.splitlines()[-1]) == []
