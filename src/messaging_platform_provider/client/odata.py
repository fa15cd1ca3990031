"""
OData ``$filter`` expressions built from values, for ``odata_filter=`` of ``list_campaigns``, ``list_contacts``,
``iter_contacts``, ``stream_contacts`` and their operators.

A filter written as ``f"Name eq '{name}'"`` lets ``name`` rewrite it: ``nosuch' or Name ne 'nosuch`` selects every
campaign. Here a value is always written as one OData literal and a field must be a property name::

    from messaging_platform_provider.client.odata import and_, eq, gt, literal

    hook.list_campaigns(odata_filter=eq("Name", name))  # Name eq 'O''Brien launch'
    hook.list_contacts(odata_filter=and_(gt("Id", 6000), eq("StatusId", 0)))  # (Id gt 6000) and (StatusId eq 0)
    f"Name eq {literal(name)}"  # the literal alone

Literals (OData v4): text in single quotes with each ``'`` doubled, ``true``/``false``, whole numbers as digits, a
finite float in decimal notation, ``None`` as ``null``. Anything else (NaN, bytes, a date-time, any other object)
raises ``MessagingPlatformValidationError`` naming the field or parameter, since no spelling of it is both safe and
certain to mean the same to the platform. Give a date-time as the text the platform compares, e.g.
``gt("Created", moment.strftime("%Y-%m-%dT%H:%M:%S"))``. A ``PhoneNumber`` is compared with text: a number there
(``15125550100``, what native rendering makes of ``+15125550100``) is refused (``values.phone_text``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.values import phone_text

__all__ = ["and_", "eq", "ge", "gt", "le", "literal", "lt", "ne", "not_", "or_"]

#: A property name, or a path of them (``Address/City``): ASCII letters, digits and ``_``, not starting with a digit.
_PROPERTY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*")
#: Words an OData expression reads as operators or literals, never as a property.
_KEYWORDS = frozenset({"eq", "ne", "gt", "ge", "lt", "le", "and", "or", "not", "true", "false", "null"})


def literal(value: Any, name: str = "value") -> str:
    """``value`` as one OData literal; ``name`` is what an error calls it (the field it is compared with)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))  # int(): an IntEnum member as its number, not its name
    if isinstance(value, float):
        if not math.isfinite(value):
            raise MessagingPlatformValidationError(name, f"{value!r} cannot be written as an OData literal")
        return repr(float(value))  # shortest exact decimal: 0.1, 1e-05, 1e+16
    if isinstance(value, str):
        if any(ord(c) < 32 for c in value):
            raise MessagingPlatformValidationError(name, "must not contain control characters such as line breaks")
        return "'" + value.replace("'", "''") + "'"
    raise MessagingPlatformValidationError(
        name,
        f"a {type(value).__name__} cannot be written as an OData literal; give text, a whole number, a finite "
        "float, true/false or None",
    )


def _property(field: Any) -> str:
    if not isinstance(field, str) or not _PROPERTY.fullmatch(field):
        raise MessagingPlatformValidationError(
            "field", f"{field!r} is not an OData property name (letters, digits and _, with / between names)"
        )
    if field in _KEYWORDS:
        raise MessagingPlatformValidationError("field", f"{field!r} is an OData keyword, not a property name")
    return field


def _comparison(field: Any, operator: str, value: Any) -> str:
    name = _property(field)
    if name.rsplit("/", 1)[-1].lower() == "phonenumber" and isinstance(value, int) and not isinstance(value, bool):
        phone_text(name, value)  # a contact's PhoneNumber is text: a number is one that lost its + (refused)
    return f"{name} {operator} {literal(value, name)}"


def eq(field: str, value: Any) -> str:
    """``field eq value``: ``eq("Name", "O'Brien")`` is ``Name eq 'O''Brien'``."""
    return _comparison(field, "eq", value)


def ne(field: str, value: Any) -> str:
    """``field ne value``."""
    return _comparison(field, "ne", value)


def gt(field: str, value: Any) -> str:
    """``field gt value``."""
    return _comparison(field, "gt", value)


def ge(field: str, value: Any) -> str:
    """``field ge value``."""
    return _comparison(field, "ge", value)


def lt(field: str, value: Any) -> str:
    """``field lt value``."""
    return _comparison(field, "lt", value)


def le(field: str, value: Any) -> str:
    """``field le value``."""
    return _comparison(field, "le", value)


def _condition(condition: Any) -> str:
    if not isinstance(condition, str) or not condition.strip():
        raise MessagingPlatformValidationError("conditions", f"{condition!r} is not a filter expression")
    return condition


def _joined(operator: str, conditions: tuple[str, ...]) -> str:
    if not conditions:
        raise MessagingPlatformValidationError("conditions", f"{operator}_ needs at least one condition")
    if len(conditions) == 1:
        return _condition(conditions[0])
    return f" {operator} ".join(f"({_condition(condition)})" for condition in conditions)


def and_(*conditions: str) -> str:
    """Every condition holds: ``(A) and (B)``; each is put in parentheses, so none can change another's meaning."""
    return _joined("and", conditions)


def or_(*conditions: str) -> str:
    """At least one condition holds: ``(A) or (B)``."""
    return _joined("or", conditions)


def not_(condition: str) -> str:
    """The condition does not hold: ``not (A)``."""
    return f"not ({_condition(condition)})"
