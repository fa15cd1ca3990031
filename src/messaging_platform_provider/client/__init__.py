"""
Airflow-free client layer: operation declarations, request building, errors and retry policy.

Names are loaded on first use, so that importing ``client.operations`` (as the operators do while a DAG file is
parsed) does not import ``requests``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from messaging_platform_provider.client.lazy_exports import lazy_exports

# Explicit re-exports ("X as X") for type checkers; at run time the names come from __getattr__.
if TYPE_CHECKING:
    from messaging_platform_provider.client.client import MessagingPlatformClient as MessagingPlatformClient
    from messaging_platform_provider.client.errors import (
        ErrorDetail as ErrorDetail,
        MessagingPlatformApiError as MessagingPlatformApiError,
        MessagingPlatformValidationError as MessagingPlatformValidationError,
    )
    from messaging_platform_provider.client.odata import (
        and_ as and_,
        eq as eq,
        ge as ge,
        gt as gt,
        le as le,
        literal as literal,
        lt as lt,
        ne as ne,
        not_ as not_,
        or_ as or_,
    )
    from messaging_platform_provider.client.once import CreateOnce as CreateOnce
    from messaging_platform_provider.client.retry import RetryPolicy as RetryPolicy

_WHERE = {
    "MessagingPlatformClient": "client",
    "ErrorDetail": "errors",
    "MessagingPlatformApiError": "errors",
    "MessagingPlatformValidationError": "errors",
    "CreateOnce": "once",
    **{name: "odata" for name in ("literal", "eq", "ne", "gt", "ge", "lt", "le", "and_", "or_", "not_")},
    "RetryPolicy": "retry",
}

__all__, __getattr__ = lazy_exports(__name__, _WHERE)
