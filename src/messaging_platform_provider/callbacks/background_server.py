"""
An ASGI app served by uvicorn on a background thread, on a socket bound first (so port 0 gives a known free port).

Used by the callback receiver's ``ReceiverServer`` and by the emulator's ``EmulatorServer`` (tests, benchmarks,
the command lines); not for production serving, where uvicorn runs the app directly.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from typing import Any

import uvicorn

STARTUP_TIMEOUT_SECONDS = 10.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0
#: How often the server's main loop wakes up unasked (as uvicorn's: it refreshes the Date header once in ten).
TICK_SECONDS = 0.1


def bind(host: str, port: int, backlog: int = 1024) -> socket.socket:
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(backlog)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class _PromptlyStoppedServer(uvicorn.Server):
    """
    uvicorn's server, stopped as soon as ``request_exit()`` is called from another thread. uvicorn's own main loop
    looks at ``should_exit`` every 0.1 s, and its shutdown then gives the open connections a fixed 0.1 s to close:
    0.2 s for every receiver or emulator that a test (or a user's test, through the emulator's pytest plugin)
    stopped. Here the main loop wakes at the request, and the shutdown waits only until the connections have closed.
    """

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._exit_requested: asyncio.Event | None = None

    async def main_loop(self) -> None:
        # As uvicorn's: a tick every TICK_SECONDS (it refreshes the Date header and says when to exit), but a
        # requested exit ends the wait at once instead of at the next tick.
        self._exit_requested = asyncio.Event()
        self._loop = asyncio.get_running_loop()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864000
            try:
                await asyncio.wait_for(self._exit_requested.wait(), timeout=TICK_SECONDS)
            except asyncio.TimeoutError:
                pass

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        # uvicorn's steps, but the wait for the connections ends when they have closed, not after a fixed 0.1 s: an
        # idle keep-alive connection closes when asked, one mid-request once its answer is sent.
        for server in self.servers:
            server.close()
        for sock in sockets or []:
            sock.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()
        grace = self.config.timeout_graceful_shutdown
        deadline = time.monotonic() + (SHUTDOWN_TIMEOUT_SECONDS if grace is None else grace)
        state = self.server_state
        while (state.connections or state.tasks) and not self.force_exit and time.monotonic() < deadline:
            await asyncio.sleep(0.005)
        for task in state.tasks:
            task.cancel()
        for server in self.servers:
            await server.wait_closed()
        if not self.force_exit:
            await self.lifespan.shutdown()

    def request_exit(self) -> None:
        self.should_exit = True
        loop, event = self._loop, self._exit_requested
        if loop is not None and event is not None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop has closed: the server has stopped already
                pass


class BackgroundServer:
    """``start()`` binds ``host``:``port`` and serves ``app`` until ``stop()``; ``port`` is the bound port."""

    def __init__(self, app: Any, host: str, port: int, *, name: str, **uvicorn_options: Any) -> None:
        self.app = app
        self.host = host
        self.name = name
        self.port = 0
        self._requested_port = port
        self._options: dict[str, Any] = {"log_level": "warning", "log_config": None, "access_log": False}
        self._options["lifespan"] = "off"
        self._options.update(uvicorn_options)
        self._server: _PromptlyStoppedServer | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> BackgroundServer:
        if self._server is not None:
            raise RuntimeError(f"the {self.name} is already running")
        sock = bind(self.host, self._requested_port)
        self._socket, self.port = sock, int(sock.getsockname()[1])
        try:  # whatever fails from here on (not serving in time, interrupted) stops what was started, then raises
            server = _PromptlyStoppedServer(uvicorn.Config(self.app, **self._options))
            thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True)
            self._server, self._thread = server, thread
            thread.start()
            deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
            while not server.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError(f"the {self.name} did not start")
                time.sleep(0.01)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        server, thread, sock = self._server, self._thread, self._socket
        self._server = self._thread = self._socket = None
        if server is not None:
            server.request_exit()
        if thread is not None:
            thread.join(SHUTDOWN_TIMEOUT_SECONDS)
            if thread.is_alive() and server is not None:
                server.force_exit = True
                thread.join(SHUTDOWN_TIMEOUT_SECONDS)
        if sock is not None:
            sock.close()
