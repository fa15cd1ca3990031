"""Start the emulator's command line as a subprocess on a free port (demo, benchmarks, scripts)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CONN_FILE = "emulator-connection.uri"
LOG_FILE = "emulator.log"
#: How long ``stop`` waits for the emulator to end after SIGTERM, then after SIGKILL.
STOP_GRACE_SECONDS = 15.0


def spawn(
    folder: Path, *, env: Mapping[str, str] | None = None, timeout: float = 30.0
) -> tuple[subprocess.Popen[bytes], str]:
    """
    Run ``python -m messaging_platform_emulator --port 0 --conn-file FOLDER/emulator-connection.uri``, its output in
    ``FOLDER/emulator.log`` (the secret never printed), and wait until it serves (``timeout`` s at most). Returns the
    process and the connection URI (secret included: keep it out of output). Stop it with ``stop(process)``.

    A start that fails once the process exists (not serving in time, exited, interrupted) stops it before raising.
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
    try:
        return proc, _wait_serving(proc, folder, timeout)
    except BaseException:
        stop(proc)
        raise


def _wait_serving(proc: subprocess.Popen[bytes], folder: Path, timeout: float) -> str:
    """The connection URI, once the emulator has written it and said so in its log."""
    conn_file = folder / CONN_FILE
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if conn_file.exists() and "Airflow connection URI:" in (folder / LOG_FILE).read_text(errors="replace"):
            return conn_file.read_text().strip()
        time.sleep(0.05)
    raise RuntimeError(f"the emulator did not start; see {folder / LOG_FILE}")


def stop(proc: subprocess.Popen[Any], grace: float = STOP_GRACE_SECONDS) -> None:
    """SIGTERM the process, SIGKILL it if it is still there after ``grace`` s, and wait for it (no zombie left)."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            proc.kill()
    proc.wait(timeout=grace)
