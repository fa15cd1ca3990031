"""
The deadline of a wait: an absolute UTC instant as ISO text, fixed when the wait starts, so that it survives the
trigger's serialisation, a triggerer restart and a move to another process; nothing is measured with a monotonic
clock across processes. No Airflow import: the triggers use it in the triggerer's event loop.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

#: How long after a wait's deadline Airflow's own deferral timeout is set. The trigger reports the deadline itself,
#: so that the task resumes and ends as it should (a create-and-wait whose ``execution_timeout`` passed stops what it
#: started). When Airflow's timeout fires first, the task fails without resuming: nothing could stop that work
#: (the problem apache/airflow#67360 fixed for dbt Cloud). Airflow's timeout stays, as the backstop for a trigger
#: that cannot report.
DEFERRAL_BACKSTOP = timedelta(seconds=60)


def deadline_after(seconds: float | None, now: datetime | None = None) -> str | None:
    """An absolute UTC instant ``seconds`` from now, as ISO text (survives serialisation and restarts)."""
    if seconds is None:
        return None
    start = now or datetime.now(timezone.utc)
    return datetime.fromtimestamp(start.timestamp() + float(seconds), timezone.utc).isoformat()


def seconds_left(deadline: str | None, now: datetime | None = None) -> float | None:
    if deadline is None:
        return None
    end = datetime.fromisoformat(deadline)
    return (end - (now or datetime.now(timezone.utc))).total_seconds()


def bounded_pause(pause: float, left: float | None) -> float:
    """``pause``, cut short so as not to sleep past a deadline ``left`` seconds away (``None``: no deadline)."""
    return pause if left is None else max(0.0, min(pause, left))


def earliest(*deadlines: str | None) -> str | None:
    """The first of the given deadlines (UTC ISO text); ``None`` when none is set."""
    given = [deadline for deadline in deadlines if deadline is not None]
    return min(given, key=datetime.fromisoformat) if given else None


def deferral_timeout(deadline: str | None, now: datetime | None = None) -> timedelta | None:
    """Airflow's deferral timeout for a trigger that reports ``deadline`` itself: ``DEFERRAL_BACKSTOP`` after it."""
    left = seconds_left(deadline, now)
    if left is None:
        return None
    return timedelta(seconds=max(0.0, left)) + DEFERRAL_BACKSTOP
