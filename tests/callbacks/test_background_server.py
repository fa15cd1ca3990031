"""
The server the callback receiver runs on a background thread (``callbacks/background_server.py``; the emulator has
its own, ``messaging_platform_emulator.serving``, tested in ``tests/emulator/test_serving.py``): it stops when asked,
without waiting for its main loop's next tick, and a request it is answering still gets its answer.
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

from messaging_platform_provider.callbacks import background_server
from messaging_platform_provider.callbacks.background_server import BackgroundServer

#: How long stop() may wait for the server's thread and its connections here: generous for a loaded machine.
GENEROUS = 30.0


def hello_app(answering: threading.Event | None = None) -> Starlette:
    async def hello(request):
        return PlainTextResponse("hello")

    async def slow(request):
        assert answering is not None
        answering.set()
        await asyncio.sleep(0.5)
        return PlainTextResponse("late hello")

    return Starlette(routes=[Route("/", hello), Route("/slow", slow)])


def threads_named(name: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == name]


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.parametrize("answered_first", [True, False], ids=["keep-alive-connection-open", "idle"])
def test_a_stop_ends_the_main_loop_without_waiting_for_its_next_tick(monkeypatch, answered_first):
    # A tick (600 s) far longer than stop() waits for the thread (twice a generous 30 s): only a stop that wakes the
    # loop ends the thread while stop() waits.
    monkeypatch.setattr(background_server, "TICK_SECONDS", 600.0)
    monkeypatch.setattr(background_server, "SHUTDOWN_TIMEOUT_SECONDS", GENEROUS)
    server = BackgroundServer(hello_app(), "127.0.0.1", 0, name="probe server").start()
    port = server.port
    assert len(threads_named("probe server")) == 1
    with requests.Session() as client:  # its connection stays open after an answer, until the server closes it
        try:
            if answered_first:
                assert client.get(f"http://127.0.0.1:{port}/", timeout=5).text == "hello"
        finally:
            server.stop()
        assert threads_named("probe server") == []  # stop() waited for the thread to end, not for a tick
        assert refused(port)
        with pytest.raises(requests.ConnectionError):
            client.get(f"http://127.0.0.1:{port}/", timeout=5)


def test_a_server_stopped_and_started_again_serves_on_a_new_port():
    server = BackgroundServer(hello_app(), "127.0.0.1", 0, name="probe server").start()
    first = server.port
    server.stop()
    server.start()
    try:
        assert requests.get(f"http://127.0.0.1:{server.port}/", timeout=5).text == "hello"
    finally:
        server.stop()
    assert refused(first) and refused(server.port)
    assert threads_named("probe server") == []


def test_a_request_in_progress_when_the_server_stops_gets_its_answer(monkeypatch):
    monkeypatch.setattr(background_server, "SHUTDOWN_TIMEOUT_SECONDS", GENEROUS)  # for the answer to be sent
    answering = threading.Event()
    server = BackgroundServer(hello_app(answering), "127.0.0.1", 0, name="probe server").start()
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(requests.get, f"http://127.0.0.1:{server.port}/slow", timeout=10)
        try:
            assert answering.wait(10)
        finally:
            server.stop()
        assert answer.result().text == "late hello"
    assert threads_named("probe server") == []
