"""Run the emulator with uvicorn in a background thread (tests, the CLI, in-process use)."""

from __future__ import annotations

from types import TracebackType

from .app import create_app
from .conditions import Conditions
from .connection import connection_uri
from .control_client import EmulatorControl
from .emulator import Emulator
from .prefixes import API_PREFIX
from .services.accounts import Seed
from .serving import ServingThread
from .transport import ConnectionExposingH11Protocol


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
    (``.../api/v2.1``), ``.seed`` the seeded account's ids and credentials, ``.control`` a client of its control
    routes. ``conditions``: the latency and rate limit it starts with (``conditions.py``), and goes back to on reset.
    ``strict``: refuse every departure from the API reference with 400 instead of taking it as the platform does
    and recording it as a violation (``violations.py``).
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        api_key: str | None = None,
        api_secret: str | None = None,
        conditions: Conditions | None = None,
        emulator: Emulator | None = None,
        strict: bool = False,
    ) -> None:
        self.host = host
        self.emulator = emulator or Emulator(
            api_key=api_key, api_secret=api_secret, conditions=conditions, strict=strict
        )
        self._control: EmulatorControl | None = None
        self._background = ServingThread(
            create_app(self.emulator),
            host,
            port,
            name="messaging-platform-emulator",
            http=ConnectionExposingH11Protocol,
            ws="none",
            timeout_graceful_shutdown=1,
        )

    # -- lifecycle --------------------------------------------------------------------------------

    def start(self) -> EmulatorServer:
        self._background.start()
        return self

    def stop(self) -> None:
        self._background.stop()
        if self._control is not None:
            self._control.close()
            self._control = None

    @property
    def running(self) -> bool:
        return self._background.running

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
        if not self._background.port:
            raise RuntimeError("the emulator server has not been started")
        return self._background.port

    @property
    def url(self) -> str:
        return f"http://{_url_host(self.host)}:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + API_PREFIX

    @property
    def seed(self) -> Seed:
        return self.emulator.seed

    @property
    def strict(self) -> bool:
        return self.emulator.strict

    @property
    def control(self) -> EmulatorControl:
        """A client of this server's control routes (``server.control.reset()`` …): one while it serves."""
        if self._control is None:
            self._control = EmulatorControl(self.url)
        return self._control

    def connection_uri(self, *, hide_secret: bool = False) -> str:
        """Airflow connection URI for the seeded account (``hide_secret``: password shown as ``***``)."""
        seed = self.seed
        return connection_uri(self.base_url, seed.api_key, seed.api_secret, seed.account_id, hide_secret=hide_secret)

    def reset(self) -> None:
        """In-process equivalent of ``POST /_emulator/reset``."""
        self.emulator.reset()
