"""The receiver served by uvicorn on a background thread (tests, benchmarks, embedding in a process)."""

from __future__ import annotations

from collections.abc import Iterable
from types import TracebackType
from typing import Any

from messaging_platform_provider.callbacks.background_server import BackgroundServer
from messaging_platform_provider.callbacks.receiver import DEFAULT_PATH, Receiver, create_receiver_app


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
        self._background = BackgroundServer(
            create_receiver_app(self.receiver, path=self.path),
            host,
            port,
            name="messaging-platform-callbacks",
            **uvicorn_options,
        )

    @property
    def port(self) -> int:
        return self._background.port

    def start(self) -> ReceiverServer:
        self.receiver.store.create()
        self._background.start()
        return self

    def stop(self) -> None:
        self._background.stop()

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
