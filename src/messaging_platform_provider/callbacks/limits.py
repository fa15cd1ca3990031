"""
What a callback must be for every system it is handed to, checked before it is acknowledged or written.

A 200 from the receiver means the callback is stored *and* every consumer can carry it: the triggerer's messages
(msgpack, which refuses integers beyond 64 bits), Airflow's XCom serializer (which treats property names such as
``__classname__`` and ``__type`` as its own), PostgreSQL's JSONB columns (which refuse U+0000) and the store's own
columns. A callback that one of them would refuse is answered 422 naming the field, never the value: stored, it
would stop a triggerer or fail every task that reads it, and redelivering it would fail the same way.

- ``json_problem``: the parsed body's structure (nesting depth, lone surrogates), checked before the token.
- ``carriage_errors``: the payload as stored and handed on, over every field at any depth: integers within a signed
  64-bit integer, no U+0000 in any string or property name, no property name starting with ``__``, strings and
  names of bounded length.
- ``store_limit_errors``: the store's columns (their lengths after normalisation, the account and type ranges).
"""

from __future__ import annotations

import math
import re
from typing import Any

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
MAX_JSON_DEPTH = 32  # objects and arrays inside one another; callbacks of the spec need 3
MAX_TEXT_CHARS = 16_384  # any string value (an SMS of ten parts is 1,600 characters)
MAX_NAME_CHARS = 255  # any property name
MAX_ERRORS = 20  # errors listed in one answer
RESERVED_PREFIX = "__"  # Airflow's serializers own such names (``__classname__``, ``__type``, ``__var``)

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
    if len(text) > longest:
        return f"is longer than the store holds ({longest} characters, after normalisation)"
    return None


def _string_problem(text: str, longest: int) -> str | None:
    if "\x00" in text:
        return "must not contain U+0000 (PostgreSQL cannot store it)"
    if len(text) > longest:
        return f"is longer than {longest} characters"
    return None


def _name_problem(name: str) -> str | None:
    if name.startswith(RESERVED_PREFIX):
        return f"property names starting with {RESERVED_PREFIX} are reserved by Airflow's serializers"
    return _string_problem(name, MAX_NAME_CHARS)


def carriage_errors(payload: Any) -> list[dict[str, Any]]:
    """
    Why the payload could not be carried by every consumer: ``{"loc", "msg", "type": "carriage"}`` errors, ``loc``
    the path of the field (``["Campaign", "Items", 0]``), never its value; empty when it can. Iterative: no recursion
    on hostile input (``json_problem`` has bounded the depth already).
    """
    errors: list[dict[str, Any]] = []
    stack: list[tuple[list[Any], Any]] = [([], payload)]
    while stack and len(errors) < MAX_ERRORS:
        path, item = stack.pop()
        problem: str | None = None
        if isinstance(item, bool) or item is None or isinstance(item, float):
            continue
        if isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                problem = "must fit a signed 64-bit integer"
        elif isinstance(item, str):
            problem = _string_problem(item, MAX_TEXT_CHARS)
        elif isinstance(item, dict):
            for key in item:
                name_problem = _name_problem(str(key))
                if name_problem is not None:
                    errors.append({"loc": [*path, key], "msg": name_problem, "type": "carriage"})
            stack.extend(([*path, key], value) for key, value in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend(([*path, index], value) for index, value in reversed(list(enumerate(item))))
        if problem is not None:
            errors.append({"loc": path, "msg": problem, "type": "carriage"})
    return errors[:MAX_ERRORS]


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
