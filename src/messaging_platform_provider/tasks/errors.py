"""
Which errors a retry of the task can change, decided once (``platform_error_kind``) for the two places that act on
it: ``failing_fast``, which every operator and sensor runs its work inside, and ``MessagingPlatformRetryPolicy``
(``retry_policy.py``), which users attach to their own tasks on Airflow 3.3+.

A retry cannot change bad input (a ``MessagingPlatformValidationError`` naming the parameter) nor an answer that is
not transient (400, 401, 403, 404, 409, ...; ``client.errors.retry_cannot_help``). Transient failures (no answer,
408, 429, 5xx) may succeed on a retry. Any other exception is not the platform's: the task's own retry settings
decide.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from contextlib import contextmanager

from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    retry_cannot_help,
)
from messaging_platform_provider.version_compat import AirflowFailException


class PlatformErrorKind(enum.Enum):
    """What a retry of the task can do about an exception."""

    PERMANENT = "permanent"  # a platform error a retry cannot change
    TRANSIENT = "transient"  # a platform error a retry may get past
    NOT_PLATFORM = "not a platform error"  # anything else: the task's own retry settings decide


def platform_error_kind(exc: BaseException) -> PlatformErrorKind:
    """Whether ``exc`` is one of the provider's errors and, if so, whether a retry of the task can change it."""
    if not isinstance(exc, (MessagingPlatformApiError, MessagingPlatformValidationError)):
        return PlatformErrorKind.NOT_PLATFORM
    return PlatformErrorKind.PERMANENT if retry_cannot_help(exc) else PlatformErrorKind.TRANSIENT


@contextmanager
def failing_fast() -> Iterator[None]:
    """Re-raise an error that a retry cannot change as ``AirflowFailException``, with the same message."""
    try:
        yield
    except Exception as exc:
        if platform_error_kind(exc) is PlatformErrorKind.PERMANENT:
            raise AirflowFailException(str(exc)) from exc
        raise
