"""Request bodies as JSON, read as the platform's JSON reader reads them: objects that keep every member as sent
(``JsonObject``), and the bare integer and string bodies of keyword attachment and coupon redemption. A value of
another JSON type that the reader converts (``conversions.py``) is taken, and noted as a departure from the API
reference (``violations.py``); in strict mode it is refused.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from .conversions import integer_from, text_from
from .errors import PROPERTY_REQUIRED, bad_request
from .violations import REQUIRED_PROPERTY, TYPE_CONVERSION, RequestCheck, current

HTTP_SCHEMES = ("http", "https")


class JsonObject(dict[str, Any]):
    """A parsed JSON object that keeps its members as sent, in order, duplicates included (``pairs``); as a dict
    it holds the last value of each name, as the platform's reader does."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


def load_json(raw: bytes, object_type: str, property_name: str | None = None) -> Any:
    if not raw.strip():
        note(current(), property_name, REQUIRED_PROPERTY, "no request body")
        raise bad_request("A request body is required.", object_type, PROPERTY_REQUIRED, property_name)
    try:
        return json.loads(raw, object_pairs_hook=JsonObject)
    except (UnicodeDecodeError, ValueError) as exc:
        raise bad_request(
            f"The request body is not valid JSON: {exc}", object_type, property_name=property_name
        ) from exc


def note(check: RequestCheck | None, property_name: str | None, rule: str, detail: str) -> None:
    if check is not None:
        check.note(property_name, rule, detail)


def converted(name: str, object_type: str, value: Any, read: Any, kind: str) -> None:
    """Note a value the platform's reader converts; refuse it in strict mode."""
    check = current()
    note(check, name, TYPE_CONVERSION, f"sent {json.dumps(value)}, read as the {kind} {json.dumps(read)}")
    if check is not None and check.strict:
        raise bad_request(f"{name} must be {kind}; got {json.dumps(value)}.", object_type, property_name=name)


def parse_json_integer(raw: bytes, object_type: str, name: str) -> int:
    """Parse a request body that must be a bare JSON integer such as ``3001`` (errors name ``name``)."""
    value = load_json(raw, object_type, name)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    read = integer_from(value)
    if read is None:
        raise bad_request(
            f"The request body must be the {name} as a bare JSON integer, such as 3001; got {json.dumps(value)}.",
            object_type,
            property_name=name,
        )
    converted(name, object_type, value, read, "an integer")
    return read


def parse_json_string(raw: bytes, object_type: str, name: str) -> str:
    """Parse a request body that must be a bare JSON string such as ``"SAVE10"`` (errors name ``name``)."""
    value = load_json(raw, object_type, name)
    if not isinstance(value, str):
        read = text_from(value)
        if read is None:
            raise bad_request(
                f'The request body must be the {name} as a bare JSON string, such as "SAVE10"; got '
                f"{json.dumps(value)}.",
                object_type,
                property_name=name,
            )
        converted(name, object_type, value, read, "a string")
        value = read
    if not value.strip():
        note(current(), name, REQUIRED_PROPERTY, "an empty string")
        raise bad_request(f"The {name} must not be empty.", object_type, PROPERTY_REQUIRED, name)
    return value


def is_http_url(text: str) -> bool:
    parts = urlsplit(text.strip())
    return parts.scheme.lower() in HTTP_SCHEMES and bool(parts.netloc)
