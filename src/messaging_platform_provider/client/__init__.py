"""Airflow-free client layer: operation declarations, request building, errors and retry policy."""

from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import (
    ErrorDetail,
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
)
from messaging_platform_provider.client.retry import RetryPolicy

__all__ = [
    "ErrorDetail",
    "MessagingPlatformApiError",
    "MessagingPlatformClient",
    "MessagingPlatformValidationError",
    "RetryPolicy",
]
