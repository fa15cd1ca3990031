"""
What importing the operators adds to a DAG file's parse, measured with ``python -X importtime``.

Runs a fresh interpreter N times; each imports ``airflow.sdk`` and then ``messaging_platform_provider.operators``.
From the import-time report it takes the cumulative time of each top-level import and prints the medians and the
ratio operators / airflow.sdk (target: the operators add under 15 ms; exit status 1 when missed).

The modules are imported from compiled bytecode, as an installed provider's are (``pip`` compiles them when it
installs the wheel): one interpreter that is not measured first compiles them into a cache of this run's own
(``PYTHONPYCACHEPREFIX``), whatever the checkout's ``__pycache__`` folders hold and even with
``PYTHONDONTWRITEBYTECODE`` set. Without that, each run would also time compiling every source file edited since
its bytecode was written, which a DAG processor never pays.

    .venv/bin/python bench/import_time.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

#: What importing the operators may add after ``airflow.sdk``; the exit status is 1 at or above it.
TARGET_MS = 15


def cumulative_us(report: str, module: str) -> int:
    """The cumulative microseconds of ``module`` imported at top level (indent 0) in an importtime report."""
    for line in report.splitlines():
        if line.startswith("import time:") and line.rstrip().endswith(f"| {module}"):
            return int(line.split("|")[1])
    raise SystemExit(f"{module} not in the import-time report")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "AIRFLOW_HOME": home, "PYTHONPYCACHEPREFIX": os.path.join(home, "bytecode")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        return measure(args.runs, env)


def measure(runs: int, env: dict[str, str]) -> int:
    code = "import airflow.sdk; import messaging_platform_provider.operators"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)  # compiles the bytecode; not measured
    sdk, ours = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True, text=True, check=True
        )
        sdk.append(cumulative_us(out.stderr, "airflow.sdk"))
        ours.append(cumulative_us(out.stderr, "messaging_platform_provider.operators"))
    sdk_ms, ours_ms = statistics.median(sdk) / 1000, statistics.median(ours) / 1000
    print(f"runs: {runs} fresh interpreters (median)")
    print(f"import airflow.sdk:                         {sdk_ms:8.1f} ms")
    met = ours_ms < TARGET_MS
    print(f"then import messaging_platform_provider.operators: {ours_ms:8.1f} ms  (target < {TARGET_MS} ms)")
    print(f"ratio operators / airflow.sdk: {ours_ms / sdk_ms:.4f}")
    print("target met" if met else "target MISSED")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
