"""
Errors that a retry of the task cannot change end the task at once, without its retries: bad input (a
``MessagingPlatformValidationError`` naming the parameter), and answers that are not transient (400, 401, 403,
404, 409, ...; ``client.errors.retry_cannot_help``). Transient failures (no answer, 408, 429, 5xx) keep Airflow's
retries. Every operator and sensor runs its work inside ``failing_fast``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    retry_cannot_help,
)
from messaging_platform_provider.version_compat import AirflowFailException


@contextmanager
def failing_fast() -> Iterator[None]:
    """Re-raise an error that a retry cannot change as ``AirflowFailException``, with the same message."""
    try:
        yield
    except (MessagingPlatformApiError, MessagingPlatformValidationError) as exc:
        if retry_cannot_help(exc):
            raise AirflowFailException(str(exc)) from exc
        raise
