"""Accounts and their API keys."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .base import STATUS_ACTIVE, Audit, optional_timestamp

# ApiKeyType: 1 Master (a portal user's key; cannot be created or deleted through the API), 2 Common, 3 Temporary.
API_KEY_TYPE_MASTER = 1
API_KEY_TYPE_COMMON = 2
API_KEY_TYPE_TEMPORARY = 3
API_KEY_TYPES = {API_KEY_TYPE_MASTER: "Master", API_KEY_TYPE_COMMON: "Common", API_KEY_TYPE_TEMPORARY: "Temporary"}


@dataclass
class Account:
    id: int
    name: str
    audit: Audit
    parent_id: int | None = None
    status_id: int = STATUS_ACTIVE
    callback_token: str | None = None

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "Name": self.name,
            "ParentId": self.parent_id,
            "Status": self.status_id,
            **self.audit.to_api(),
        }


@dataclass
class ApiKey:
    id: int
    account_id: int
    key: str
    secret: str = field(repr=False)
    audit: Audit
    type_id: int = API_KEY_TYPE_COMMON
    label: str = ""
    revoked: bool = False
    valid_to: datetime | None = None
    last_activity: datetime | None = None
    user_name: str | None = None

    @property
    def principal(self) -> str:
        """Name written to CreatedBy/ModifiedBy for changes made with this key."""
        return f"api-key-{self.id}"

    def expired(self, now: datetime) -> bool:
        return self.valid_to is not None and now >= self.valid_to

    def to_api(self, *, with_secret: bool = False) -> dict[str, Any]:
        """The platform form; ``Secret`` only where the platform shows it (single GET, create, new secret)."""
        body: dict[str, Any] = {"Id": self.id, "AccountId": self.account_id, "Label": self.label, "Key": self.key}
        if with_secret:
            body["Secret"] = self.secret
        body.update(
            {
                "TypeId": self.type_id,
                "Type": self.type_id,
                "ValidTo": optional_timestamp(self.valid_to),
                "LastActivity": optional_timestamp(self.last_activity),
                "UserName": self.user_name,
            }
        )
        return body
