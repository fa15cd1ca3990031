"""
Inbound platform events (spec section 6): the receiver (ASGI), the durable de-duplicating store, and what Airflow
reads from it (``triggers.callback``, ``sensors.callback``). Nothing here imports Airflow at module level except
``plugin``; the receiver runs without Airflow (``messaging-platform-callbacks serve``).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messaging_platform_provider.callbacks.filters import CallbackFilter
    from messaging_platform_provider.callbacks.models import CALLBACK_TYPES, CallbackValidationError, parse_callback
    from messaging_platform_provider.callbacks.schema import NewCallback, StoredCallback
    from messaging_platform_provider.callbacks.store import CallbackStore

# Loaded on first use: a DAG file that declares an AssetWatcher should not build pydantic models and tables.
_WHERE = {
    "CALLBACK_TYPES": "models",
    "CallbackFilter": "filters",
    "CallbackStore": "store",
    "CallbackValidationError": "models",
    "NewCallback": "schema",
    "StoredCallback": "schema",
    "parse_callback": "models",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CALLBACK_TYPES",
    "CallbackFilter",
    "CallbackStore",
    "CallbackValidationError",
    "NewCallback",
    "StoredCallback",
    "parse_callback",
]
