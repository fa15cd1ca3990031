"""
An ASGI app served by uvicorn on a background thread, on a socket bound first (so port 0 gives a known free port).

Used by the callback receiver's ``ReceiverServer`` and by the emulator's ``EmulatorServer`` (tests, benchmarks,
the command lines); not for production serving, where uvicorn runs the app directly.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import uvicorn

STARTUP_TIMEOUT_SECONDS = 10.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0


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
        self._server: uvicorn.Server | None = None
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
        server = uvicorn.Server(uvicorn.Config(self.app, **self._options))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name=self.name, daemon=True)
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the {self.name} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        server, thread, sock = self._server, self._thread, self._socket
        self._server = self._thread = self._socket = None
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(SHUTDOWN_TIMEOUT_SECONDS)
            if thread.is_alive() and server is not None:
                server.force_exit = True
                thread.join(SHUTDOWN_TIMEOUT_SECONDS)
        if sock is not None:
            sock.close()
