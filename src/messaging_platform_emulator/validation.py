"""Request body and query parsing for platform routes.

The real server is a .NET Web API: it accepts property names in any casing, so bodies are read
case-insensitively. Field readers collect every problem and ``check()`` raises them together as one
400 response, each error naming its property. A nested object (``nested``, ``object_list``) is read by a
child ``Body`` that shares its parent's error list and names its properties by path, e.g.
``Schedules[0].RunAt`` or ``ExternalCouponList.Name``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from .errors import (
    PROPERTY_INVALID_VALUE,
    PROPERTY_REQUIRED,
    ErrorDetail,
    PlatformError,
    bad_request,
)

HTTP_SCHEMES = ("http", "https")


def _load_json(raw: bytes, object_type: str, property_name: str | None = None) -> Any:
    if not raw.strip():
        raise bad_request("A request body is required.", object_type, PROPERTY_REQUIRED, property_name)
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        raise bad_request(
            f"The request body is not valid JSON: {exc}", object_type, property_name=property_name
        ) from exc


def parse_json_object(raw: bytes, object_type: str) -> Body:
    """Parse a request body that must be a JSON object."""
    data = _load_json(raw, object_type)
    if not isinstance(data, dict):
        raise bad_request("The request body must be a JSON object.", object_type)
    return Body(data, object_type)


def parse_json_integer(raw: bytes, object_type: str, name: str) -> int:
    """Parse a request body that must be a bare JSON integer such as ``3001`` (errors name ``name``)."""
    value = _load_json(raw, object_type, name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad_request(
            f"The request body must be the {name} as a bare JSON integer, such as 3001; got {json.dumps(value)}.",
            object_type,
            property_name=name,
        )
    return value


def is_http_url(text: str) -> bool:
    parts = urlsplit(text.strip())
    return parts.scheme.lower() in HTTP_SCHEMES and bool(parts.netloc)


class Body:
    """A JSON object body with case-insensitive property lookup and error collection."""

    def __init__(
        self,
        data: Mapping[str, Any],
        object_type: str,
        *,
        prefix: str = "",
        errors: list[ErrorDetail] | None = None,
    ) -> None:
        self._values = {str(k).lower(): v for k, v in data.items()}
        self.object_type = object_type
        self.prefix = prefix
        self.errors: list[ErrorDetail] = [] if errors is None else errors

    def has(self, name: str) -> bool:
        return name.lower() in self._values

    def raw(self, name: str) -> Any:
        return self._values.get(name.lower())

    # -- error collection -------------------------------------------------------------------------

    def invalid(self, name: str, message: str) -> None:
        self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, self.object_type, self.prefix + name))

    def missing(self, name: str, message: str | None = None) -> None:
        path = self.prefix + name
        text = message or f"The {path} field is required."
        self.errors.append(ErrorDetail(PROPERTY_REQUIRED, text, self.object_type, path))

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

    def string(self, name: str, *, required: bool = False, max_length: int | None = None) -> str | None:
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
        if max_length is not None and len(value) > max_length:
            self.invalid(name, f"{name} must be at most {max_length} characters long; got {len(value)}.")
            return None
        return value

    def url(self, name: str, *, required: bool = False) -> str | None:
        """An absolute http or https URL."""
        text = self.string(name, required=required)
        if text is None:
            return None
        if not is_http_url(text):
            self.invalid(name, f"{name} must be an absolute http or https URL; got {text!r}.")
            return None
        return text.strip()

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

    # -- lists and nested objects -----------------------------------------------------------------

    def _list(self, name: str, required: bool) -> list[Any] | None:
        """A JSON array; when required, an empty one counts as missing."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, list):
            self.invalid(name, f"{name} must be a list.")
            return None
        if required and not value:
            self.missing(name, f"{self.prefix}{name} must hold at least one value.")
            return None
        return value

    def string_list(
        self,
        name: str,
        *,
        required: bool = False,
        max_length: int | None = None,
        accept: Callable[[str], bool] | None = None,
        rule: str = "a non-empty string",
    ) -> list[str] | None:
        """A list of non-empty strings, each passing ``accept`` (described by ``rule``); the first bad one is named."""
        values = self._list(name, required)
        if values is None:
            return None
        for index, value in enumerate(values):
            good = isinstance(value, str) and bool(value.strip())
            good = good and (max_length is None or len(value) <= max_length) and (accept is None or accept(value))
            if not good:
                self.invalid(name, f"{name}[{index}] must be {rule}; got {json.dumps(value)}.")
                return None
        return list(values)

    def integer_list(self, name: str, *, minimum: int | None = None) -> list[int] | None:
        values = self._list(name, False)
        if values is None:
            return None
        for index, value in enumerate(values):
            if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
                low = "" if minimum is None else f" of {minimum} or more"
                self.invalid(name, f"{name}[{index}] must be an integer{low}; got {json.dumps(value)}.")
                return None
        return list(values)

    def nested(self, name: str, object_type: str) -> Body | None:
        """A JSON object property, read by a child body that reports into this one."""
        if not self._present(name, False):
            return None
        value = self.raw(name)
        if not isinstance(value, dict):
            self.invalid(name, f"{name} must be an object.")
            return None
        return Body(value, object_type, prefix=f"{self.prefix}{name}.", errors=self.errors)

    def object_list(self, name: str, object_type: str) -> list[Body] | None:
        """A list of JSON objects, each read by a child body named ``name[i]``."""
        values = self._list(name, False)
        if values is None:
            return None
        children = []
        for index, value in enumerate(values):
            if not isinstance(value, dict):
                self.invalid(name, f"{name}[{index}] must be an object.")
                return None
            children.append(Body(value, object_type, prefix=f"{self.prefix}{name}[{index}].", errors=self.errors))
        return children


def read_paging(top: str | None, skip: str | None, object_type: str) -> tuple[int | None, int]:
    """OData ``$top`` and ``$skip`` query options: whole numbers of 0 or more (``$top`` None: no limit)."""
    errors: list[ErrorDetail] = []

    def whole(name: str, text: str | None) -> int | None:
        if text is None:
            return None
        if not (text.isascii() and text.isdigit()):
            message = f"{name} must be a whole number of 0 or more; got {text!r}."
            errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, object_type, name))
            return None
        return int(text)

    top_value, skip_value = whole("$top", top), whole("$skip", skip)
    if errors:
        raise PlatformError(400, errors)
    return top_value, skip_value or 0


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
