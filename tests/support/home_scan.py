"""
Secret scans scoped to what one test produced in the shared test AIRFLOW_HOME.

The suite shares one AIRFLOW_HOME (and its SQLite metadata database) across tests, so scanning it whole would
blame a test for a leak an earlier test made. A ``HomeScan`` is taken when a test starts; ``leaks`` then reads only
what changed since: files that are new, the bytes appended to files that grew, files rewritten whole, and the
database rows that were added or changed (every table, compared row by row).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: The metadata database is scanned row by row, not as a file (its pages mix every test's rows).
DATABASE = "airflow.db"
_DATABASE_FILES = {DATABASE, f"{DATABASE}-journal", f"{DATABASE}-wal", f"{DATABASE}-shm"}


def _files(home: Path) -> dict[Path, tuple[int, int]]:
    found = {}
    for path in home.rglob("*"):
        if path.is_file() and path.name not in _DATABASE_FILES:
            stat = path.stat()
            found[path] = (stat.st_size, stat.st_mtime_ns)
    return found


def _rows(database: Path) -> dict[str, set[str]]:
    """Every row of every table, as text, per table (an empty dict before the database exists)."""
    if not database.exists():
        return {}
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
        tables = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {table: {repr(row) for row in connection.execute(f'SELECT * FROM "{table}"')} for table in tables}


@dataclass
class HomeScan:
    home: Path
    files: dict[Path, tuple[int, int]] = field(default_factory=dict)
    rows: dict[str, set[str]] = field(default_factory=dict)

    @classmethod
    def take(cls, home: Path) -> HomeScan:
        return cls(home, _files(home), _rows(home / DATABASE))

    def new_text(self) -> dict[str, bytes]:
        """What this test added: per file the new bytes, per database table the new or changed rows."""
        added: dict[str, bytes] = {}
        for path, (size, mtime) in _files(self.home).items():
            before = self.files.get(path)
            if before == (size, mtime):
                continue
            content = path.read_bytes()
            appended = before is not None and size > before[0]  # log files and server output only grow
            added[str(path)] = content[before[0] :] if appended and before is not None else content
        for table, rows in _rows(self.home / DATABASE).items():
            new = rows - self.rows.get(table, set())
            if new:
                added[f"{DATABASE}:{table}"] = "\n".join(sorted(new)).encode()
        return added

    def leaks(self, secrets: Iterable[str]) -> list[str]:
        """Where this test left any of ``secrets`` in clear: file paths and ``airflow.db:<table>``."""
        needles = [s.encode() for s in secrets if s]
        assert needles, "nothing to look for"
        return sorted(where for where, text in self.new_text().items() if any(n in text for n in needles))
