"""
Values written in the DAG file, checked when the operator is built: a typo (``week_day="WEDS"``) is then an import
error of the DAG file that names the parameter, not a task that fails at run time.

Only literals are checked. A Jinja template, an ``XComArg`` or anything else that gets its value when the task runs
is left to the same checks at run time (the client's, before any network call), so both moments apply one rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from messaging_platform_provider.client.operations import Operation

_JINJA_MARKS = ("{{", "{%", "{#")
_PLAIN = (int, float, bool, date, datetime, time, type(None))


def is_literal(value: Any) -> bool:
    """Whether ``value`` is final as written: no template text and nothing resolved at run time, at any depth."""
    if isinstance(value, str):
        return not any(mark in value for mark in _JINJA_MARKS)
    if isinstance(value, _PLAIN):
        return True
    if isinstance(value, Mapping):
        return all(is_literal(key) and is_literal(item) for key, item in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(is_literal(item) for item in value)
    return False


def check_literals(operation: Operation, values: Mapping[str, Any]) -> None:
    """
    Run the client's checks on each literal value of ``operation``'s path parameters and body fields (and
    ``extra``), one field at a time (rules that relate fields wait for run time, when every value is known). Raises
    ``MessagingPlatformValidationError`` naming the parameter.
    """
    from messaging_platform_provider.client.fields import declared, extra_fields
    from messaging_platform_provider.client.request import path_segment

    for name in operation.path_params:
        value = values.get(name)
        if name != "account_id" and value is not None and is_literal(value):
            path_segment(operation, name, value)
    for field in declared(operation.fields) if operation.fields is not None else ():
        value = values.get(field.key)
        if value is None or not is_literal(value):
            continue
        for convert in field.converts:
            value = convert(field.key, value, "UTC")
            if value is None:
                break
    if is_literal(values.get("extra")):
        extra_fields(values.get("extra"))


#: The ``map_index_template`` our operators' ``partial`` gives a mapped task.
MAP_LABEL = "{{ task.map_label }}"
