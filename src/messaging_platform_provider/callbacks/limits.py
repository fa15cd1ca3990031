"""
What the store can hold, checked on a validated callback before it is acknowledged or written.

A callback that passes the payload models but that the store could never hold (an ``AccountId`` beyond a 64-bit
integer, a ``CallbackTimestamp`` longer than its column, a ``Keyword`` that upper-casing lengthens past 255
characters, a NUL character, which PostgreSQL refuses in text, or text that is not valid UTF-8) would otherwise fail
every redelivery with 503. These checks turn it into a 422 naming the field, never the value, and the same checks
keep one such callback from failing the others written in the same transaction.

The limits are those of ``store.events_table``; the payload itself is stored as ASCII JSON text (non-ASCII and
control characters escaped), so only the columns and the JSON depth are checked here.
"""

from __future__ import annotations

import math
import re
from typing import Any

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_JSON_DEPTH = 32  # objects and arrays inside one another; callbacks of the spec need 3

# column: (payload field it comes from, longest text in characters)
_TEXT_COLUMNS: dict[str, tuple[str, int]] = {
    "transaction_id": ("TransactionId", 64),
    "keyword": ("Keyword", 255),
    "phone_number": ("PhoneNumber", 64),
    "callback_timestamp": ("CallbackTimestamp", 64),
}


def _error(field: str, msg: str) -> dict[str, Any]:
    return {"loc": [field], "msg": msg, "type": "store_limit"}


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_problem(value: Any, limit: int = MAX_JSON_DEPTH) -> dict[str, Any] | None:
    """
    Why a parsed JSON body cannot be taken (``{"loc", "msg", "type"}``), or None: objects and arrays nested more
    than ``limit`` deep, or a string or key with a lone surrogate (``"\\ud800"`` is valid JSON but no Unicode text:
    it could be neither stored nor handed on). Iterative: no recursion on hostile input.
    """
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return {"loc": [], "msg": "the body holds a lone surrogate (\\uD800-\\uDFFF)", "type": "unicode"}
            continue
        if isinstance(item, dict):
            children: list[Any] = [*item.keys(), *item.values()]
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            msg = f"the body nests objects and arrays more than {limit} deep"
            return {"loc": [], "msg": msg, "type": "json_depth"}
        stack.extend((child, depth + 1) for child in children)
    return None


def _text_problem(text: str, longest: int) -> str | None:
    if "\x00" in text:
        return "must not contain a NUL character"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode text (no lone surrogates)"
    if len(text) > longest:
        return f"is longer than the store holds ({longest} characters, after normalisation)"
    return None


def store_limit_errors(item: Any) -> list[dict[str, Any]]:
    """
    Why ``item`` (a ``store.NewCallback``) cannot be stored: ``{"loc", "msg", "type"}`` errors naming the payload
    field, never its value; empty when it fits.
    """
    errors: list[dict[str, Any]] = []
    if not INT64_MIN <= item.account_id <= INT64_MAX:
        errors.append(_error("AccountId", "must fit a signed 64-bit integer"))
    if not INT32_MIN <= item.callback_type <= INT32_MAX:
        errors.append(_error("CallbackType", "must fit a signed 32-bit integer"))
    for column, (field, longest) in _TEXT_COLUMNS.items():
        value = getattr(item, column)
        if value is None:
            continue
        problem = _text_problem(value, longest)
        if problem:
            errors.append(_error(field, problem))
    return errors


def reject_constant(name: str) -> Any:
    """``json.loads(parse_constant=...)``: NaN and Infinity are not JSON and cannot be handed on as JSON."""
    raise ValueError(f"{name} is not a JSON number")


def finite_float(text: str) -> float:
    """``json.loads(parse_float=...)``: ``1e400`` would become infinity, which JSON cannot carry on."""
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("a number out of range")
    return value
