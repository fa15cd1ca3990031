"""The emulator's record of platform requests, read while a bench runs (``bulk.py`` and its several workers)."""

from __future__ import annotations

import threading
from collections import Counter

from messaging_platform_emulator.control_client import EmulatorControl


class Record:
    """
    The emulator's request record, read every half second while the block runs (it keeps only the last 10,000
    requests): method, path and status of every platform request whose path holds ``path_part``.
    """

    def __init__(self, control: EmulatorControl, path_part: str) -> None:
        self.control = control
        self.path_part = path_part
        self.rows: list[tuple[str, str, int | None]] = []
        self.since = max((r["seq"] for r in control.requests()), default=0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _read(self) -> None:
        records = self.control.requests(since=self.since)
        settled = []
        for record in records:
            if record["status"] is None:
                break  # still being answered: read it again next time
            settled.append(record)
        for record in settled:
            if self.path_part in record["path"]:
                self.rows.append((record["method"], record["path"], record["status"]))
        if settled:
            self.since = settled[-1]["seq"]

    def _poll(self) -> None:
        while not self._stop.wait(0.5):
            self._read()

    def __enter__(self) -> Record:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self._read()

    @property
    def statuses(self) -> Counter[int | None]:
        return Counter(status for _, _, status in self.rows)

    @property
    def duplicates(self) -> int:
        """DELETEs answered 2xx beyond the first for the same path."""
        done = Counter(path for method, path, status in self.rows if method == "DELETE" and 200 <= (status or 0) < 300)
        return sum(n - 1 for n in done.values() if n > 1)
