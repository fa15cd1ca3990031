"""
Airflow-free client layer: operation declarations, request building, errors and retry policy.

Names are loaded on first use, so that importing ``client.operations`` (as the operators do while a DAG file is
parsed) does not import ``requests``.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messaging_platform_provider.client.client import MessagingPlatformClient
    from messaging_platform_provider.client.errors import (
        ErrorDetail,
        MessagingPlatformApiError,
        MessagingPlatformValidationError,
    )
    from messaging_platform_provider.client.once import CreateOnce
    from messaging_platform_provider.client.retry import RetryPolicy

_WHERE = {
    "MessagingPlatformClient": "client",
    "ErrorDetail": "errors",
    "MessagingPlatformApiError": "errors",
    "MessagingPlatformValidationError": "errors",
    "CreateOnce": "once",
    "RetryPolicy": "retry",
}

__all__ = [
    "CreateOnce",
    "ErrorDetail",
    "MessagingPlatformApiError",
    "MessagingPlatformClient",
    "MessagingPlatformValidationError",
    "RetryPolicy",
]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
