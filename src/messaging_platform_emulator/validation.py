"""Request body parsing for platform routes.

The real server is a .NET Web API: it accepts property names in any casing, so bodies are read
case-insensitively. Field readers collect every problem and ``check()`` raises them together as one
400 response, each error naming its property.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from .errors import (
    PROPERTY_INVALID_VALUE,
    PROPERTY_REQUIRED,
    ErrorDetail,
    PlatformError,
    bad_request,
)


def parse_json_object(raw: bytes, object_type: str) -> Body:
    """Parse a request body that must be a JSON object."""
    if not raw.strip():
        raise bad_request("A request body is required.", object_type, PROPERTY_REQUIRED)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise bad_request(f"The request body is not valid JSON: {exc}", object_type) from exc
    if not isinstance(data, dict):
        raise bad_request("The request body must be a JSON object.", object_type)
    return Body(data, object_type)


class Body:
    """A JSON object body with case-insensitive property lookup and error collection."""

    def __init__(self, data: Mapping[str, Any], object_type: str) -> None:
        self._values = {str(k).lower(): v for k, v in data.items()}
        self.object_type = object_type
        self.errors: list[ErrorDetail] = []

    def has(self, name: str) -> bool:
        return name.lower() in self._values

    def raw(self, name: str) -> Any:
        return self._values.get(name.lower())

    # -- error collection -------------------------------------------------------------------------

    def invalid(self, name: str, message: str) -> None:
        self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, self.object_type, name))

    def missing(self, name: str) -> None:
        self.errors.append(ErrorDetail(PROPERTY_REQUIRED, f"The {name} field is required.", self.object_type, name))

    def check(self) -> None:
        """Raise every collected error as one 400 response."""
        if self.errors:
            raise PlatformError(400, list(self.errors))

    def _present(self, name: str, required: bool) -> bool:
        """True when the property holds a non-null value; records a missing required one."""
        if self.raw(name) is None:
            if required:
                self.missing(name)
            return False
        return True

    # -- typed readers (return None when absent, null or invalid) ---------------------------------

    def integer(
        self,
        name: str,
        *,
        required: bool = False,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            self.invalid(name, f"{name} must be an integer.")
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            low = "" if minimum is None else f" from {minimum}"
            high = "" if maximum is None else f" to {maximum}"
            self.invalid(name, f"{name} must be an integer{low}{high}; got {value}.")
            return None
        return value

    def string(self, name: str, *, required: bool = False) -> str | None:
        """A string; when required, an empty or blank string counts as missing (as .NET's [Required])."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, str):
            self.invalid(name, f"{name} must be a string.")
            return None
        if required and not value.strip():
            self.missing(name)
            return None
        return value

    def boolean(self, name: str, *, required: bool = False) -> bool | None:
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, bool):
            self.invalid(name, f"{name} must be true or false.")
            return None
        return value

    def date_time(self, name: str, *, required: bool = False) -> datetime | None:
        """An ISO 8601 date-time, with or without offset; returned as naive UTC, whole seconds."""
        text = self.string(name, required=required)
        if text is None:
            return None
        parsed = parse_iso_datetime(text)
        if parsed is None:
            self.invalid(name, f"{name} must be an ISO 8601 date-time such as 2026-11-21T23:05:00; got {text!r}.")
        return parsed


def parse_iso_datetime(text: str) -> datetime | None:
    text = text.strip()
    if text[-1:] in ("Z", "z"):  # Python 3.10's fromisoformat does not read the Z suffix
        text = text[:-1] + "+00:00"
    try:
        value = datetime.fromisoformat(text)
    except ValueError:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value.replace(microsecond=0)
