"""
Retry policy shared by the sync and async transports: which failures are retried, and how long to wait.

A POST is only resent when the platform cannot have acted on it: the connection was never made, or the
platform answered 429. A 5xx or a connection lost after sending may hide a committed create, so a POST
is not resent then; creates get their own duplicate protection a layer above.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime


class Failure(enum.Enum):
    """What went wrong when no HTTP response arrived."""

    NOT_SENT = "not_sent"  # connect refused or timed out: the request never reached the platform
    LOST = "lost"  # the connection broke or the read timed out after the request was sent


TRANSIENT_STATUSES = frozenset({502, 503, 504})


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date); ``None`` if absent or bad."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # not "²", which isdigit() accepts and float() refuses
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())


@dataclass(frozen=True)
class RetryPolicy:
    """
    Exponential backoff with jitter.

    ``max_attempts`` counts the first try. The n-th retry waits between half and all of
    ``min(backoff_max, backoff_base * 2 ** (n - 1))`` seconds; a 429 waits at least its ``Retry-After``.
    A ``Retry-After`` longer than ``max_retry_after`` is not waited for: the call fails at once.
    """

    max_attempts: int = 5
    backoff_base: float = 0.5
    backoff_max: float = 30.0
    max_retry_after: float = 120.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.backoff_base < 0 or self.backoff_max < 0:
            raise ValueError("backoff_base and backoff_max must not be negative")

    def backoff(self, retry_number: int, rng: random.Random | None = None) -> float:
        ceiling = min(self.backoff_max, self.backoff_base * 2 ** max(0, retry_number - 1))
        return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)

    def delay_after_status(
        self, status: int, *, idempotent: bool, attempt: int, retry_after: str | None = None
    ) -> float | None:
        """Seconds to wait before resending after an HTTP ``status`` on try ``attempt``, or ``None``: give up."""
        if attempt >= self.max_attempts:
            return None
        if status == 429:
            wait = parse_retry_after(retry_after)
            if wait is not None and wait > self.max_retry_after:
                return None
            return self.backoff(attempt) if wait is None else wait
        if status in TRANSIENT_STATUSES and idempotent:
            return self.backoff(attempt)
        return None

    def delay_after_failure(self, failure: Failure, *, idempotent: bool, attempt: int) -> float | None:
        """Seconds to wait before resending after a transport ``failure``, or ``None``: give up."""
        if attempt >= self.max_attempts:
            return None
        if failure is Failure.NOT_SENT or idempotent:
            return self.backoff(attempt)
        return None
