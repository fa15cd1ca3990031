"""
Network conditions of the emulated platform: a latency added to every platform request, and a rate limit per
account (a token bucket) answered with 429 and ``Retry-After``, as a platform across the internet would.

Loopback answers in well under a millisecond and never refuses a caller, so bulk code that is slow or impolite
looks fine there. ``latency`` (seconds) is waited before each platform request is answered, whatever the answer.
``rate_limit`` (requests per second) refills each account's bucket, which holds ``burst`` requests (one second's
worth unless given); a request that finds its account's bucket empty is answered 429 with ``Retry-After`` in whole
seconds (at least 1, as HTTP has no fractions), and the platform does nothing with it. Requests whose path names no
account share one bucket. Time here is real time, not the emulator's scaled clock.

Set at start (``messaging-platform-emulator --latency 0.05 --rate-limit 200``) or at any time through the control
client (``set_conditions``); ``reset`` goes back to the conditions given at start.
"""

from __future__ import annotations

import math
import re
import threading
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

_ACCOUNT = re.compile(r"/account/([^/]+)")


class Conditions(BaseModel):
    """The conditions as posted to and answered by ``/_emulator/conditions``."""

    model_config = ConfigDict(extra="forbid")

    latency: float = Field(
        default=0.0, ge=0, le=60, description="Seconds waited before each platform request is answered."
    )
    rate_limit: float | None = Field(
        default=None, gt=0, description="Requests per second each account may make; none: no limit."
    )
    burst: int | None = Field(
        default=None,
        ge=1,
        description="Requests an account may make at once after a quiet spell (default: one second's).",
    )

    @property
    def bucket_size(self) -> float:
        if self.rate_limit is None:
            return math.inf
        return float(self.burst) if self.burst is not None else max(1.0, self.rate_limit)


class _Bucket:
    __slots__ = ("tokens", "at")

    def __init__(self, tokens: float, at: float) -> None:
        self.tokens = tokens
        self.at = at


class NetworkConditions:
    """The current conditions and the accounts' buckets; ``admit`` decides each platform request."""

    def __init__(self, start: Conditions | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self._start = start or Conditions()
        self._clock = clock
        self._lock = threading.Lock()
        self._current = self._start
        self._buckets: dict[str, _Bucket] = {}
        self.limited = 0  # requests answered 429 since the conditions were last set

    @property
    def current(self) -> Conditions:
        return self._current

    def set(self, conditions: Conditions) -> Conditions:
        """New conditions from now on; every bucket starts full."""
        with self._lock:
            self._current = conditions
            self._buckets.clear()
            self.limited = 0
            return conditions

    def reset(self) -> None:
        self.set(self._start)

    def admit(self, path: str) -> float | None:
        """Take a token from the bucket of the account ``path`` names: ``None`` if there was one, else the seconds
        until there will be."""
        conditions = self._current
        if conditions.rate_limit is None:
            return None
        match = _ACCOUNT.search(path)
        account = match.group(1) if match else ""
        now = self._clock()
        size = conditions.bucket_size
        with self._lock:
            bucket = self._buckets.get(account)
            if bucket is None:
                bucket = self._buckets[account] = _Bucket(size, now)
            bucket.tokens = min(size, bucket.tokens + (now - bucket.at) * conditions.rate_limit)
            bucket.at = now
            if bucket.tokens >= 1 - 1e-9:  # a token refilled to the tick counts, float rounding or not
                bucket.tokens = max(0.0, bucket.tokens - 1)
                return None
            self.limited += 1
            return (1 - bucket.tokens) / conditions.rate_limit


def retry_after_header(wait: float) -> str:
    """``Retry-After`` for a wait of ``wait`` seconds: whole seconds, rounded up, at least 1."""
    return str(max(1, math.ceil(wait)))
