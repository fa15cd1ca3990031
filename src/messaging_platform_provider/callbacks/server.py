"""The receiver served by uvicorn on a background thread (tests, benchmarks, embedding in a process)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterable
from types import TracebackType
from typing import Any

import uvicorn

from messaging_platform_provider.callbacks.receiver import DEFAULT_PATH, Receiver, create_receiver_app

STARTUP_TIMEOUT_SECONDS = 10.0


class ReceiverServer:
    """
    ``with ReceiverServer(tokens=[...], database_url=...) as server:`` serves the receiver on ``host``:``port``
    (default 127.0.0.1 and a free port) until the block ends. ``.url`` is where callbacks are POSTed.
    """

    def __init__(
        self,
        *,
        tokens: Iterable[str] | None = None,
        database_url: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = DEFAULT_PATH,
        receiver: Receiver | None = None,
        **uvicorn_options: Any,
    ) -> None:
        self.receiver = receiver or Receiver(tokens=tokens, database_url=database_url)
        self.host = host
        self.path = "/" + path.strip("/")
        self._requested_port = port
        self._options = uvicorn_options
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None
        self.port = 0

    def start(self) -> ReceiverServer:
        self.receiver.store.create()
        sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self._requested_port))
        sock.listen(1024)
        self._socket, self.port = sock, int(sock.getsockname()[1])
        options: dict[str, Any] = {"log_level": "warning", "log_config": None, "access_log": False, "lifespan": "off"}
        options.update(self._options)
        config = uvicorn.Config(create_receiver_app(self.receiver, path=self.path), **options)
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="messaging-platform-callbacks", daemon=True
        )
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the callback receiver did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        server, thread, sock = self._server, self._thread, self._socket
        self._server = self._thread = self._socket = None
        if server is not None:
            server.should_exit = True
        if thread is not None:
            thread.join(10)
        if sock is not None:
            sock.close()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{self.path}"

    def __enter__(self) -> ReceiverServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
