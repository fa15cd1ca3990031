"""
``messaging-platform-callbacks serve`` as deployed: its own process, on a free port, stopped by the test (also when
the test fails). The listen backlog in force is the one configured, and the limits it prints are the ones it keeps.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from messaging_platform_provider.callbacks.settings import TOKENS_ENV
from tests.callbacks.test_slow_clients import raw_exchange, statuses
from tests.support.callback_helpers import BOUND_TOKEN, callback, post


class Served:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url
        self.host = "127.0.0.1"
        self.port = int(url.rsplit(":", 1)[1].split("/", 1)[0])
        self.path = "/callbacks"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    env = {**os.environ, TOKENS_ENV: BOUND_TOKEN, "AIRFLOW_HOME": str(tmp_path)}
    command = [sys.executable, "-m", "messaging_platform_provider.callbacks.cli", "serve", "--port", "0"]
    command += ["--database-url", f"sqlite:///{tmp_path / 'callbacks.db'}", "--backlog", "777"]
    command += ["--max-head-bytes", "4096"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None
        url = ""
        for line in process.stdout:
            if line.startswith("Receiving callbacks at "):
                url = line.split(" at ", 1)[1].strip()
            if line.startswith("Limits: "):
                assert "4096 bytes" in line and "backlog 777" in line, line
                break
        assert url, "the receiver did not start"
        yield Served(process, url)
    finally:
        process.terminate()
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(30)


def test_the_configured_listen_backlog_is_the_one_in_force(served):
    """
    uvicorn listens again on the socket it is given, with its own backlog setting: it was 32, not 2,048. Read with
    ``ss`` (Debian's iproute2, on every machine of ours): a listening socket's Send-Q is its backlog.
    """
    listening = subprocess.run(
        ["ss", "-ltnH", f"sport = :{served.port}"], capture_output=True, text=True, check=True
    ).stdout.split()
    assert listening[0] == "LISTEN" and int(listening[2]) == 777  # Send-Q of a listening socket: its backlog


def test_serve_stores_callbacks_and_answers_431_to_an_endless_head(served):
    assert post(served.url, callback(1)).json()["status"] == "stored"
    start = b"POST /callbacks HTTP/1.1\r\nHost: x\r\nX-Endless: "
    assert statuses(raw_exchange(served, start, *[b"a" * 1024] * 32)) == [431]  # type: ignore[arg-type]
    assert post(served.url, callback(1)).json()["status"] == "stored"
