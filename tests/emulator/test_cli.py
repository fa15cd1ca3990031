"""The command line: start, print the base URL and a secret-free URI, write the full URI privately, stop; and
``--strict``."""

from __future__ import annotations

import os
import queue
import signal
import stat
import subprocess
import sys
import threading
from urllib.parse import unquote, urlsplit

import httpx

from messaging_platform_emulator.control_client import EmulatorControl
from tests.support.paths import REPO

SRC = REPO / "src"


def _lines(stream, sink):
    for line in stream:
        sink.put(line)


def test_cli_serves_and_keeps_the_secret_out_of_its_output(tmp_path):
    conn_file = tmp_path / "conn.uri"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen(
        [sys.executable, "-m", "messaging_platform_emulator", "--port", "0", "--conn-file", str(conn_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    output: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_lines, args=(proc.stdout, output), daemon=True)
    seen: list[str] = []
    try:
        reader.start()
        while not any(line.startswith("Airflow connection URI:") for line in seen):
            seen.append(output.get(timeout=20))
        base_url = next(line for line in seen if line.startswith("Emulator base URL:")).split(": ", 1)[1].strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/api/v2.1")
        control = EmulatorControl(base_url.removesuffix("/api/v2.1"), timeout=5)
        assert control.health() == {"status": "ok"}

        uri = conn_file.read_text()
        assert stat.S_IMODE(conn_file.stat().st_mode) == 0o600
        secret = unquote(urlsplit(uri).password or "")
        assert secret and secret == control.seed()["api_secret"]
        control.close()
        printed = next(line for line in seen if line.startswith("Airflow connection URI:"))
        assert ":***@" in printed
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=15)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            if reader.is_alive():
                reader.join(timeout=5)
            assert proc.stdout is not None
            proc.stdout.close()
    assert code == 0
    while not output.empty():
        seen.append(output.get())
    assert secret not in "".join(seen)


def test_strict_refuses_what_it_would_otherwise_take_and_record(tmp_path):
    conn_file = tmp_path / "conn.uri"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))}
    args = ["--port", "0", "--strict", "--conn-file", str(conn_file)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "messaging_platform_emulator", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    output: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, output), daemon=True).start()
    seen: list[str] = []
    try:
        while not any(line.startswith("Airflow connection URI:") for line in seen):
            seen.append(output.get(timeout=20))
        assert any(line.startswith("Strict: every departure from the API reference is refused") for line in seen)
        base_url = next(line for line in seen if line.startswith("Emulator base URL:")).split(": ", 1)[1].strip()
        uri = urlsplit(conn_file.read_text())
        auth = (unquote(uri.username or ""), unquote(uri.password or ""))
        body = {"CallbackType": 1, "Url": "https://example.com/hook", "Active": True}
        refused = httpx.post(f"{base_url}/account/1001/callback", json=body, auth=auth, trust_env=False)
        assert (refused.status_code, refused.json()[0]["PropertyName"]) == (400, "URL")
        with EmulatorControl(base_url.removesuffix("/api/v2.1"), timeout=5) as control:
            [violation] = control.violations()
        assert (violation["property"], violation["rule"], violation["status"]) == ("URL", "property-case", 400)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            assert proc.wait(timeout=15) == 0
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stdout is not None
            proc.stdout.close()
