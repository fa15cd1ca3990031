"""
Waiting on action schedules: the one decision function and the one error classification that the sync sensor,
the deferrable trigger and the create-and-wait operators all use, so the paths cannot decide differently.

No Airflow import: the trigger runs it in the triggerer's event loop, the sensor in a worker.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    is_transient_status,
)
from messaging_platform_provider.client.retry import RetryPolicy
from messaging_platform_provider.waiting.deadline import bounded_pause, seconds_left
from messaging_platform_provider.waiting.defaults import (
    DEFAULT_FAILURE,
    DEFAULT_MAX_TRANSIENT_ERRORS,
    DEFAULT_SUCCESS,
    PROCESS_STATUSES,
)


class Outcome(str, enum.Enum):
    SUCCESS = "success"
    FAILURE = "failure"
    WAIT = "wait"
    TIMEOUT = "timeout"


class ErrorClass(str, enum.Enum):
    TRANSIENT = "transient"  # no answer, 408, 429, 5xx: poll again after a backoff, a bounded number of times
    FATAL = "fatal"  # 401, 403, 404 and every other 4xx: waiting longer cannot help


def classify_error(status: int | None) -> ErrorClass:
    """The error classification shared by every waiting path: the client's ``is_transient_status``."""
    return ErrorClass.TRANSIENT if is_transient_status(status) else ErrorClass.FATAL


@dataclass(frozen=True)
class WaitRules:
    """Which ProcessStatus values end the wait, and how many transient errors in a row are tolerated."""

    success: tuple[str, ...] = DEFAULT_SUCCESS
    failure: tuple[str, ...] = DEFAULT_FAILURE
    max_transient_errors: int = DEFAULT_MAX_TRANSIENT_ERRORS
    backoff: RetryPolicy = field(default_factory=lambda: RetryPolicy(backoff_base=1.0, backoff_max=30.0))

    def __post_init__(self) -> None:
        if not self.success:
            raise MessagingPlatformValidationError("success_statuses", "needs at least one status", PROCESS_STATUSES)
        overlap = set(self.success) & set(self.failure)
        if overlap:
            raise MessagingPlatformValidationError(
                "success_statuses", f"{sorted(overlap)} cannot also be failure statuses"
            )
        if self.max_transient_errors < 0:
            raise MessagingPlatformValidationError("max_transient_errors", "must be at least 0")

    @classmethod
    def build(
        cls,
        success: Iterable[str] | None,
        failure: Iterable[str] | None,
        max_transient_errors: int = DEFAULT_MAX_TRANSIENT_ERRORS,
    ) -> WaitRules:
        return cls(
            tuple(success) if success is not None else DEFAULT_SUCCESS,
            tuple(failure) if failure is not None else DEFAULT_FAILURE,
            max_transient_errors,
        )

    def to_kwargs(self) -> dict[str, Any]:
        """The rules as the trigger's arguments (JSON-ready): what sensor and operators defer with, and serialize."""
        return {
            "success_statuses": list(self.success),
            "failure_statuses": list(self.failure),
            "max_transient_errors": self.max_transient_errors,
        }


@dataclass(frozen=True)
class Step:
    """What one poll decided. ``errors`` is the count of transient errors in a row after this poll."""

    outcome: Outcome
    message: str
    errors: int = 0
    status: str | None = None
    unknown_status: bool = False
    retry_in: float | None = None  # seconds to wait before the next poll after a transient error
    fatal: bool = False  # an answer that neither waiting nor a retry of the task can change (``ErrorClass.FATAL``)


def decide(
    rules: WaitRules,
    *,
    schedule: Mapping[str, Any] | None = None,
    error_status: int | None = None,
    error_text: str = "",
    errors: int = 0,
    label: str = "schedule",
) -> Step:
    """
    Judge one poll: either the schedule answered (``schedule``) or the call failed (``error_status``, ``None``
    when no answer arrived). Success and failure statuses end the wait; any other status waits, and a status
    outside ``PROCESS_STATUSES`` is flagged so the caller can log it once.
    """
    if schedule is None:
        if classify_error(error_status) is ErrorClass.FATAL:
            return Step(
                Outcome.FAILURE, f"{label}: {error_text or f'HTTP {error_status}'}; waiting cannot help", fatal=True
            )
        count = errors + 1
        if count > rules.max_transient_errors:
            return Step(
                Outcome.FAILURE,
                f"{label}: {count} transient errors in a row (limit {rules.max_transient_errors}): {error_text}",
                count,
            )
        return Step(Outcome.WAIT, f"{label}: transient error {count}: {error_text}", count,
                    retry_in=rules.backoff.backoff(count))  # fmt: skip
    status = str(schedule.get("ProcessStatus"))
    if status in rules.success:
        return Step(Outcome.SUCCESS, f"{label} ended {status}", status=status)
    if status in rules.failure:
        return Step(Outcome.FAILURE, f"{label} ended {status}", status=status)
    unknown = status not in PROCESS_STATUSES
    return Step(Outcome.WAIT, f"{label} is {status}", status=status, unknown_status=unknown)


def event_payload(outcome: Outcome, message: str, schedules: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The trigger's event, and what the worker reads back (``waiting.outcome.conclude``)."""
    return {"outcome": outcome.value, "message": message, "schedules": dict(schedules or {})}


def timeout_step(deadline: str | None) -> Step:
    return Step(Outcome.TIMEOUT, f"deadline {deadline} passed while waiting")


class WarningLog(Protocol):
    """Where a loop logs the warnings of ``Watch.record``: a task's or a trigger's logger."""

    def warning(self, event: Any, *args: Any, **kw: Any) -> Any: ...


class Watch:
    """
    The bookkeeping of one wait on several schedules, shared by the sync and async loops: they only differ in
    how they fetch a schedule, then hand the answer (or the error) to ``record``.
    """

    def __init__(self, rules: WaitRules, action_id: int | str, schedule_ids: Iterable[int | str]) -> None:
        self.rules = rules
        self.action_id = action_id
        self.schedule_ids = [str(s) for s in schedule_ids]
        self.steps: dict[str, Step] = {}
        self.errors: dict[str, int] = dict.fromkeys(self.schedule_ids, 0)
        self.last: dict[str, dict[str, Any]] = {}  # the latest answer per schedule
        self._unknown_logged: set[str] = set()

    def pending(self) -> list[str]:
        return [s for s in self.schedule_ids if s not in self.steps or self.steps[s].outcome is not Outcome.SUCCESS]

    def record(
        self,
        schedule_id: str,
        *,
        schedule: Mapping[str, Any] | None = None,
        error_status: int | None = None,
        error_text: str = "",
    ) -> str | None:
        """Judge one poll of ``schedule_id``; returns a warning to log when a status is unknown (once each)."""
        label = f"schedule {schedule_id} of action {self.action_id}"
        step = decide(
            self.rules,
            schedule=schedule,
            error_status=error_status,
            error_text=error_text,
            errors=self.errors[schedule_id],
            label=label,
        )
        self.errors[schedule_id] = step.errors
        self.steps[schedule_id] = step
        if schedule is not None:
            self.last[schedule_id] = dict(schedule)
        if step.unknown_status and schedule_id not in self._unknown_logged:
            self._unknown_logged.add(schedule_id)
            return f"{label} has an unknown ProcessStatus {step.status!r}; still waiting"
        return None

    def record_error(self, schedule_id: str, error: MessagingPlatformApiError) -> str | None:
        """Judge a poll of ``schedule_id`` that failed: ``record`` with the error's status and text."""
        return self.record(schedule_id, error_status=error.status, error_text=str(error))

    def verdict(self) -> Step | None:
        """The first failure ends the wait; success only once every schedule has succeeded; else ``None``."""
        for step in self.steps.values():
            if step.outcome is Outcome.FAILURE:
                return step
        if self.pending():
            return None
        statuses = {step.status for step in self.steps.values()}
        status = statuses.pop() if len(statuses) == 1 else None
        return Step(Outcome.SUCCESS, "; ".join(s.message for s in self.steps.values()), status=status)

    def pause(self, poll_interval: float) -> float:
        retries = [s.retry_in for s in self.steps.values() if s.retry_in is not None and s.outcome is Outcome.WAIT]
        return min([poll_interval, *retries])

    def payload(self, step: Step) -> dict[str, Any]:
        """The trigger event / sync result: outcome, message and the latest answer of every schedule."""
        payload = event_payload(step.outcome, step.message, self.last)
        payload["ended_status"] = step.status  # set when a ProcessStatus (not an error) decided the wait
        payload["fatal"] = step.fatal  # an error answer that a retry of the task would get again
        payload["action_id"] = self.action_id
        return payload


def after_round(
    watch: Watch, verdict: Step | None, *, poll_interval: float, deadline: str | None
) -> tuple[Step | None, float]:
    """
    What follows a round of polls, the same for the sync and the async loop: the step that ends the wait (the
    round's verdict, or a timeout once the deadline has passed without one); else ``None`` and the pause before the
    next round (``Watch.pause``), cut short at the deadline.
    """
    left = seconds_left(deadline)
    if verdict is None and left is not None and left <= 0:
        verdict = timeout_step(deadline)
    if verdict is not None:
        return verdict, 0.0
    return None, bounded_pause(watch.pause(poll_interval), left)
