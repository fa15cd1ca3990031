"""Request body and query parsing for platform routes.

Spec section 1: property names are PascalCase and case-sensitive, so a body is read by exact name. A property
that matches a name the emulator reads only when case is ignored (``staticCode`` for ``StaticCode``) is refused
with 400 naming the right spelling, so a client's casing bug cannot pass unseen. Field readers collect every
problem and ``check()`` raises them together as one 400 response, each error naming its property. A nested
object (``nested``, ``object_list``) is read by a child ``Body`` that shares its parent's error list and names
its properties by path, e.g. ``Schedules[0].RunAt`` or ``ExternalCouponList.Name``.

Types follow the spec's tables: ``integer`` is a JSON integer literal (``3``, not ``3.0``), ``number`` any JSON
number, ``string`` a JSON string, ``boolean`` true or false. Timestamps are ISO 8601 date-times without a zone
offset (``2026-12-01T17:30:00``); one with ``Z`` or ``+02:00`` is refused.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
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
# A date-time in ISO 8601 extended form; the fraction (up to .NET's seven digits) is read and dropped.
_DATE_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2})?)(?:\.\d{1,7})?$")
# The same with a zone designator: Z or an offset such as +02:00, +0200 or -05.
_ZONED = re.compile(r"^\s*\d{4}-\d{2}-\d{2}T[\d:.]+(?:[Zz]|[+-]\d{2}(?::?\d{2})?)\s*$")


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


def parse_json_string(raw: bytes, object_type: str, name: str) -> str:
    """Parse a request body that must be a bare JSON string such as ``"SAVE10"`` (errors name ``name``)."""
    value = _load_json(raw, object_type, name)
    if not isinstance(value, str):
        raise bad_request(
            f'The request body must be the {name} as a bare JSON string, such as "SAVE10"; got {json.dumps(value)}.',
            object_type,
            property_name=name,
        )
    if not value.strip():
        raise bad_request(f"The {name} must not be empty.", object_type, PROPERTY_REQUIRED, name)
    return value


def is_http_url(text: str) -> bool:
    parts = urlsplit(text.strip())
    return parts.scheme.lower() in HTTP_SCHEMES and bool(parts.netloc)


class Body:
    """A JSON object body: exact (case-sensitive) property lookup, case-only misspellings refused, errors collected."""

    def __init__(
        self,
        data: Mapping[str, Any],
        object_type: str,
        *,
        prefix: str = "",
        errors: list[ErrorDetail] | None = None,
    ) -> None:
        self._values = {str(k): v for k, v in data.items()}
        self._spellings: dict[str, list[str]] = {}
        for given in self._values:
            self._spellings.setdefault(given.lower(), []).append(given)
        self._misspelt: set[str] = set()
        self.object_type = object_type
        self.prefix = prefix
        self.errors: list[ErrorDetail] = [] if errors is None else errors

    def _spelling(self, name: str) -> None:
        """Refuse (once) a property spelt like ``name`` except for case: names are case-sensitive (spec 1)."""
        others = [given for given in self._spellings.get(name.lower(), ()) if given != name]
        if others and name not in self._misspelt:
            self._misspelt.add(name)
            path = self.prefix + name
            wrong = ", ".join(repr(self.prefix + given) for given in others)
            message = (
                f"Property names are case-sensitive: {wrong} is not a property of {self.object_type}; "
                f"spell it {path!r}."
            )
            self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, self.object_type, path))

    def expect(self, *names: str) -> None:
        """Check the spelling of properties the current request does not otherwise read."""
        for name in names:
            self._spelling(name)

    def has(self, name: str) -> bool:
        self._spelling(name)
        return name in self._values

    def raw(self, name: str) -> Any:
        self._spelling(name)
        return self._values.get(name)

    # -- error collection -------------------------------------------------------------------------

    def invalid(self, name: str, message: str) -> None:
        self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, self.object_type, self.prefix + name))

    def missing(self, name: str, message: str | None = None) -> None:
        if name in self._misspelt:  # already reported under its right spelling
            return
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
        """An integer: a JSON integer literal (``3``; not ``3.0``, ``"3"`` or ``true``), as .NET reads an int."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int):
            self.invalid(name, f"{name} must be an integer; got {json.dumps(value)}.")
            return None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            low = "" if minimum is None else f" from {minimum}"
            high = "" if maximum is None else f" to {maximum}"
            self.invalid(name, f"{name} must be an integer{low}{high}; got {value}.")
            return None
        return value

    def number(self, name: str, *, required: bool = False, minimum: float | None = None) -> int | float | None:
        """A number: any JSON number (``2`` or ``2.5``; not ``"2"`` or ``true``); a whole one comes back as int."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or (isinstance(value, float) and not math.isfinite(value))
        ):
            self.invalid(name, f"{name} must be a number; got {json.dumps(value)}.")
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if minimum is not None and value < minimum:
            self.invalid(name, f"{name} must be a number of {minimum} or more; got {value}.")
            return None
        return value

    def choice(self, name: str, values: Mapping[int, str], *, required: bool = False) -> int | None:
        """A number (spec type ``number``) that must be one of ``values``, e.g. 0 (Static), 1 (Dynamic)."""
        number = self.number(name, required=required)
        if number is not None and number not in values:
            allowed = ", ".join(f"{key} ({label})" for key, label in values.items())
            self.invalid(name, f"{name} must be one of {allowed}; got {number}.")
            return None
        return None if number is None else int(number)

    def string(
        self, name: str, *, required: bool = False, max_length: int | None = None, allow_empty: bool = False
    ) -> str | None:
        """A string; when required, an empty or blank one counts as missing (as .NET's [Required]) unless
        ``allow_empty`` (then only null or absent is missing)."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, str):
            self.invalid(name, f"{name} must be a string; got {json.dumps(value)}.")
            return None
        if required and not allow_empty and not value.strip():
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
            self.invalid(name, f"{name} must be true or false; got {json.dumps(value)}.")
            return None
        return value

    def date_time(self, name: str, *, required: bool = False) -> datetime | None:
        """An ISO 8601 date-time without a zone offset (spec 1), e.g. ``2026-11-21T23:05:00``; whole seconds kept."""
        text = self.string(name, required=required)
        if text is None:
            return None
        if _ZONED.match(text):
            self.invalid(
                name,
                f"{name} must be an ISO 8601 date-time without a zone offset, such as 2026-11-21T23:05:00; "
                f"got {text!r}.",
            )
            return None
        parsed = parse_platform_datetime(text)
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


def parse_platform_datetime(text: str) -> datetime | None:
    """``YYYY-MM-DDTHH:mm[:ss[.fffffff]]`` (ISO 8601 extended form, no offset) as a naive datetime, whole seconds."""
    match = _DATE_TIME.match(text)
    if match is None:
        return None
    try:
        value = datetime.fromisoformat(match.group(1))
    except ValueError:
        return None
    return value.replace(microsecond=0)
