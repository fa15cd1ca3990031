"""
A package's names imported from their modules on first use (PEP 562), so that importing the package imports none
of them: a DAG file that names one class does not load what the others need.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> tuple[list[str], Callable[[str], Any]]:
    """
    ``__all__`` and the module ``__getattr__`` of ``package``, from ``where``: each exported name and the module
    (relative to the package) that defines it.
    """

    def __getattr__(name: str) -> Any:
        if name in where:
            return getattr(import_module(f"{package}.{where[name]}"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return sorted(where), __getattr__
