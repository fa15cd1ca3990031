"""Callback records: where the platform POSTs events of one type."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# CallbackType values a record may have (spec section 6.1).
CALLBACK_TYPES = {1: "Keyword", 3: "Dialog", 6: "Stop", 8: "NewAccount", 11: "IncomingMessage"}


@dataclass
class Callback:
    id: int
    account_id: int
    callback_type: int
    url: str
    active: bool

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "CallbackType": self.callback_type,
            "URL": self.url,
            "Active": self.active,
        }
