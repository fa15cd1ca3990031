"""
Inbound platform events (spec section 6): the receiver (ASGI), the durable de-duplicating store, and what Airflow
reads from it (``triggers.callback``, ``sensors.callback``). Nothing here imports Airflow at module level except
``plugin``; the receiver runs without Airflow (``messaging-platform-callbacks serve``).
"""

from messaging_platform_provider.callbacks.filters import CallbackFilter
from messaging_platform_provider.callbacks.models import CALLBACK_TYPES, CallbackValidationError, parse_callback
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback, StoredCallback

__all__ = [
    "CALLBACK_TYPES",
    "CallbackFilter",
    "CallbackStore",
    "CallbackValidationError",
    "NewCallback",
    "StoredCallback",
    "parse_callback",
]
