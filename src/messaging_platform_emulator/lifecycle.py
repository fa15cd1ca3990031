"""Schedule run lifecycle, computed lazily from the emulator clock (no background work).

A one-time schedule is Pending for ``pending_seconds`` from the start of its plan, then Processing for
``processing_seconds``, then ends with ``outcome``. Recurring schedules stay Pending. An abort turns a
schedule Aborted at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from .clock import format_timestamp

Outcome = Literal["Completed", "Failed", "Aborted"]
OUTCOMES: tuple[str, ...] = ("Completed", "Failed", "Aborted")

PENDING = "Pending"
PROCESSING = "Processing"
ABORTED = "Aborted"
TERMINAL = frozenset(OUTCOMES)


@dataclass(frozen=True)
class Behaviour:
    """How long a one-time run waits and runs (emulator seconds), and how it ends."""

    pending_seconds: float = 0.2
    processing_seconds: float = 0.3
    outcome: Outcome = "Completed"

    def to_dict(self) -> dict[str, Any]:
        return {
            "pending_seconds": self.pending_seconds,
            "processing_seconds": self.processing_seconds,
            "outcome": self.outcome,
        }


@dataclass
class RunPlan:
    start: datetime
    behaviour: Behaviour
    one_time: bool
    aborted_at: datetime | None = None

    @property
    def processing_from(self) -> datetime:
        return self.start + timedelta(seconds=self.behaviour.pending_seconds)

    @property
    def finished_at(self) -> datetime:
        return self.processing_from + timedelta(seconds=self.behaviour.processing_seconds)

    def status(self, now: datetime) -> str:
        if self.aborted_at is not None and now >= self.aborted_at:
            return ABORTED
        if not self.one_time or now < self.processing_from:
            return PENDING
        if now < self.finished_at:
            return PROCESSING
        return self.behaviour.outcome

    def logs(self, now: datetime) -> list[dict[str, str]] | None:
        aborted_at = self.aborted_at if self.aborted_at is not None and now >= self.aborted_at else None
        entries: list[tuple[datetime, str]] = []
        started = self.one_time and now >= self.processing_from
        if started and (aborted_at is None or aborted_at >= self.processing_from):
            entries.append((self.processing_from, "Run started."))
        if aborted_at is not None:
            entries.append((aborted_at, "Run aborted by user."))
        elif self.one_time and now >= self.finished_at:
            entries.append((self.finished_at, f"Run {self.behaviour.outcome.lower()}."))
        if not entries:
            return None
        return [{"Message": message, "LogDate": format_timestamp(moment)} for moment, message in entries]
