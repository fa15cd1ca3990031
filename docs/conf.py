"""Sphinx configuration: Markdown pages (MyST), API reference from docstrings. Built with warnings as errors."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from typing import Any

# Importing the provider imports Airflow, which reads AIRFLOW_HOME: never touch a real one while building docs.
os.environ.setdefault("AIRFLOW_HOME", tempfile.mkdtemp(prefix="messaging-platform-docs-airflow-"))

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
autodoc_typehints = "none"
autodoc_default_options = {"members": True, "show-inheritance": True}
html_theme = "alabaster"
suppress_warnings = ["myst.xref_missing"]


def _operations_table(app: Any, docname: str, source: list[str]) -> None:
    """The operators page's table of every operation, made from the declarations at each build."""
    if docname == "operators":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
        from operations_table import PLACEHOLDER, table

        source[0] = source[0].replace(PLACEHOLDER, table())


def setup(app: Any) -> None:
    app.connect("source-read", _operations_table)
