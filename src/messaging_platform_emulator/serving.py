"""Serve an ASGI app with uvicorn on a thread of its own, on a free port, and stop it promptly.

``ServingThread(app, host, port)``: ``start()`` binds the socket first (port 0: the OS picks a free one, then
``port`` is known), runs uvicorn on a daemon thread and waits until it serves; a start that fails on the way (the
server not serving in time, its thread ended, an interrupt) stops what it started and raises. ``stop()`` returns
once the thread has ended. Two uvicorn habits would make each stop cost 0.2 s, paid by every test that starts an
emulator: its main loop looks for an exit request every 0.1 s, and its shutdown then sleeps 0.1 s for connections
to close. Here an exit request wakes the main loop at once, and the shutdown waits only as long as connections are
still open (an idle keep-alive one closes when asked, one mid-request after its answer).
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import uvicorn

#: How long ``start`` waits for the server to serve, and ``stop`` for its thread (then again after forcing it).
START_SECONDS = 10.0
STOP_SECONDS = 5.0
#: How often the main loop runs uvicorn's tick (the ``Date`` header, limits) when nothing wakes it: as uvicorn.
TICK_SECONDS = 0.1
#: How often the shutdown looks whether the open connections have closed.
CLOSE_POLL_SECONDS = 0.005


def listening_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening (closed again if either fails)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(512)
    except BaseException:
        sock.close()
        raise
    return sock


class _WakeableServer(uvicorn.Server):
    """uvicorn's server whose main loop a ``wake`` from another thread ends at once."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def wake(self) -> None:
        """Ask the server to exit, from any thread."""
        self.should_exit = True
        loop, wake = self._loop, self._wake
        if loop is None or wake is None:
            return  # not serving yet: the main loop sees should_exit at its first tick
        try:
            loop.call_soon_threadsafe(wake.set)
        except RuntimeError:  # the loop is closed: the server ended already
            pass

    async def main_loop(self) -> None:
        self._loop, self._wake = asyncio.get_running_loop(), asyncio.Event()
        ticks = 0
        while not await self.on_tick(ticks):
            ticks += 1
            try:
                await asyncio.wait_for(self._wake.wait(), TICK_SECONDS)
            except asyncio.TimeoutError:
                continue

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for sock in sockets or ():
            sock.close()
        state = self.server_state
        for connection in list(state.connections):
            connection.shutdown()
        grace = self.config.timeout_graceful_shutdown
        give_up = time.monotonic() + (STOP_SECONDS if grace is None else grace)
        while (state.connections or state.tasks) and not self.force_exit and time.monotonic() < give_up:
            await asyncio.sleep(CLOSE_POLL_SECONDS)
        for task in list(state.tasks):
            task.cancel()
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()


class ServingThread:
    """``app`` served by uvicorn on a thread named ``name``; ``port`` is the bound port once started.

    ``uvicorn_options`` go to ``uvicorn.Config`` (``http=``, ``timeout_graceful_shutdown=`` …); logging is quiet and
    the lifespan off unless they say otherwise.
    """

    def __init__(self, app: Any, host: str, port: int, *, name: str, **uvicorn_options: Any) -> None:
        self.app = app
        self.host = host
        self.name = name
        self.port = 0
        self._wanted_port = port
        self._options: dict[str, Any] = {
            "log_level": "warning",
            "log_config": None,
            "access_log": False,
            "lifespan": "off",
            **uvicorn_options,
        }
        self._server: _WakeableServer | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> ServingThread:
        if self._thread is not None:
            raise RuntimeError(f"the {self.name} is already running")
        self._socket = listening_socket(self.host, self._wanted_port)
        self.port = int(self._socket.getsockname()[1])
        try:
            self._server = _WakeableServer(uvicorn.Config(self.app, **self._options))
            self._thread = threading.Thread(
                target=self._server.run, kwargs={"sockets": [self._socket]}, name=self.name, daemon=True
            )
            self._thread.start()
            self._wait_serving()
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_serving(self) -> None:
        assert self._server is not None and self._thread is not None
        deadline = time.monotonic() + START_SECONDS
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the {self.name} ended while starting")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {self.name} did not serve within {START_SECONDS:g} s")
            time.sleep(0.005)

    def stop(self) -> None:
        """Stop serving and wait for the thread; what a failed ``start`` left behind is stopped too."""
        server, thread, sock = self._server, self._thread, self._socket
        self._server = self._thread = self._socket = None
        if server is not None:
            server.wake()
        if thread is not None and thread.is_alive():
            thread.join(STOP_SECONDS)
            if thread.is_alive() and server is not None:
                server.force_exit = True
                thread.join(STOP_SECONDS)
        if sock is not None:
            sock.close()
