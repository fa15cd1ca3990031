"""
Print the operations table of ``docs/operators.md`` from ``OPERATIONS``; ``--check`` fails if the docs differ.

Each row: the resource, the HTTP call, the hook method and the operator class. Operator class names follow one
rule: ``MessagingPlatform`` + the operation name in CamelCase + ``Operator``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from messaging_platform_provider.client.operations import OPERATIONS, Operation

DOC = Path(__file__).resolve().parent.parent / "docs" / "operators.md"
BEGIN, END = "<!-- operations:begin -->", "<!-- operations:end -->"


def operator_name(operation: str) -> str:
    return "MessagingPlatform" + "".join(part.capitalize() for part in operation.split("_")) + "Operator"


def _path(op: Operation) -> str:
    path = op.path
    for name in op.path_params:
        camel = name.split("_")[0] + "".join(p.capitalize() for p in name.split("_")[1:])
        path = path.replace("{" + name + "}", "{" + camel + "}")
    return path


def table() -> str:
    rows = ["| resource | HTTP | hook method | operator | in spec §4 |", "|---|---|---|---|---|"]
    for op in OPERATIONS.values():
        spec = "yes" if op.in_spec else "facts"
        rows.append(
            f"| {op.resource} | `{op.method} {_path(op)}` | `{op.name}` | `{operator_name(op.name)}` | {spec} |"
        )
    return "\n".join(rows)


def current() -> str:
    text = DOC.read_text()
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()


if __name__ == "__main__":
    if "--check" in sys.argv:
        sys.exit(0 if current() == table() else "docs/operators.md is out of date: run scripts/operations_table.py")
    print(table())
