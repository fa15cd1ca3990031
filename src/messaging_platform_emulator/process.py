"""Start the emulator's command line as a subprocess on a free port (demo, benchmarks, scripts)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

CONN_FILE = "emulator-connection.uri"
LOG_FILE = "emulator.log"


def spawn(
    folder: Path, *, env: Mapping[str, str] | None = None, timeout: float = 30.0
) -> tuple[subprocess.Popen[bytes], str]:
    """
    Run ``python -m messaging_platform_emulator --port 0 --conn-file FOLDER/emulator-connection.uri``, its output in
    ``FOLDER/emulator.log`` (the secret never printed), and wait until it serves. Returns the process and the
    connection URI (secret included: keep it out of output). Stop it with ``terminate()``.
    """
    conn_file = folder / CONN_FILE
    conn_file.unlink(missing_ok=True)
    with (folder / LOG_FILE).open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "messaging_platform_emulator", "--port", "0", "--conn-file", str(conn_file)],
            env=dict(env) if env is not None else None,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if conn_file.exists() and "Airflow connection URI:" in (folder / LOG_FILE).read_text(errors="replace"):
            return proc, conn_file.read_text().strip()
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the emulator did not start; see {folder / LOG_FILE}")
