"""Run the emulator with uvicorn in a background thread (tests, the CLI, in-process use)."""

from __future__ import annotations

import socket
import threading
import time
from types import TracebackType

import uvicorn

from .app import create_app
from .connection import connection_uri
from .emulator import Emulator
from .middleware import API_PREFIX
from .state import Seed
from .transport import ConnectionExposingH11Protocol

STARTUP_TIMEOUT_SECONDS = 10.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


class EmulatorServer:
    """The emulator served by uvicorn on a background thread.

    ``with EmulatorServer() as server:`` binds ``host`` (default 127.0.0.1) and ``port`` (default 0: a free
    port), starts serving, and stops on exit. ``.url`` is the root, ``.base_url`` the platform base
    (``.../api/v2.1``), ``.seed`` the seeded account's ids and credentials.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        api_key: str | None = None,
        api_secret: str | None = None,
        emulator: Emulator | None = None,
    ) -> None:
        self.host = host
        self.emulator = emulator or Emulator(api_key=api_key, api_secret=api_secret)
        self._requested_port = port
        self._port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> EmulatorServer:
        if self._server is not None:
            raise RuntimeError("the emulator server is already running")
        sock = _bind(self.host, self._requested_port)
        self._socket = sock
        self._port = int(sock.getsockname()[1])
        config = uvicorn.Config(
            create_app(self.emulator),
            http=ConnectionExposingH11Protocol,
            ws="none",
            lifespan="off",
            log_level="warning",
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=1,
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="messaging-platform-emulator", daemon=True
        )
        self._server, self._thread = server, thread
        thread.start()
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the emulator server did not start")
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

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # -- addresses and credentials ----------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the emulator server has not been started")
        return self._port

    @property
    def url(self) -> str:
        return f"http://{_url_host(self.host)}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + API_PREFIX

    @property
    def seed(self) -> Seed:
        return self.emulator.seed

    def connection_uri(self, *, hide_secret: bool = False) -> str:
        """Airflow connection URI for the seeded account (``hide_secret``: password shown as ``***``)."""
        seed = self.seed
        return connection_uri(self.base_url, seed.api_key, seed.api_secret, seed.account_id, hide_secret=hide_secret)

    def reset(self) -> None:
        """In-process equivalent of ``POST /_emulator/reset``."""
        self.emulator.reset()
