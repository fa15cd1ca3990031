"""Scaled emulator clock: UTC time that can run faster or slower than real time, or jump forward."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone


def format_timestamp(moment: datetime) -> str:
    """Platform timestamp form: ISO 8601, second precision, no zone offset (the value is UTC)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


class ScaledClock:
    """Emulator time = anchor + (real monotonic time since anchor) * scale + jumps.

    ``scale`` 0 freezes the clock (useful for deterministic tests that then ``advance``).
    """

    def __init__(
        self,
        wall: Callable[[], datetime] | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self._wall = wall or (lambda: datetime.now(timezone.utc))
        self._monotonic = monotonic or time.monotonic
        self._lock = threading.Lock()
        self._anchor_time = self._wall()
        self._anchor_mono = self._monotonic()
        self._scale = 1.0

    def now(self) -> datetime:
        """Current emulator time, timezone-aware UTC."""
        with self._lock:
            return self._now_locked()

    def _now_locked(self) -> datetime:
        elapsed = (self._monotonic() - self._anchor_mono) * self._scale
        return self._anchor_time + timedelta(seconds=elapsed)

    @property
    def scale(self) -> float:
        with self._lock:
            return self._scale

    def set_scale(self, scale: float) -> None:
        """From now on, emulator time runs ``scale`` times as fast as real time."""
        if scale < 0:
            raise ValueError("scale must be >= 0")
        with self._lock:
            self._anchor_time = self._now_locked()
            self._anchor_mono = self._monotonic()
            self._scale = float(scale)

    def advance(self, seconds: float) -> None:
        """Jump emulator time forward."""
        if seconds < 0:
            raise ValueError("advance_seconds must be >= 0")
        with self._lock:
            self._anchor_time += timedelta(seconds=seconds)

    def reset(self) -> None:
        """Back to real UTC time at scale 1."""
        with self._lock:
            self._anchor_time = self._wall()
            self._anchor_mono = self._monotonic()
            self._scale = 1.0
