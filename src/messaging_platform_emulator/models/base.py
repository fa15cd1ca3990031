"""Shared parts of the platform records: resource status values, soft deletion and the audit fields."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..clock import format_timestamp

# ResourceStatus of soft-deletable resources.
STATUS_ACTIVE = 0
STATUS_INACTIVE = 1
STATUS_DELETED = 2
STATUS_NAMES = {STATUS_ACTIVE: "Active", STATUS_INACTIVE: "Inactive", STATUS_DELETED: "Deleted"}

# The audit properties of an answer: a request that carries them back (read-modify-write) is not refused for them.
AUDIT_PROPERTIES = ("Created", "Modified", "CreatedBy", "ModifiedBy")

# CreatedBy and ModifiedBy of what the emulator makes itself: the seed, and what control routes add.
SYSTEM_PRINCIPAL = "emulator"


def optional_timestamp(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


class SoftDeletable:
    """A resource whose DELETE marks it deleted (StatusId 2) instead of removing it."""

    status_id: int

    @property
    def deleted(self) -> bool:
        return self.status_id == STATUS_DELETED


@dataclass
class Audit:
    created: datetime
    created_by: str
    modified: datetime
    modified_by: str

    @classmethod
    def new(cls, now: datetime, by: str) -> Audit:
        return cls(created=now, created_by=by, modified=now, modified_by=by)

    def touch(self, now: datetime, by: str) -> None:
        self.modified = now
        self.modified_by = by

    def to_api(self) -> dict[str, Any]:
        return {
            "Created": optional_timestamp(self.created),
            "Modified": optional_timestamp(self.modified),
            "CreatedBy": self.created_by,
            "ModifiedBy": self.modified_by,
        }
