"""
Validation and conversion of field values, done before any network call.

Date-time rule: a ``datetime`` (stdlib or pendulum) or ISO 8601 string with an offset is converted to the
platform time zone and sent without offset; a value without offset is taken as already in that zone.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterable, Mapping
from datetime import date, datetime, time
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from messaging_platform_provider.client.errors import MessagingPlatformValidationError

SCHEDULE_TYPES = {"OneTime": 2, "Daily": 6, "Weekly": 7, "Monthly": 8}
WEEK_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_FULL_DAY_NAMES = {
    d.lower(): d[:3].upper() for d in ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
}
_RUN_AT = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")


def enum_value(field: str, value: Any, names: dict[str, int]) -> int:
    """Accept an enum member by name (case-insensitive) or number; name the allowed values otherwise."""
    allowed = [f"{name} ({number})" for name, number in names.items()]
    if isinstance(value, bool):
        raise MessagingPlatformValidationError(field, f"{value!r} is not valid", allowed)
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit()):
        if int(value) in names.values():
            return int(value)
    elif isinstance(value, str):
        for name, number in names.items():
            if name.lower() == value.strip().lower():
                return number
    raise MessagingPlatformValidationError(field, f"{value!r} is not valid", allowed)


def run_at(value: Any, field: str) -> str:
    if isinstance(value, time):
        return value.strftime("%H:%M:%S")
    if isinstance(value, str) and _RUN_AT.match(value.strip()):
        return value.strip()
    raise MessagingPlatformValidationError(field, f"{value!r} is not a time of day shaped HH:mm:ss, e.g. 09:30:00")


def _items(value: Any, field: str) -> list[str]:
    if isinstance(value, str):
        text_of_no_collection(field, value)
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, Iterable):
        return [str(p).strip() for p in value]
    return [str(value)]


def week_days(value: Any, field: str) -> str:
    days = []
    for item in _items(value, field):
        day = _FULL_DAY_NAMES.get(item.lower(), item.upper())
        if day not in WEEK_DAYS:
            raise MessagingPlatformValidationError(field, f"{item!r} is not a day of the week", WEEK_DAYS)
        if day not in days:
            days.append(day)
    if not days:
        raise MessagingPlatformValidationError(field, "needs at least one day", WEEK_DAYS)
    return ", ".join(days)


def month_days(value: Any, field: str) -> str:
    days: list[int] = []
    for item in _items(value, field):
        if not item.isdigit() or not 1 <= int(item) <= 31:
            raise MessagingPlatformValidationError(field, f"{item!r} is not a day of the month", ["1..31"])
        if int(item) not in days:
            days.append(int(item))
    if not days:
        raise MessagingPlatformValidationError(field, "needs at least one day", ["1..31"])
    return ",".join(str(d) for d in days)


def zone(name: str | None) -> ZoneInfo:
    try:
        return ZoneInfo(name or "UTC")
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise MessagingPlatformValidationError("timezone", f"{name!r} is not an IANA time zone name") from exc


_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
#: A UTC offset in any of ISO 8601's spellings: "+02:00", "+0200", "+02", with seconds "+02:00:30".
_OFFSET = re.compile(r"(?P<sign>[+-])(?P<hours>\d{2})(?::?(?P<minutes>\d{2})(?::?(?P<seconds>\d{2}))?)?")


def parse_iso_datetime(text: str) -> datetime:
    """
    An ISO 8601 date-time, naive or with ``Z`` or an offset; a date with ``Z`` or an offset and no time of day
    ("2026-12-01Z", "2026-12-01+02:00", "2026-12-01+0200") is midnight at that offset. Python's ``fromisoformat``
    takes any character between date and time, so it read "2026-12-01+02:00" as two o'clock. ``ValueError``
    for anything else (a lower-case ``z`` too: ISO 8601 writes the designator ``Z``).
    """
    text = text.strip()
    day, zone = text[:10], text[10:]
    if zone[:1] in ("Z", "+", "-") and _DATE.fullmatch(day):
        offset = _OFFSET.fullmatch(zone)
        if zone == "Z":
            text = f"{day}T00:00:00+00:00"
        elif offset is not None:
            seconds = f":{offset['seconds']}" if offset["seconds"] else ""
            text = f"{day}T00:00:00{offset['sign']}{offset['hours']}:{offset['minutes'] or '00'}{seconds}"
        else:
            raise ValueError(f"{text!r} has neither a time of day nor a UTC offset after its date")
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def to_datetime(value: Any, field: str) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        try:
            return parse_iso_datetime(value)
        except ValueError:
            pass
    raise MessagingPlatformValidationError(
        field, f"{value!r} is not a date-time; give a datetime, a pendulum DateTime or an ISO 8601 string"
    )


def platform_datetime(value: Any, field: str, platform_timezone: str | None = "UTC") -> datetime:
    """The value as a naive date-time in the platform zone."""
    moment = to_datetime(value, field)
    if moment.tzinfo is not None:
        moment = moment.astimezone(zone(platform_timezone)).replace(tzinfo=None)
    return datetime(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second)


def format_datetime(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def positive_int(field: str, value: Any) -> int:
    if isinstance(value, bool) or not str(value).strip().isdigit() or int(value) < 1:
        raise MessagingPlatformValidationError(field, f"must be a positive integer, got {value!r}")
    return int(value)


def int_list(field: str, value: Any) -> list[int]:
    if isinstance(value, str):
        text_of_no_collection(field, value)
    items = [value] if isinstance(value, (int, str)) else a_list(field, value)
    return [positive_int(field, item) for item in items]


def string_list(field: str, value: Any, *, max_length: int | None = None, phones: bool = False) -> list[str]:
    """
    A list of non-empty strings from a string or any iterable of strings (order kept, duplicates dropped). With
    ``phones``, the values are phone numbers, long codes or ids, and each must be text (``phone_text``).
    """
    one = isinstance(value, str) or (phones and not isinstance(value, Iterable))
    if isinstance(value, str):
        text_of_no_collection(field, value)
    items = [value] if one else a_list(field, value)
    result: list[str] = []
    for index, item in enumerate(items):
        if phones and item is not None:
            phone_text(field if one else f"{field}[{index}]", item)
        text = str(item).strip() if item is not None else ""
        if not text:
            raise MessagingPlatformValidationError(field, "must not hold empty values")
        if max_length is not None and len(text) > max_length:
            raise MessagingPlatformValidationError(field, f"{text[:20]!r}… is longer than {max_length} characters")
        if text not in result:
            result.append(text)
    return result


def http_url(field: str, value: Any, suffixes: tuple[str, ...] = ()) -> str:
    """
    An absolute http(s) URL (of a file ending in one of ``suffixes``, when given). An error does not repeat the
    URL: URLs carry tokens and credentials (a webhook's path, a query's ``token=``, ``user:secret@``).
    """
    from urllib.parse import urlsplit

    text = str(value or "").strip()
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MessagingPlatformValidationError(field, "is not an absolute http(s) URL with a host", ["http", "https"])
    if suffixes and not parts.path.lower().endswith(suffixes):
        raise MessagingPlatformValidationError(field, "must point at a file ending in", suffixes)
    return text


#: Day lists the platform may reformat (spacing, case) and answers with the one-character placeholder "*"
#: when they do not apply (spec 2.1).
_DAY_FIELDS = ("WeekDay", "MonthDay")
_EMPTY: tuple[Any, ...] = (None, [], "")


def comparable(field: str, value: Any) -> Any:
    """A field's value as sent or as answered, made comparable: empty is ``None``, day lists unformatted."""
    if field in _DAY_FIELDS and isinstance(value, str):
        value = value.replace(" ", "").upper()
        return None if value in ("", "*") else value
    return None if value in _EMPTY else value


def filter_expression(field: str, value: Any) -> str | None:
    """
    An OData ``$filter`` expression as the platform takes it (``Name eq 'Spring'``, ``CampaignTypeId eq 4``),
    passed on as written; ``None`` or blank sends no filter. Checked only for what can never be a filter.
    """
    if value is None:
        return None
    if not isinstance(value, str):
        raise MessagingPlatformValidationError(field, f"must be an OData $filter expression (text), got {value!r}")
    text = value.strip()
    if any(ord(c) < 32 for c in text):
        raise MessagingPlatformValidationError(field, "must not contain control characters such as line breaks")
    if text.count("'") % 2:
        raise MessagingPlatformValidationError(field, f"{text!r} has an unclosed quote (write '' for a quote inside)")
    return text or None


# -- the shape of a rendered value: what a Jinja template gives where a list, a mapping or a phone number belongs ---

#: Shown after a refusal of text where a list or a mapping belongs.
_RENDERS_TO_TEXT = "a Jinja template renders to text unless the DAG sets render_template_as_native_obj=True"
#: How a phone number stays text under ``render_template_as_native_obj=True`` (tried with Airflow's own rendering).
KEEP_IT_TEXT = (
    "keep it text: write it in quotes inside the text, \"'+15125550100'\" or \"'{{ params.long_code }}'\", or "
    'write "{{ params.long_code | tojson }}" (neither | string nor a Param of type string keeps it text)'
)


def shown_value(value: Any, limit: int = 60) -> str:
    """How an error message quotes a value: its ``repr``, cut short when longer than ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 10]}… ({len(text)} characters)"


def spelled_collection(value: Any) -> str | None:
    """
    ``"a list"`` or ``"a mapping"`` when ``value`` is the text of one, Python or JSON (what a template renders a list
    or a dict to: ``"['A1', 'B2']"``), else ``None``.
    """
    text = value.strip() if isinstance(value, str) else ""
    if text[:1] not in ("[", "(", "{"):
        return None
    for parse in (ast.literal_eval, json.loads):
        try:
            parsed = parse(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            continue
        if isinstance(parsed, dict):
            return "a mapping"
        if isinstance(parsed, (list, tuple, set)):
            return "a list"
    return None


def _wrong_shape(field: str, value: Any, what: str, *, echo: bool = True) -> MessagingPlatformValidationError:
    """
    ``field`` must be ``what`` (a list, a mapping); the error says what it got (the value itself with ``echo``) and
    how to pass ``what``.
    """
    if isinstance(value, str):
        spelled = spelled_collection(value)
        shown = shown_value(value) if echo else f"({len(value)} characters)"
        got = f"the text of {spelled}{',' if echo else ''} {shown}" if spelled else f"the text {shown}"
        fix = f"pass {what} or an upstream task's output (an XComArg); {_RENDERS_TO_TEXT}"
    else:
        got = f"{type(value).__name__} {shown_value(value)}" if echo else f"a value of type {type(value).__name__}"
        fix = f"pass {what} or an upstream task's output (an XComArg)"
    return MessagingPlatformValidationError(field, f"must be {what}, got {got}: {fix}")


def a_list(field: str, value: Any, what: str = "a list") -> list[Any]:
    """
    The items of a list, tuple or other iterable. Text (what a template renders to, even the text of a list), a
    mapping or a lone value is refused.
    """
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise _wrong_shape(field, value, what)
    return list(value)


def a_mapping(field: str, value: Any, what: str = "a mapping (a dict)") -> Mapping[str, Any]:
    """
    A mapping; text, even the text of a dict (what a template renders one to), is refused. The error does not repeat
    the value: request fields may carry a token (a callback URL's, in ``extra``).
    """
    if not isinstance(value, Mapping):
        raise _wrong_shape(field, value, what, echo=False)
    return value


def text_of_no_collection(field: str, value: str, what: str = "a list") -> None:
    """
    Where a list goes and one text stands for a list of one, text that spells a list or a mapping (a rendered
    template's ``"['A1', 'B2']"``) is refused rather than sent as one value.
    """
    if spelled_collection(value) is not None:
        raise _wrong_shape(field, value, what)


def phone_text(field: str, value: Any) -> str:
    """
    A phone number, long code or id, as text. A number is refused: under ``render_template_as_native_obj=True``
    Airflow reads every text of a templated field as a Python literal, so ``+15125550100`` (a template's, or
    written out) becomes the number 15125550100 and its ``+`` is lost.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        raise MessagingPlatformValidationError(
            field,
            f"got the number {value} where text belongs (a phone number or long code such as '+{value}', or an id "
            f"as text, '{value}'): with render_template_as_native_obj=True, Airflow reads every text of a templated "
            f"field as a Python literal, so '+{value}' (a template's or written out) gives {value}, without its +; "
            f"{KEEP_IT_TEXT}",
        )
    raise MessagingPlatformValidationError(
        field, f"must be text (a phone number, long code or id), got {type(value).__name__} {shown_value(value)}"
    )
