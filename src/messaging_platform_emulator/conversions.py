"""The conversions the platform's JSON reader makes between JSON types (Json.NET, which ASP.NET Web API reads
request bodies with): a string of digits for an integer, a string of a number for a number, ``"true"``/``"false"``
or an integer for a boolean, a number or a boolean for a string. Each answers None when the value does not
convert; the caller reports the value as invalid then.
"""

from __future__ import annotations

import re

_INTEGER = re.compile(r"^\s*[+-]?\d+\s*$")
_NUMBER = re.compile(r"^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$")


def integer_from(value: object) -> int | None:
    """A string of an integer (``"3"``, ``" -3 "``: .NET's ``int.TryParse``) as that integer."""
    if isinstance(value, str) and _INTEGER.match(value):
        return int(value)
    return None


def number_from(value: object) -> int | float | None:
    """A string of a number (``"2.5"``, ``"3"``) as that number; a whole one as an int."""
    if isinstance(value, str) and _NUMBER.match(value):
        number = float(value)
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    return None


def boolean_from(value: object) -> bool | None:
    """``"true"``/``"false"`` in any case (.NET's ``bool.TryParse``), or an integer (non-zero: true)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and not isinstance(value, bool):
        return value != 0
    return None


def text_from(value: object) -> str | None:
    """A number or a boolean as .NET writes it as text: ``5`` → ``"5"``, ``2.5`` → ``"2.5"``, ``true`` →
    ``"True"``."""
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value).replace("e", "E")
    return None
