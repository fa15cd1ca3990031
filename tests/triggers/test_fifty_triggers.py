"""
Fifty ``MessagingPlatformScheduleTrigger``s of one connection in one event loop, as a triggerer runs them: they
share one pooled client, and a trigger whose answer is slow holds up no other. What this costs under load (the
longest wait of a turn of the event loop, TCP connections opened) is measured by ``bench/fifty_triggers.py``.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator
from messaging_platform_provider.client.async_client import DEFAULT_POOL_CONNECTIONS, AsyncMessagingPlatformClient
from messaging_platform_provider.hooks import messaging_platform_async as async_hook_module
from messaging_platform_provider.triggers.pool import clients_open
from messaging_platform_provider.waiting.deadline import deadline_after
from tests.support.waiting import PATIENCE, Lifecycle, first_event, wait_until
from tests.triggers.test_schedule_trigger import CONN_ENV, trigger


class OwnEmulator:
    """An emulator process of the test's own: its control client, and Airflow connections to its seeded account."""

    def __init__(self, uri: str) -> None:
        parts = urlsplit(uri)
        self.extra: dict[str, Any] = uri_extras(uri)
        self.login, self.password = unquote(parts.username or ""), unquote(parts.password or "")
        self.control = EmulatorControl(self.extra["base_url"].removesuffix("/api/v2.1"))

    def connection_json(self, extra: dict[str, Any] | None = None) -> str:
        conn = {"conn_type": "messagingplatform", "login": self.login, "password": self.password}
        return json.dumps({**conn, "extra": {**self.extra, **(extra or {})}})


@pytest.fixture
def own_process_emulator(monkeypatch, tmp_path) -> Iterator[OwnEmulator]:
    """
    An emulator in a process of its own, with ``messaging_platform_default`` pointing at it: the answers it holds
    (delay faults) end with the process, not with the session's emulator.
    """
    proc, uri = spawn_emulator(tmp_path)  # a failed start stops the process before raising
    try:
        emulator = OwnEmulator(uri)
        monkeypatch.setenv(CONN_ENV, emulator.connection_json())
        with emulator.control:
            yield emulator
    finally:
        stop_emulator(proc)


#: Schedules whose polls the emulator holds unanswered (600 s, longer than the test runs) in the fifty-triggers test.
HELD = 3


class TriggersInAThread:
    """
    Triggers run to their first event on one event loop, in a thread of its own, as the triggerer runs them; the
    test watches them from its own thread, so that a loop held by a trigger fails the test instead of hanging it.
    """

    def __init__(self, schedule_ids: list[int]) -> None:
        self.events: dict[int, dict[str, Any]] = {}
        self.errors: list[BaseException] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=asyncio.run, args=(self._main(schedule_ids),), name="triggers", daemon=True
        )
        self._thread.start()

    async def _main(self, schedule_ids: list[int]) -> None:
        async def one(schedule_id: int) -> None:
            t = trigger([schedule_id], poll_interval=0.2, deadline=deadline_after(600))
            try:
                self.events[schedule_id] = await first_event(t, 600)
            except Exception as exc:  # noqa: BLE001 - reported to the test's thread
                self.errors.append(exc)

        tasks = [asyncio.create_task(one(s)) for s in schedule_ids]
        while not self._stop.is_set():
            await asyncio.sleep(0.02)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def stop(self) -> bool:
        """Cancel the triggers still waiting, and wait (generously) for the loop to end; whether it ended."""
        self._stop.set()
        self._thread.join(timeout=PATIENCE)
        return not self._thread.is_alive()


def test_fifty_triggers_share_one_client_and_a_held_answer_holds_up_no_other_trigger(own_process_emulator, monkeypatch):
    """
    Fifty triggers of one connection in one event loop: one pooled client (built once, shared, closed with its last
    user), and three triggers whose poll the emulator never answers hold up none of the other 47, which poll on
    and finish. A trigger that waited for its answer synchronously would hold the loop: no other trigger could poll.
    """
    built: list[AsyncMessagingPlatformClient] = []

    class CountedClient(AsyncMessagingPlatformClient):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            built.append(self)

    monkeypatch.setattr(async_hook_module, "AsyncMessagingPlatformClient", CountedClient)
    life = Lifecycle(own_process_emulator)
    life.control.set_clock(scale=0)  # every schedule Pending until the held polls are in flight
    ids = [life.new_schedule(pending_seconds=0.5, processing_seconds=0.3)["Id"] for _ in range(50)]
    held, others = ids[:HELD], ids[HELD:]
    life.control.clear_requests()
    # Read timeout 600 s: the held polls stay in flight for the whole test, never given up and sent again.
    monkeypatch.setenv(CONN_ENV, own_process_emulator.connection_json(extra={"read_timeout": 600}))
    held_path = "/schedule/(" + "|".join(str(i) for i in held) + ")$"
    life.control.add_fault("delay", delay=600, count=HELD, method="GET", path=held_path)

    def reads() -> dict[int, list[int | None]]:
        """The answer statuses of each schedule's polls (None: not answered yet), oldest first."""
        found: dict[int, list[int | None]] = {}
        for r in life.control.requests():
            if r["method"] == "GET" and "/schedule/" in r["path"]:
                found.setdefault(int(r["path"].rsplit("/", 1)[-1]), []).append(r["status"])
        return found

    def seen(condition: Callable[[], bool]) -> Callable[[], bool]:
        def check() -> bool:
            assert not running.errors, running.errors  # a trigger that died
            return condition()

        return check

    def all_waiting() -> bool:
        r = reads()
        return all(r.get(s) == [None] for s in held) and all(200 in r.get(s, []) for s in others)

    running = TriggersInAThread(ids)
    try:
        wait_until(seen(all_waiting), "the held polls in flight, every other schedule read Pending", timeout=120)
        life.control.set_clock(scale=1)  # the 47 other schedules now run to their end
        wait_until(seen(lambda: set(running.events) >= set(others)), "every other trigger sent its event", 120)
        finished_held = [s for s in held if s in running.events]
        open_while_running = clients_open()
    finally:
        ended = running.stop()
    assert ended, "the triggers' event loop did not end"
    assert len(built) == 1  # one client for fifty triggers of one connection
    assert built[0].max_connections == DEFAULT_POOL_CONNECTIONS  # its pool: the bound on TCP connections
    assert open_while_running == 1 and clients_open() == 0  # shared while they ran, closed with its last user
    assert [running.events[s]["outcome"] for s in others] == ["success"] * (50 - HELD)
    assert finished_held == []  # their polls were never answered: they were waiting all along
    final = reads()
    assert all(final[s] == [None] for s in held)  # one poll each, still in flight
    assert all(len(final[s]) >= 2 for s in others)  # each read its schedule waiting, then ended
