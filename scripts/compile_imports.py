"""
Compile to bytecode the installed modules that the suite's processes import, by importing them once.

`make` runs this after installing the venv, beside mypy. The suite starts some twenty Python processes (three
pytest workers at once, Airflow's API servers and CLI, the demo), and without `.pyc` files each would compile Airflow
and its libraries again, side by side. Compiling the whole venv instead (`uv pip install --compile-bytecode`) costs
twice the CPU: two thirds of the installed code (pip, mypy's sources, Sphinx, Playwright, most of Airflow's own
modules) is never imported by `make test`, or by one process only, which then compiles it as it imports it.

This is only a head start: a module left out here, or one that fails to import, is compiled by the first process
that imports it (`make` lets processes write bytecode, see the Makefile); nothing depends on the list.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
import tempfile
import warnings

#: What every pytest worker, Airflow process and the demo import, and what Airflow loads on demand in each of them.
MODULES = (
    "airflow",
    "airflow.sdk",
    "airflow.models",
    "airflow.cli.cli_parser",
    "airflow.api_fastapi.app",
    "airflow.api_fastapi.execution_api.app",
    "airflow.sdk.execution_time.supervisor",
    "airflow.sdk.execution_time.task_runner",
    "airflow.providers.standard.operators.python",
    "messaging_platform_provider",
    "messaging_platform_provider.hooks.messaging_platform",
    "messaging_platform_provider.operators",
    "messaging_platform_provider.sensors",
    "messaging_platform_provider.triggers",
    "messaging_platform_provider.callbacks.receiver",
    "messaging_platform_emulator",
    "messaging_platform_emulator.server",
    "pytest",
    "xdist",
    "hypothesis",
    "httpx",
    "requests",
    "uvicorn",
)


def main() -> int:
    home = tempfile.mkdtemp(prefix="compile-imports-")
    os.environ["AIRFLOW_HOME"] = home  # importing Airflow writes a config into its home: a throwaway one
    sys.dont_write_bytecode = False
    warnings.simplefilter("ignore")  # deprecations the imports raise are the suite's to report, not this step's
    try:
        for name in MODULES:
            try:
                importlib.import_module(name)
            except Exception as exc:  # a head start only: say so, and let the processes compile it
                print(f"compile_imports: {name} was not imported ({type(exc).__name__}: {exc})", file=sys.stderr)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
