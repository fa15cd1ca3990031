"""Channels (short and long codes) and the keywords reserved on them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .base import STATUS_ACTIVE, Audit


@dataclass
class Channel:
    """A short code (digits, ``55222``) or a long code (a phone number in E.164 form, ``+15125550100``) of an
    account; only a long code places voice calls."""

    id: int
    account_id: int
    code: str

    @property
    def long_code(self) -> bool:
        return self.code.startswith("+")

    def to_dict(self) -> dict[str, Any]:
        """As control routes answer it."""
        return {"channel_id": self.id, "account_id": self.account_id, "code": self.code, "long_code": self.long_code}


@dataclass
class Keyword:
    id: int
    account_id: int
    channel_id: int
    channel_code: str
    name: str
    audit: Audit
    campaign_id: int | None = None
    callback_required: bool = False
    status_id: int = STATUS_ACTIVE

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "ChannelId": self.channel_id,
            "ChannelCode": self.channel_code,
            "CampaignId": self.campaign_id,
            "Name": self.name,
            "CallbackRequired": self.callback_required,
            "StatusId": self.status_id,
            **self.audit.to_api(),
        }
