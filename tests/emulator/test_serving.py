"""
The emulator's own server thread (``messaging_platform_emulator.serving``): it serves on a free port, stops when
asked without waiting for its main loop's next tick, answers a request in progress before it stops, serves again on
a new port after a stop, and a start that fails stops what it started.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from messaging_platform_emulator import serving
from messaging_platform_emulator.serving import ServingThread

#: How long a stop may take here at most: generous, for a loaded machine (the tests wait for no timeout).
GENEROUS = 30.0
NAME = "serving probe"


def app(answering: threading.Event | None = None) -> Starlette:
    async def hello(request):
        return PlainTextResponse("hello")

    async def slow(request):
        assert answering is not None
        answering.set()
        await asyncio.sleep(0.5)
        return PlainTextResponse("late hello")

    return Starlette(routes=[Route("/", hello), Route("/slow", slow)])


def threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == NAME]


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.parametrize("answered_first", [True, False], ids=["keep-alive-connection-open", "idle"])
def test_a_stop_ends_the_main_loop_without_waiting_for_its_next_tick(monkeypatch, answered_first):
    # A tick (600 s) far longer than stop() waits (twice a generous 30 s): only a stop that wakes the loop ends it.
    monkeypatch.setattr(serving, "TICK_SECONDS", 600.0)
    monkeypatch.setattr(serving, "STOP_SECONDS", GENEROUS)
    server = ServingThread(app(), "127.0.0.1", 0, name=NAME).start()
    port = server.port
    assert port and len(threads()) == 1
    with requests.Session() as client:  # its connection stays open after an answer, until the server closes it
        try:
            if answered_first:
                assert client.get(f"http://127.0.0.1:{port}/", timeout=5).text == "hello"
        finally:
            server.stop()
        assert threads() == [] and not server.running
        assert refused(port)
        with pytest.raises(requests.ConnectionError):
            client.get(f"http://127.0.0.1:{port}/", timeout=5)


def test_a_request_in_progress_gets_its_answer(monkeypatch):
    monkeypatch.setattr(serving, "STOP_SECONDS", GENEROUS)
    answering = threading.Event()
    server = ServingThread(app(answering), "127.0.0.1", 0, name=NAME).start()
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(requests.get, f"http://127.0.0.1:{server.port}/slow", timeout=10)
        try:
            assert answering.wait(10)
        finally:
            server.stop()
        assert answer.result().text == "late hello"
    assert threads() == []


def test_a_stopped_server_starts_again_on_a_new_port_and_a_running_one_does_not_start_twice():
    server = ServingThread(app(), "127.0.0.1", 0, name=NAME).start()
    first = server.port
    with pytest.raises(RuntimeError, match="already running"):
        server.start()
    server.stop()
    server.start()
    try:
        assert requests.get(f"http://127.0.0.1:{server.port}/", timeout=5).text == "hello"
    finally:
        server.stop()
    assert refused(first) and refused(server.port)
    server.stop()  # a second stop does nothing
    assert threads() == []


def test_a_start_that_does_not_serve_in_time_stops_what_it_started(monkeypatch):
    started = threading.Event()
    real_startup = serving._WakeableServer.startup

    async def slow_startup(self, sockets=None):
        started.set()
        await asyncio.sleep(0.5)  # longer than start() waits
        await real_startup(self, sockets)

    monkeypatch.setattr(serving._WakeableServer, "startup", slow_startup)
    monkeypatch.setattr(serving, "START_SECONDS", 0.1)
    monkeypatch.setattr(serving, "STOP_SECONDS", GENEROUS)
    server = ServingThread(app(), "127.0.0.1", 0, name=NAME)
    with pytest.raises(RuntimeError, match="did not serve within 0.1 s"):
        server.start()
    assert started.is_set()  # its thread was running when start() gave up
    assert threads() == [] and not server.running  # and stop() waited for it
    assert refused(server.port)  # the socket it bound is closed


def test_a_port_in_use_raises_and_leaves_nothing_behind():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        server = ServingThread(app(), "127.0.0.1", taken.getsockname()[1], name=NAME)
        with pytest.raises(OSError):
            server.start()
    assert threads() == [] and not server.running
