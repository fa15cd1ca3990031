"""Sphinx configuration: Markdown pages (MyST), API reference from docstrings. Built with warnings as errors."""

from __future__ import annotations

import atexit
import inspect
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

# Importing the provider imports Airflow, which reads AIRFLOW_HOME: never touch a real one while building docs. The
# throwaway home is made only when none is set, and removed when the build ends.
if "AIRFLOW_HOME" not in os.environ:
    _airflow_home = tempfile.mkdtemp(prefix="messaging-platform-docs-airflow-")
    os.environ["AIRFLOW_HOME"] = _airflow_home
    atexit.register(shutil.rmtree, _airflow_home, True)

project = "airflow-provider-messaging-platform"
author = "airflow-provider-messaging-platform contributors"
# Diagrams are ```{graphviz} blocks, drawn at build time by Graphviz's `dot` (Debian's graphviz package; `make docs`
# installs it when missing), so the build needs no network.
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.graphviz"]
graphviz_output_format = "svg"
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_default_options = {"members": True, "show-inheritance": True}
html_theme = "alabaster"
suppress_warnings = ["myst.xref_missing"]


def _operations_table(app: Any, docname: str, source: list[str]) -> None:
    """The operators page's table of every operation, made from the declarations at each build."""
    if docname == "operators":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
        from operations_table import PLACEHOLDER, table

        source[0] = source[0].replace(PLACEHOLDER, table())


def _owner(member: Any) -> Any:
    """The class that defines a method or property, found from its qualified name."""
    function = member.fget if isinstance(member, property) else member
    qualname = getattr(function, "__qualname__", "")
    owner = sys.modules.get(getattr(function, "__module__", ""), None)
    for part in qualname.split(".")[:-1]:
        owner = getattr(owner, part, None)
    return owner if isinstance(owner, type) else None


def _task_internals(app: Any, what: str, name: str, obj: Any, skip: bool, options: Any) -> bool | None:
    """
    The reference shows an operator, sensor or trigger by its class docstring and constructor only: its methods are
    Airflow's task and trigger protocol (``execute``, ``poke``, ``run``, ``serialize``) or the provider's own
    plumbing, not something a DAG calls.
    """
    from airflow.sdk import BaseOperator
    from airflow.triggers.base import BaseTrigger

    owner = _owner(obj) if what == "class" else None
    if owner is not None and issubclass(owner, (BaseOperator, BaseTrigger)):
        return True
    return None


def _constructor_signature(
    app: Any, what: str, name: str, obj: Any, options: Any, signature: str | None, return_annotation: str | None
) -> tuple[str | None, str | None] | None:
    """
    An operator's signature as its ``__init__`` declares it. Airflow's operator metaclass wraps ``__init__``, so
    autodoc would otherwise show ``(*args, **kwargs)``.
    """
    from airflow.sdk import BaseOperator

    if what == "class" and isinstance(obj, type) and issubclass(obj, BaseOperator):
        parameters = list(inspect.signature(obj.__init__).parameters.values())[1:]  # without self
        return str(inspect.Signature(parameters)), None
    return None


def setup(app: Any) -> None:
    app.connect("source-read", _operations_table)
    app.connect("autodoc-skip-member", _task_internals)
    app.connect("autodoc-process-signature", _constructor_signature)
