"""Request body parsing for platform routes, as the platform's JSON reader reads bodies.

The API reference says property names are PascalCase and case-sensitive, timestamps have no zone offset, and each
property has a type. The platform (ASP.NET Web API) reads more: names in any case (when one property is given in
several spellings, or twice, the last one is read), date-times with an offset (``datetimes.py``), values of
another JSON type it converts (``conversions.py``); and it ignores properties its resource does not have. A
``Body`` reads the same (where a property is found: ``properties.py``), and notes each departure from the
reference in the request's ``RequestCheck`` (``violations.py``); in strict mode each is also an error. A missing
required property is an error in both modes.

Field readers collect every problem and ``check()`` raises them together as one 400 response, each error naming
its property; it first notes the properties nobody read (unknown ones). A nested object (``nested``,
``object_list``) is read by a child ``Body`` that shares its parent's errors and names its properties by path,
e.g. ``Schedules[0].RunAt`` or ``ExternalCouponList.Name``. An ``integer`` is never ``3.0``: the reader refuses it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from .conversions import boolean_from, integer_from, number_from, text_from
from .datetimes import read_date_time
from .errors import PROPERTY_INVALID_VALUE, PROPERTY_REQUIRED, ErrorDetail, PlatformError, bad_request
from .properties import Properties, RequestBodies
from .request_json import is_http_url, load_json, note
from .violations import REQUIRED_PROPERTY, TYPE_CONVERSION

__all__ = ["Body", "is_http_url", "parse_json_object"]


def parse_json_object(raw: bytes, object_type: str) -> Body:
    """Parse a request body that must be a JSON object."""
    data = load_json(raw, object_type)
    if not isinstance(data, dict):
        raise bad_request("The request body must be a JSON object.", object_type)
    return Body(data, object_type)


class Body:
    """A JSON object body, read as the platform reads it (see the module); problems collected, then ``check()``."""

    def __init__(
        self,
        data: Mapping[str, Any],
        object_type: str,
        *,
        prefix: str = "",
        shared: RequestBodies | None = None,
        closed: bool = True,
    ) -> None:
        self.object_type = object_type
        self.prefix = prefix
        self._shared = RequestBodies() if shared is None else shared
        self.properties = Properties(data, object_type, prefix, self._shared, closed=closed)

    @property
    def errors(self) -> list[ErrorDetail]:
        return self._shared.errors

    def _depart(self, name: str, rule: str, detail: str, refusal: str | None) -> None:
        self._shared.depart(self.object_type, self.prefix + name, rule, detail, refusal)

    def expect(self, *names: str) -> None:
        """Check the spelling of properties the current request does not otherwise read."""
        self.properties.expect(*names)

    def ignore(self, *names: str) -> None:
        """Properties the resource has that a request may carry and the platform does not read (``Id``,
        ``Created`` …, as a read-modify-write sends them): not unknown ones."""
        self.properties.ignore(*names)

    def has(self, name: str) -> bool:
        return self.properties.lookup(name)[0]

    def raw(self, name: str) -> Any:
        return self.properties.lookup(name)[1]

    # -- error collection -------------------------------------------------------------------------

    def invalid(self, name: str, message: str) -> None:
        self.errors.append(ErrorDetail(PROPERTY_INVALID_VALUE, message, self.object_type, self.prefix + name))

    def missing(self, name: str, message: str | None = None) -> None:
        path = self.prefix + name
        text = message or f"The {path} field is required."
        note(self._shared.check, path, REQUIRED_PROPERTY, text)
        self.errors.append(ErrorDetail(PROPERTY_REQUIRED, text, self.object_type, path))

    def check(self) -> None:
        """Note the properties no reader looked at (unknown ones: ignored, or errors in strict mode), then raise
        every collected error as one 400 response."""
        self._shared.note_unknown()
        if self._shared.errors:
            raise PlatformError(400, list(self._shared.errors))

    def _present(self, name: str, required: bool) -> bool:
        """True when the property holds a non-null value; records a missing required one."""
        if self.raw(name) is None:
            if required:
                self.missing(name)
            return False
        return True

    def _convert(self, name: str, value: Any, read: Any, kind: str) -> Any:
        """``read``, the value the platform's reader makes of ``value``; a departure (refused in strict mode)."""
        self._depart(
            name,
            TYPE_CONVERSION,
            f"sent {json.dumps(value)}, read as {json.dumps(read)}",
            f"{name} must be {kind}; got {json.dumps(value)}.",
        )
        return read

    # -- typed readers (return None when absent, null or invalid) ---------------------------------

    def integer(
        self,
        name: str,
        *,
        required: bool = False,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int | None:
        """An integer: a JSON integer literal (``3``; not ``3.0`` or ``true``), or a string of one, converted."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if isinstance(value, bool) or not isinstance(value, int):
            read = integer_from(value)
            if read is None:
                self.invalid(name, f"{name} must be an integer; got {json.dumps(value)}.")
                return None
            value = self._convert(name, value, read, "an integer")
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            low = "" if minimum is None else f" from {minimum}"
            high = "" if maximum is None else f" to {maximum}"
            self.invalid(name, f"{name} must be an integer{low}{high}; got {value}.")
            return None
        return int(value)

    def number(self, name: str, *, required: bool = False, minimum: float | None = None) -> int | float | None:
        """A number: any JSON number (``2`` or ``2.5``), or a string of one, converted; a whole one as an int."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if isinstance(value, str) and number_from(value) is not None:
            value = self._convert(name, value, number_from(value), "a number")
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
        """A number (API type ``number``) that must be one of ``values``, e.g. 0 (Static), 1 (Dynamic)."""
        number = self.number(name, required=required)
        if number is not None and number not in values:
            allowed = ", ".join(f"{key} ({label})" for key, label in values.items())
            self.invalid(name, f"{name} must be one of {allowed}; got {number}.")
            return None
        return None if number is None else int(number)

    def string(
        self, name: str, *, required: bool = False, max_length: int | None = None, allow_empty: bool = False
    ) -> str | None:
        """A string (a number or boolean converted to its text); when required, an empty or blank one counts as
        missing (as .NET's [Required]) unless ``allow_empty`` (then only null or absent is missing)."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, str):
            read = text_from(value)
            if read is None:
                self.invalid(name, f"{name} must be a string; got {json.dumps(value)}.")
                return None
            value = self._convert(name, value, read, "a string")
        if required and not allow_empty and not value.strip():
            self.missing(name)
            return None
        if max_length is not None and len(value) > max_length:
            self.invalid(name, f"{name} must be at most {max_length} characters long; got {len(value)}.")
            return None
        return str(value)

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
        """true or false (``"true"``/``"false"`` or an integer converted)."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if not isinstance(value, bool):
            read = boolean_from(value)
            if read is None:
                self.invalid(name, f"{name} must be true or false; got {json.dumps(value)}.")
                return None
            value = self._convert(name, value, read, "true or false")
        return bool(value)

    def date_time(self, name: str, *, required: bool = False) -> datetime | None:
        """A date-time (``datetimes.py``): ``2026-11-21T23:05:00``; an offset converted to UTC, a date alone or a
        space separator read, each a departure; whole seconds kept."""
        if not self._present(name, required):
            return None
        value = self.raw(name)
        if isinstance(value, str) and not value.strip():  # the platform's reader takes "" for a date-time as null
            if required:
                self.missing(name)
            return None
        read = read_date_time(value) if isinstance(value, str) else None
        if read is None:
            self.invalid(name, f"{name} must be an ISO 8601 date-time such as 2026-11-21T23:05:00; got {value!r}.")
            return None
        if read.rule is not None:
            self._depart(
                name,
                read.rule,
                read.detail,
                f"{name} must be an ISO 8601 date-time without a zone offset, such as 2026-11-21T23:05:00; "
                f"got {value!r}.",
            )
        return read.value

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
        """A list of non-empty strings (numbers converted to text), each passing ``accept`` (described by
        ``rule``); the first bad one is named."""
        values = self._list(name, required)
        if values is None:
            return None
        read = []
        for index, value in enumerate(values):
            item = f"{name}[{index}]"
            if not isinstance(value, str) and text_from(value) is not None:
                value = self._convert(item, value, text_from(value), "a string")
            good = isinstance(value, str) and bool(value.strip())
            good = good and (max_length is None or len(value) <= max_length) and (accept is None or accept(value))
            if not good:
                self.invalid(name, f"{item} must be {rule}; got {json.dumps(value)}.")
                return None
            read.append(value)
        return read

    def integer_list(self, name: str, *, minimum: int | None = None) -> list[int] | None:
        """A list of integers (strings of integers converted)."""
        values = self._list(name, False)
        if values is None:
            return None
        read = []
        for index, value in enumerate(values):
            if isinstance(value, str) and integer_from(value) is not None:
                value = self._convert(f"{name}[{index}]", value, integer_from(value), "an integer")
            if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
                low = "" if minimum is None else f" of {minimum} or more"
                self.invalid(name, f"{name}[{index}] must be an integer{low}; got {json.dumps(value)}.")
                return None
            read.append(value)
        return read

    def nested(self, name: str, object_type: str, *, closed: bool = True) -> Body | None:
        """A JSON object property, read by a child body that reports into this one (``closed``: its unread
        properties are unknown ones)."""
        if not self._present(name, False):
            return None
        value = self.raw(name)
        if not isinstance(value, dict):
            self.invalid(name, f"{name} must be an object.")
            return None
        return Body(value, object_type, prefix=f"{self.prefix}{name}.", shared=self._shared, closed=closed)

    def object_list(self, name: str, object_type: str, *, closed: bool = True) -> list[Body] | None:
        """A list of JSON objects, each read by a child body named ``name[i]``."""
        values = self._list(name, False)
        if values is None:
            return None
        children = []
        for index, value in enumerate(values):
            if not isinstance(value, dict):
                self.invalid(name, f"{name}[{index}] must be an object.")
                return None
            prefix = f"{self.prefix}{name}[{index}]."
            children.append(Body(value, object_type, prefix=prefix, shared=self._shared, closed=closed))
        return children
