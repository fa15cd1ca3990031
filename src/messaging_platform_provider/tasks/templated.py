"""
``Templated[T]``, the type of every operator and sensor parameter that Airflow renders before the task runs: the
value itself, a Jinja template (text, rendered when the task runs) or an ``XComArg`` (``op.output["Id"]``, a
``@task``'s result), resolved when the task runs.

A rendered template is text even where the value is a number; the provider converts it (``"3001"`` is the id
3001) and checks every value before any request.

For a type checker ``Templated[T]`` takes any value. The attribute that keeps a parameter holds what was given
until Airflow renders it and the final value after, and Python's types cannot say "an ``XComArg`` now, an ``int``
when the task runs"; so mypy accepts templates and ``XComArg``s in a DAG file, and the provider's own checks (when
the operator is built, for literals, and before any request) say what a value must be.
"""

from __future__ import annotations

from typing import Any, TypeAlias, TypeVar, Union

T = TypeVar("T")

Templated: TypeAlias = Union[T, Any]  # noqa: UP007 (a generic alias, subscripted as Templated[int])
