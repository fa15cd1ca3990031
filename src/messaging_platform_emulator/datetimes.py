"""Date-times in requests, read as the platform reads them.

The API reference: timestamps are ISO 8601 date-times without a zone offset, such as ``2026-12-01T17:30:00``
(seconds optional; a fraction of up to seven digits, .NET's precision, is read and dropped). The platform's JSON
reader (ASP.NET Web API's) takes more, and the emulator takes what it takes, noting the departure:

- ``Z`` or an offset (``+02:00``, ``+0200``, ``-05``), as every JavaScript ``Date`` is written: converted to the
  platform's time, UTC. The only zone the platform documents is UTC (callback timestamps); the zone it reads
  schedule times in is not published, and the emulator's clock and answers are UTC, so UTC is the assumption;
- a date alone (``2026-12-01``, midnight) or a space for the ``T`` (``2026-12-01 17:30:00``), which .NET's
  date parser reads.

Anything else (the basic form ``20261201T173000``, a time alone, words) is not a date-time the platform reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from .violations import DATE_TIME_FORM, DATE_TIME_OFFSET

_DATE_TIME = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:(?P<sep>[T ])(?P<time>\d{2}:\d{2}(?::\d{2})?)(?:\.\d{1,7})?"
    r"(?P<zone>[Zz]|(?P<sign>[+-])(?P<hours>\d{2})(?::?(?P<minutes>\d{2}))?)?)?$"
)


@dataclass(frozen=True)
class ReadDateTime:
    """A date-time as the platform stores it (naive, its time: UTC, whole seconds), and how the text departed from
    the API reference's form (``rule`` None when it did not)."""

    value: datetime
    rule: str | None = None
    detail: str = ""


def read_date_time(text: str) -> ReadDateTime | None:
    """``text`` read as the platform reads a date-time, or None when it does not read it."""
    stripped = text.strip()
    match = _DATE_TIME.match(stripped)
    if match is None:
        return None
    try:
        value = datetime.fromisoformat(f"{match['date']}T{match['time'] or '00:00:00'}")
    except ValueError:  # a month 13, a 25th hour
        return None
    if match["zone"]:
        offset = timedelta()
        if match["sign"]:
            offset = timedelta(hours=int(match["hours"]), minutes=int(match["minutes"] or 0))
            if offset >= timedelta(hours=24):
                return None
            offset = -offset if match["sign"] == "-" else offset
        value -= offset
    shown = value.strftime("%Y-%m-%dT%H:%M:%S")
    if match["time"] is None or match["sep"] == " " or stripped != text:
        return ReadDateTime(value, DATE_TIME_FORM, f"sent {text!r}, read as {shown} (the form is date, T, time)")
    if match["zone"]:
        return ReadDateTime(value, DATE_TIME_OFFSET, f"sent {text!r}, read as {shown} (UTC, without the offset)")
    return ReadDateTime(value)


def parse_platform_datetime(text: str) -> datetime | None:
    """A date-time in the API reference's form only (``YYYY-MM-DDTHH:mm[:ss[.fffffff]]``, no offset), or None."""
    read = read_date_time(text)
    return read.value if read is not None and read.rule is None else None
