"""
The deadline of a wait: an absolute UTC instant as ISO text, fixed when the wait starts, so that it survives the
trigger's serialisation, a triggerer restart and a move to another process; nothing is measured with a monotonic
clock across processes. No Airflow import: the triggers use it in the triggerer's event loop.
"""

from __future__ import annotations

from datetime import datetime, timezone


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
