"""
The operations table of ``docs/operators.md``, made from ``OPERATIONS`` when the docs are built (``docs/conf.py``
puts it where the page says ``<!-- operations -->``); run as a script, it prints the table.

Each row: the resource, the HTTP call, the hook method, the operator class, and whether the platform's published
endpoint list has the call (``Operation.in_spec``; the others are calls the vendor's client libraries make).
Operator class names follow one rule: ``MessagingPlatform`` + the operation name in CamelCase + ``Operator``.
"""

from __future__ import annotations

from messaging_platform_provider.client.operations import OPERATIONS, Operation

PLACEHOLDER = "<!-- operations -->"


def operator_name(operation: str) -> str:
    return "MessagingPlatform" + "".join(part.capitalize() for part in operation.split("_")) + "Operator"


def _path(op: Operation) -> str:
    path = op.path
    for name in op.path_params:
        camel = name.split("_")[0] + "".join(p.capitalize() for p in name.split("_")[1:])
        path = path.replace("{" + name + "}", "{" + camel + "}")
    return path


def table() -> str:
    rows = ["| resource | HTTP | hook method | operator | in the platform's published list |", "|---|---|---|---|---|"]
    for op in OPERATIONS.values():
        listed = "yes" if op.in_spec else "no: the vendor's client libraries call it"
        rows.append(
            f"| {op.resource} | `{op.method} {_path(op)}` | `{op.name}` | `{operator_name(op.name)}` | {listed} |"
        )
    return "\n".join(rows)


if __name__ == "__main__":
    print(table())
