"""Record of the platform requests the emulator received, for tests to inspect."""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import asdict, dataclass
from typing import Any

MAX_RECORDS = 10_000


@dataclass
class RequestRecord:
    seq: int
    method: str
    path: str
    query: str
    headers: dict[str, str]
    json: Any
    body: str
    status: int | None
    fault: str | None
    time: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _parse_json(body: bytes) -> Any:
    if not body:
        return None
    try:
        return json.loads(body)
    except ValueError:
        return None


class Recorder:
    """Thread-safe, bounded (oldest dropped beyond ``MAX_RECORDS``) list of requests, by arrival."""

    def __init__(self, max_records: int = MAX_RECORDS) -> None:
        self._lock = threading.Lock()
        self._records: deque[RequestRecord] = deque(maxlen=max_records)
        self._next_seq = 1

    def add(
        self,
        method: str,
        path: str,
        query: str,
        headers: dict[str, str],
        body: bytes,
        fault: str | None,
        time: float,
    ) -> RequestRecord:
        with self._lock:
            record = RequestRecord(
                seq=self._next_seq,
                method=method,
                path=path,
                query=query,
                headers=headers,
                json=_parse_json(body),
                body=body.decode("utf-8", errors="replace"),
                status=None,
                fault=fault,
                time=time,
            )
            self._next_seq += 1
            self._records.append(record)
            return record

    def set_status(self, record: RequestRecord, status: int) -> None:
        with self._lock:
            record.status = status

    def list(self, since: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            return [r.to_dict() for r in self._records if r.seq > since]

    def clear(self) -> int:
        with self._lock:
            cleared = len(self._records)
            self._records.clear()
            return cleared
