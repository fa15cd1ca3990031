"""GET /_emulator/connections: TCP connections opened, open now and peak open, counted by the server protocol."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import requests


def wait_until(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """Poll ``condition`` every 20 ms until it is true (returned); fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"still not the case after {timeout:g} s: {what}"
        time.sleep(0.02)
    return value


@pytest.fixture
def control(emu: Any) -> Iterator[requests.Session]:
    """
    One kept-alive connection for control calls, so reading the counts opens nothing new. The test starts once it
    is the only connection open: the server sees the closes of earlier connections (the reset's, earlier tests')
    asynchronously, and closes idle kept-alive ones after 5 s.
    """
    session = requests.Session()
    only_this_one(emu, session)
    yield session
    session.close()


def counts(emu: Any, control: requests.Session) -> dict[str, int]:
    response = control.get(f"{emu.server.url}/_emulator/connections", timeout=10)
    response.raise_for_status()
    body: dict[str, int] = response.json()
    return body


def only_this_one(emu: Any, control: requests.Session) -> dict[str, int]:
    """The counts once the control connection is the only one open."""
    found: dict[str, int] = wait_until(
        lambda: (now := counts(emu, control))["open"] == 1 and now, "only the control connection is open"
    )
    return found


def client(emu: Any) -> requests.Session:
    session = requests.Session()
    session.auth = (emu.seed.api_key, emu.seed.api_secret)
    return session


def test_the_answer_has_the_three_counts(emu, control):
    body = counts(emu, control)
    assert set(body) == {"opened", "open", "peak_open"}
    assert body["opened"] >= 1 and body["open"] >= 1  # at least this very connection
    assert body["peak_open"] >= body["open"]


def test_a_session_reuses_one_connection(emu, control):
    before = counts(emu, control)
    with client(emu) as session:
        for _ in range(5):
            assert session.get(emu.server.base_url + emu.campaigns, timeout=10).status_code == 204
        during = counts(emu, control)
    assert during["opened"] - before["opened"] == 1
    assert during["open"] == 2 and during["peak_open"] >= during["open"]


def test_three_sessions_open_three_connections(emu, control):
    before = counts(emu, control)
    sessions = [client(emu) for _ in range(3)]
    try:
        for session in sessions:
            for _ in range(2):
                assert session.get(emu.server.base_url + emu.campaigns, timeout=10).status_code == 204
        during = counts(emu, control)
    finally:
        for session in sessions:
            session.close()
    assert during["opened"] - before["opened"] == 3
    assert during["open"] - before["open"] == 3
    assert during["peak_open"] >= before["open"] + 3


def test_closed_connections_are_no_longer_open(emu, control):
    with client(emu) as session:
        session.get(emu.server.base_url + emu.campaigns, timeout=10)
        during = counts(emu, control)
    assert during["open"] == 2
    after = only_this_one(emu, control)  # the session's connection, closed, is no longer counted open
    assert after["opened"] == during["opened"]


def test_reset_zeroes_opened_and_restarts_peak_from_the_live_count(emu, control):
    with client(emu) as session:
        session.get(emu.server.base_url + emu.campaigns, timeout=10)
    assert only_this_one(emu, control)["opened"] >= 2  # the session's connection was counted, and is closed
    control.post(f"{emu.server.url}/_emulator/reset", timeout=10).raise_for_status()
    after = counts(emu, control)  # same kept-alive connection: nothing opened since the reset
    assert after == {"opened": 0, "open": 1, "peak_open": 1}
    with client(emu) as session:
        session.get(emu.server.base_url + emu.campaigns, timeout=10)
        assert counts(emu, control)["opened"] == 1


def test_without_the_emulator_server_the_counts_are_unavailable():
    import asyncio

    import httpx

    from messaging_platform_emulator.app import create_app

    async def calls() -> tuple[int, int]:
        transport = httpx.ASGITransport(app=create_app())  # no TCP connection, so nothing to count
        async with httpx.AsyncClient(transport=transport, base_url="http://emulator") as client:
            counts = await client.get("/_emulator/connections")
            reset = await client.post("/_emulator/reset")
            return counts.status_code, reset.status_code

    assert asyncio.run(calls()) == (501, 200)
