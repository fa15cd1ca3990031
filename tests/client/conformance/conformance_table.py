"""
The conformance table of ``docs/conformance.md``, rendered from ``conformance_rows.ROWS``.

``.venv/bin/python -m tests.client.conformance.conformance_table`` (from the repository root) rewrites the table in
the page; a test fails when the page and the rows differ.
"""

from __future__ import annotations

from tests.client.conformance.conformance_rows import ROWS
from tests.support.paths import REPO

DOC = REPO / "docs" / "conformance.md"
BEGIN, END = "<!-- conformance:begin -->", "<!-- conformance:end -->"
TEST = "tests/client/conformance/test_conformance.py::test_row"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def table() -> str:
    lines = ["| operation | field | platform rule | we send | test |", "|---|---|---|---|---|"]
    for row in ROWS:
        cells = (f"`{row.operation}`", f"`{row.field}`", row.rule, row.we_send, f"`{TEST}[{row.id}]`")
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return "\n".join(lines)


def current() -> str:
    text = DOC.read_text()
    return text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()


def write() -> None:
    text = DOC.read_text()
    DOC.write_text(text[: text.index(BEGIN) + len(BEGIN)] + "\n" + table() + "\n" + text[text.index(END) :])


if __name__ == "__main__":
    write()
