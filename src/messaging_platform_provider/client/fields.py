"""
How a request body is declared, once, and turned into what the platform receives.

A body is a ``TypedDict`` of snake_case keys (``client/bodies.py``). The wire name is the key in PascalCase
(``single_use_content_id`` is ``SingleUseContentId``); where the platform spells it otherwise, the key says so with
``Wire`` (``valid_rolling_offset`` is ``ValidRollingOffSet``). Further ``Annotated`` markers say how a value is
checked and converted before any network call: ``Named`` for an enumeration given by name or number, ``Moment`` for
a date-time sent in the platform's time zone, and so on.

The client's methods, the operators' template fields and their signature test, and the retry-safe create's match
fields are all read from these declarations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, get_type_hints

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.values import (
    a_list,
    a_mapping,
    enum_value,
    format_datetime,
    http_url,
    int_list,
    month_days,
    platform_datetime,
    positive_int,
    run_at,
    string_list,
    week_days,
)

#: ``convert(key, value, platform_timezone)``: the value as sent, or a validation error naming the key (the name the
#: user wrote).
Convert = Callable[[str, Any, str], Any]


@dataclass(frozen=True)
class Wire:
    """The platform's name of a field, where it is not the key in PascalCase."""

    name: str


@dataclass(frozen=True)
class Named:
    """An enumeration: a member's name (any case) or its number, sent as the number."""

    values: Mapping[str, int]

    def __call__(self, name: str, value: Any, platform_timezone: str) -> Any:
        return enum_value(name, value, dict(self.values))


@dataclass(frozen=True)
class Texts:
    """
    A list of non-empty strings (a single string is a list of one), duplicates dropped; the text of a list (a
    rendered template's ``"['A1', 'B2']"``) is refused. ``phones``: phone numbers, long codes or ids, each of which
    must be text: a number is what native rendering makes of ``+15125550100`` (``values.phone_text``).
    """

    max_length: int | None = None
    phones: bool = False

    def __call__(self, name: str, value: Any, platform_timezone: str) -> Any:
        return string_list(name, value, max_length=self.max_length, phones=self.phones)


@dataclass(frozen=True)
class Url:
    """An absolute http(s) URL, optionally of a file with one of ``suffixes``."""

    suffixes: tuple[str, ...] = ()

    def __call__(self, name: str, value: Any, platform_timezone: str) -> Any:
        return http_url(name, value, self.suffixes)


def not_blank(name: str, value: Any, platform_timezone: str) -> Any:
    """Text that is more than white space."""
    if not str(value).strip():
        raise MessagingPlatformValidationError(name, "must not be empty")
    return value


def count(name: str, value: Any, platform_timezone: str) -> Any:
    """A whole number of at least 0 (a rendered template's digits are one)."""
    number = whole(name, value, platform_timezone)
    if number is not None and number < 0:
        raise MessagingPlatformValidationError(name, f"must be a whole number of at least 0, got {value!r}")
    return number


def whole(name: str, value: Any, platform_timezone: str) -> Any:
    """
    A whole number. A template renders to text, so its digits are taken as the number, and a template that
    renders to nothing (``""``) leaves the field out.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip() if isinstance(value, str) else "?"
    if not text:
        return None
    if not text.lstrip("-").isdigit():
        raise MessagingPlatformValidationError(name, f"must be a whole number, got {value!r}")
    return int(text)


def moment(name: str, value: Any, platform_timezone: str) -> Any:
    """A date-time, sent without offset in the platform's time zone (``values.platform_datetime``)."""
    return format_datetime(platform_datetime(value, name, platform_timezone))


def mapping(name: str, value: Any, platform_timezone: str) -> Any:
    """A mapping (a JSON object); text, even the text of a dict, is refused (``values.a_mapping``)."""
    return a_mapping(name, value)


def listed(name: str, value: Any, platform_timezone: str) -> Any:
    """A list (a JSON array) of any items; text, even the text of a list, is refused (``values.a_list``)."""
    return a_list(name, value)


def extra_fields(extra: Any) -> dict[str, Any]:
    """An operator's or hook method's ``extra``, the fields a declaration does not know: a mapping, or nothing."""
    return {} if extra is None or extra == "" else dict(a_mapping("extra", extra))


def identifier(name: str, value: Any, platform_timezone: str) -> Any:
    return positive_int(name, value)


def identifiers(name: str, value: Any, platform_timezone: str) -> Any:
    return int_list(name, value)


def time_of_day(name: str, value: Any, platform_timezone: str) -> Any:
    return run_at(value, name)


def day_names(name: str, value: Any, platform_timezone: str) -> Any:
    return week_days(value, name)


def day_numbers(name: str, value: Any, platform_timezone: str) -> Any:
    return month_days(value, name)


def flag(name: str, value: Any, platform_timezone: str) -> Any:
    """True or false; a template renders to text, so ``"True"``/``"false"`` are read as what they say."""
    if isinstance(value, str):
        if value.strip().lower() not in ("true", "false"):
            raise MessagingPlatformValidationError(name, f"must be true or false, got {value!r}")
        return value.strip().lower() == "true"
    return bool(value)


@dataclass(frozen=True)
class Field:
    """One declared field: its key, its wire name and the checks its value passes through, in order."""

    key: str
    wire: str
    converts: tuple[Convert, ...]


def pascal(key: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in key.split("_"))


@cache
def declared(body: type) -> tuple[Field, ...]:
    """The fields of a body declaration, in declaration order."""
    fields = []
    for key, hint in get_type_hints(body, include_extras=True).items():
        markers = getattr(hint, "__metadata__", ())
        wire = next((m.name for m in markers if isinstance(m, Wire)), pascal(key))
        fields.append(Field(key, wire, tuple(m for m in markers if callable(m) and not isinstance(m, Wire))))
    return tuple(fields)


def keys(body: type) -> tuple[str, ...]:
    """The snake_case keys of a body declaration (the parameters of its operators)."""
    return tuple(field.key for field in declared(body))


def wire_names(body: type) -> tuple[str, ...]:
    return tuple(field.wire for field in declared(body))


def to_wire(
    body: type,
    values: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
    platform_timezone: str = "UTC",
    required: Iterable[str] = (),
) -> dict[str, Any]:
    """
    The request body: every declared key whose value is not ``None`` (nor becomes it: see ``whole``), checked and
    converted, under its wire name; ``extra`` (fields this declaration does not know) merged on top. A key of
    ``required`` must have a value.
    """
    sent: dict[str, Any] = {}
    for field in declared(body):
        value = values.get(field.key)
        if value is None:
            if field.key in required:
                raise MessagingPlatformValidationError(field.key, "is required")
            continue
        for convert in field.converts:
            value = None if value is None else convert(field.key, value, platform_timezone)
        if value is not None:
            sent[field.wire] = value
    sent.update(extra_fields(extra))
    return sent
