"""Violations: where a platform request departed from the API reference.

The platform is an ASP.NET Web API service, and its JSON reader takes more than the API reference describes:
property names in another case, a date-time with ``Z`` or an offset, ``"3"`` for an integer, properties the
resource does not have (ignored). The emulator takes them as the platform would, and records each departure
as a violation, so that a test sees that its client sent something other than what the reference says. In strict
mode (``Emulator(strict=True)``, ``--strict``) every departure is refused with 400 naming the property instead.
A required property that is missing is refused in both modes, as the platform refuses it, and recorded too.

While a platform request is handled, ``TrafficMiddleware`` opens a ``RequestCheck`` (a context variable) that the
body readers (``validation.Body``) note departures in; when the request is answered, they go to the
``ViolationBook`` with the answer's status.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

MAX_RECORDS = 10_000
#: Answer rows; named here because the book's ``list`` method hides the builtin inside the class.
Rows = list[dict[str, Any]]

PROPERTY_CASE = "property-case"
DUPLICATE_PROPERTY = "duplicate-property"
DATE_TIME_OFFSET = "date-time-offset"
DATE_TIME_FORM = "date-time-form"
TYPE_CONVERSION = "type-conversion"
UNKNOWN_PROPERTY = "unknown-property"
REQUIRED_PROPERTY = "required-property"
PATH_CASE = "path-case"

#: Each rule, as the API reference states it.
RULES = {
    PROPERTY_CASE: "property names are PascalCase and case-sensitive",
    DUPLICATE_PROPERTY: "a property is given once",
    DATE_TIME_OFFSET: "timestamps are ISO 8601 date-times without a zone offset",
    DATE_TIME_FORM: "timestamps are ISO 8601 date-times (date, T, time)",
    TYPE_CONVERSION: "a property has the type its resource gives it",
    UNKNOWN_PROPERTY: "a request carries the properties of its resource only",
    REQUIRED_PROPERTY: "a required property is given",
    PATH_CASE: "paths are written as the API reference writes them",
}


@dataclass(frozen=True)
class Departure:
    """One departure noticed in a request: the property (a path such as ``Schedules[0].RunAt``), the rule, and
    what was sent."""

    property: str | None
    rule: str
    detail: str


@dataclass
class RequestCheck:
    """The departures of the request being handled; ``strict``: whether they are refused."""

    method: str
    path: str
    strict: bool = False
    departures: list[Departure] = field(default_factory=list)

    def note(self, property_name: str | None, rule: str, detail: str) -> None:
        self.departures.append(Departure(property_name, rule, detail))


_CURRENT: ContextVar[RequestCheck | None] = ContextVar("messaging_platform_emulator_request_check", default=None)


def current() -> RequestCheck | None:
    """The check of the platform request being handled (None outside one)."""
    return _CURRENT.get()


@contextmanager
def checking(method: str, path: str, *, strict: bool) -> Iterator[RequestCheck]:
    """Open the check of one platform request for the code that handles it."""
    check = RequestCheck(method, path, strict)
    token = _CURRENT.set(check)
    try:
        yield check
    finally:
        _CURRENT.reset(token)


@dataclass(frozen=True)
class Violation:
    """A recorded departure: the request (method, path as sent), the property, the rule, what was sent, and the
    status the request was answered with (400 when it was refused, in strict mode or for a missing property)."""

    seq: int
    method: str
    path: str
    property: str | None
    rule: str
    detail: str
    status: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __str__(self) -> str:
        where = f"{self.property}: " if self.property else ""
        return f"{self.method} {self.path} (answered {self.status}): {where}{self.rule}: {self.detail}"


class ViolationBook:
    """Thread-safe, bounded (oldest dropped beyond ``max_records``) record of violations, by arrival.

    ``clear`` (the emulator's reset) empties the record as ``list`` shows it; ``recorded_after`` still finds
    violations cleared since, so that a test that resets the emulator cannot hide its own.
    """

    def __init__(self, *, strict: bool = False, max_records: int = MAX_RECORDS) -> None:
        self.strict = strict
        self._lock = threading.Lock()
        self._records: deque[Violation] = deque(maxlen=max_records)
        self._last_seq = 0
        self._cleared_through = 0

    def add(self, check: RequestCheck, status: int | None) -> None:
        with self._lock:
            for departure in check.departures:
                self._last_seq += 1
                self._records.append(
                    Violation(
                        self._last_seq,
                        check.method,
                        check.path,
                        departure.property,
                        departure.rule,
                        departure.detail,
                        status,
                    )
                )

    @property
    def last_seq(self) -> int:
        with self._lock:
            return self._last_seq

    def list(self, since: int = 0) -> Rows:
        """The violations after sequence number ``since`` that were not cleared, oldest first."""
        with self._lock:
            floor = max(since, self._cleared_through)
            return [v.to_dict() for v in self._records if v.seq > floor]

    def recorded_after(self, seq: int) -> tuple[Violation, ...]:
        """Every violation after ``seq`` still held, cleared or not."""
        with self._lock:
            return tuple(v for v in self._records if v.seq > seq)

    def clear(self) -> int:
        with self._lock:
            cleared = sum(1 for v in self._records if v.seq > self._cleared_through)
            self._cleared_through = self._last_seq
            return cleared
