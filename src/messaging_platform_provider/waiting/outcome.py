"""
The task's side of a wait, for the sensors and the create-and-wait operators: whether it defers by default, which
try deferred, and the verdict turned into the task's outcome (the sync loop's payload and the trigger's event have
one shape, so both paths end the task alike). Needs Airflow, unlike ``decision``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.version_compat import (
    AirflowException,
    AirflowFailException,
    AirflowSensorTimeout,
    AirflowTaskTimeout,
    conf,
)
from messaging_platform_provider.waiting.deadline import deadline_after, earliest, seconds_left

if TYPE_CHECKING:
    from airflow.sdk import Context


#: the outcomes a wait ends with: the trigger's event and the sync loop's payload (``decision.Outcome``)
OUTCOMES = ("success", "failure", "timeout")


def malformed_event(event: Any, outcomes: tuple[str, ...] = OUTCOMES) -> str | None:
    """
    What is wrong with a trigger's event, or ``None``: an event that is not a mapping, or whose ``outcome`` is
    missing or none of ``outcomes``. Such an event fails the task, naming this; it never counts as success.
    """
    if not isinstance(event, Mapping):
        return f"the trigger's event is not a mapping: {event!r}"
    outcome = event.get("outcome")
    if outcome is None:
        return f"the trigger's event has no outcome: {dict(event)!r}"
    if outcome not in outcomes:
        expected = ", ".join(outcomes)
        return f"the trigger's event has an unknown outcome {outcome!r} (not one of {expected}): {dict(event)!r}"
    return None


def default_deferrable() -> bool:
    """``[operators] default_deferrable``: what ``deferrable=None`` means, as for Airflow's own operators."""
    return conf.getboolean("operators", "default_deferrable", fallback=False)


def try_number(context: Context) -> int:
    """The running try, stamped into every trigger so its event says which try deferred."""
    return int(context["ti"].try_number)


#: Which deadline a deferred wait's trigger watches (the earlier one), handed to the resumed task in the
#: deferral's kwargs (``timed_by``): the wait's own (the sensor's ``timeout``, ``wait_timeout``), or the try's
#: ``execution_timeout``.
WAIT_DEADLINE = "wait"
EXECUTION_DEADLINE = "execution_timeout"


def execution_deadline(context: Context, execution_timeout: timedelta | None) -> str | None:
    """
    When the try's ``execution_timeout`` runs out: the try's start plus the timeout, as UTC ISO text (``None``: no
    ``execution_timeout``). Read when the task defers, from the start of its try. A deferred task is never timed by
    Airflow's ``execution_timeout`` (it times only the worker's share), so the deferrable paths hand this deadline
    to their trigger (``watched_deadline``).
    """
    if execution_timeout is None:
        return None
    return deadline_after(execution_timeout.total_seconds(), context["ti"].start_date)


def watched_deadline(
    context: Context, execution_timeout: timedelta | None, wait_deadline: str | None
) -> tuple[str | None, str]:
    """The deadline a deferred wait's trigger watches, the earlier of the two, and which one it is."""
    ends = execution_deadline(context, execution_timeout)
    deadline = earliest(wait_deadline, ends)
    return deadline, (EXECUTION_DEADLINE if ends is not None and deadline == ends else WAIT_DEADLINE)


def execution_timed_out(
    context: Context, execution_timeout: timedelta | None, event: Any, timed_by: str | None
) -> bool:
    """
    Whether the trigger's event is the timeout of the try's ``execution_timeout`` (not of the wait): decided by
    which deadline the trigger watched (``timed_by``, from the deferral's kwargs). A task resumed without those
    kwargs (``dag.test()`` passes the event alone) compares the clock with the try's start instead.
    """
    if not isinstance(event, Mapping) or event.get("outcome") != "timeout":
        return False
    if timed_by is not None:
        return timed_by == EXECUTION_DEADLINE
    left = seconds_left(execution_deadline(context, execution_timeout))
    return left is not None and left <= 0


def execution_timeout_error(execution_timeout: timedelta | None) -> AirflowTaskTimeout:
    """What a deferred task raises once its ``execution_timeout`` passed: the error Airflow raises in a worker."""
    return AirflowTaskTimeout(f"execution_timeout ({execution_timeout}) passed while the task was deferred")


def resumed_by_earlier_try(context: Context, event: Mapping[str, Any], log: Any) -> bool:
    """
    Whether this resume carries the event of an earlier try's deferral. Airflow 3.0 keeps a deferred task's
    resume point across retries (apache/airflow#56704, fixed in 3.1), so a retry would start by re-reading the
    event that ended the failed try, and fail the same way without doing anything. The deferrable operators and
    sensors then start the try afresh (a create adopts what the earlier try made). Never true from Airflow 3.1.
    """
    if not isinstance(event, Mapping):
        return False  # malformed: ``conclude`` (or the sensor's ``result_from_event``) fails the task, naming it
    deferred = event.get("try_number")
    if deferred is None or int(deferred) == try_number(context):
        return False
    log.warning(
        "Try %s resumed with the event of try %s (an Airflow 3.0 retry); starting this try afresh.",
        try_number(context),
        deferred,
    )
    return True


def conclude(event: Mapping[str, Any], *, sensor: bool = False) -> dict[str, Any]:
    """
    Success returns the latest answer of every schedule (by id). A ProcessStatus that failed, or an error answer
    that is not transient (a 404: the schedule is gone), ends the task without retries: a retry would find the
    same. Transient errors beyond the limit and a timeout are ordinary failures, which Airflow retries. A malformed
    event (``malformed_event``) is an ordinary failure too, naming what is wrong with it.
    """
    problem = malformed_event(event)
    if problem is not None:
        raise AirflowException(problem)
    outcome, message = event.get("outcome"), str(event.get("message", ""))
    if outcome == "success":
        schedules: dict[str, Any] = dict(event.get("schedules") or {})
        return schedules
    if outcome == "timeout":
        raise AirflowSensorTimeout(message) if sensor else AirflowException(message)
    if event.get("ended_status") or event.get("fatal"):
        raise AirflowFailException(message)
    raise AirflowException(message or f"the wait failed: {dict(event)!r}")
