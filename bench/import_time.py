"""
What importing the operators adds to a DAG file's parse, measured with ``python -X importtime``.

Runs a fresh interpreter N times; each imports ``airflow.sdk`` and then ``messaging_platform_provider.operators``.
From the import-time report it takes the cumulative time of each top-level import and prints the medians and the
ratio operators / airflow.sdk (target: the operators add under 50 ms).

    .venv/bin/python bench/import_time.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile


def cumulative_us(report: str, module: str) -> int:
    """The cumulative microseconds of ``module`` imported at top level (indent 0) in an importtime report."""
    for line in report.splitlines():
        if line.startswith("import time:") and line.rstrip().endswith(f"| {module}"):
            return int(line.split("|")[1])
    raise SystemExit(f"{module} not in the import-time report")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    env = {**os.environ, "AIRFLOW_HOME": tempfile.mkdtemp()}
    code = "import airflow.sdk; import messaging_platform_provider.operators"
    sdk, ours = [], []
    for _ in range(args.runs):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code], env=env, capture_output=True, text=True, check=True
        )
        sdk.append(cumulative_us(out.stderr, "airflow.sdk"))
        ours.append(cumulative_us(out.stderr, "messaging_platform_provider.operators"))
    sdk_ms, ours_ms = statistics.median(sdk) / 1000, statistics.median(ours) / 1000
    print(f"runs: {args.runs} fresh interpreters (median)")
    print(f"import airflow.sdk:                         {sdk_ms:8.1f} ms")
    print(f"then import messaging_platform_provider.operators: {ours_ms:8.1f} ms  (target < 50 ms)")
    print(f"ratio operators / airflow.sdk: {ours_ms / sdk_ms:.4f}")


if __name__ == "__main__":
    main()
