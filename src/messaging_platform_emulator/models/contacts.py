"""Contacts, kept as generated blocks so that a million of them take a few bytes each.

A block stands for ``count`` consecutive contact ids of one account; every field of a contact follows from its
id and its position among the account's contacts (its ordinal), so contacts are rendered when read, and a
page is rendered while it is sent.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .base import STATUS_ACTIVE, optional_timestamp

FIRST_NAMES = ("Ava", "Ben", "Chloe", "Dan", "Emma", "Finn", "Grace", "Hugo", "Isla", "Jack")
# PhoneNumber is +1555 and seven digits counting from 0100000: the first 10,000 contacts are +1555010xxxx.
_PHONE_PREFIX = "+1555"
_PHONE_BASE = 100_000
_PHONE_SPAN = 10_000_000
SUBSCRIPTION = {
    "SubscriptionId": 1,
    "SmsEnabled": True,
    "MmsEnabled": False,
    "EmailEnabled": True,
    "VoiceEnabled": True,
}


@dataclass(frozen=True)
class ContactBlock:
    account_id: int
    first_id: int
    count: int
    first_ordinal: int  # how many contacts the account had before this block
    created: datetime

    @property
    def last_id(self) -> int:
        return self.first_id + self.count - 1

    def id_with_phone(self, phone: str) -> int | None:
        """The id of the block's first contact with that phone number, or None (numbers repeat every 10**7)."""
        digits = phone[len(_PHONE_PREFIX) :] if phone.startswith(_PHONE_PREFIX) else ""
        if len(digits) != 7 or not digits.isdigit():
            return None
        ordinal = (int(digits) - _PHONE_BASE) % _PHONE_SPAN
        while ordinal < self.first_ordinal:
            ordinal += _PHONE_SPAN
        if ordinal >= self.first_ordinal + self.count:
            return None
        return self.first_id + ordinal - self.first_ordinal

    def contact(self, offset: int) -> dict[str, Any]:
        """The API form of the block's contact at ``offset`` (0 ≤ offset < count)."""
        contact_id = self.first_id + offset
        ordinal = self.first_ordinal + offset
        created = optional_timestamp(self.created)
        return {
            "Id": contact_id,
            "AccountId": self.account_id,
            "StatusId": STATUS_ACTIVE,
            "PhoneNumber": f"{_PHONE_PREFIX}{(_PHONE_BASE + ordinal) % _PHONE_SPAN:07d}",
            "Email": f"contact{contact_id}@example.com",
            "Subscriptions": [dict(SUBSCRIPTION)],
            "Attributes": [{"Id": contact_id, "Name": "FirstName", "Value": FIRST_NAMES[ordinal % len(FIRST_NAMES)]}],
            "Created": created,
            "CreatedBy": "",
            "Modified": created,
            "ModifiedBy": "",
        }


@dataclass(frozen=True)
class ContactPage:
    """A window of contacts over blocks: (block, first offset, end offset) slices, rendered while iterated."""

    slices: tuple[tuple[ContactBlock, int, int], ...]

    def __len__(self) -> int:
        return sum(end - start for _, start, end in self.slices)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for block, start, end in self.slices:
            for offset in range(start, end):
                yield block.contact(offset)
