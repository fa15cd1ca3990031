"""
The receiver mounted into Airflow's API server: ``{api server}/messaging-platform/callbacks``.

Registered through the ``airflow.plugins`` entry point. Importing this module is cheap (no FastAPI import): the
receiver app is built on its first request, with the tokens and the store resolved then
(``$MESSAGING_PLATFORM_CALLBACK_TOKENS`` or ``[messaging_platform_callbacks] tokens``;
``$MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL`` or ``[messaging_platform_callbacks] database_url``). With no token
configured, or when the store cannot be opened, it answers 503. Airflow's API authentication does not cover plugin
apps: the callback token is what authenticates the platform.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from airflow.plugins_manager import AirflowPlugin

if TYPE_CHECKING:  # the receiver module is imported on the first request, not with the plugin
    from messaging_platform_provider.callbacks.receiver import Receive, Scope, Send

URL_PREFIX = "/messaging-platform"


class LazyReceiverApp:
    """An ASGI app that builds the receiver (``create_receiver_app(**kwargs)``) on its first request."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._app: Any = None
        self._lock = threading.Lock()

    @property
    def app(self) -> Any:
        with self._lock:
            if self._app is None:
                from messaging_platform_provider.callbacks.receiver import create_receiver_app

                self._app = create_receiver_app(**self._kwargs)
            return self._app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


class MessagingPlatformCallbacksPlugin(AirflowPlugin):
    name = "messaging_platform_callbacks"
    fastapi_apps = [
        {
            "app": LazyReceiverApp(),
            "url_prefix": URL_PREFIX,
            "name": "Messaging Platform callback receiver",
        }
    ]
