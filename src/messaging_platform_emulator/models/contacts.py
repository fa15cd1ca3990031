"""Contacts, kept as generated blocks so that a million of them take a few bytes each.

A block stands for ``count`` consecutive contact ids of one account; every field of a contact follows from its
id and its position among the account's contacts (its ordinal), so contacts are rendered when read, and a
page is rendered while it is sent. A contact the API created or changed is held whole (``Contact``) and is read
instead of its block's rendering: a create adds a block of one for its id, so the blocks alone say which contacts
an account has, in id order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .base import STATUS_ACTIVE, Audit, optional_timestamp

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

    def held_whole(self, offset: int) -> Contact:
        """The block's generated contact at ``offset`` as a ``Contact``, to be changed and held instead."""
        generated = self.contact(offset)
        return Contact(
            id=generated["Id"],
            account_id=self.account_id,
            audit=Audit.new(self.created, ""),
            phone_number=generated["PhoneNumber"],
            email=generated["Email"],
            subscriptions=tuple(generated["Subscriptions"]),
            attributes=tuple(generated["Attributes"]),
        )

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
class Contact:
    """
    A contact held whole: one the API created, or a generated one the API changed. Immutable: a change stores a
    new one, so a page rendered outside the lock shows each contact as it was before or after a change.
    """

    id: int
    account_id: int
    audit: Audit
    phone_number: str | None = None
    email: str | None = None
    first_name: str | None = None
    last_name: str | None = None
    assigned_id: int | None = None
    subscriptions: tuple[dict[str, Any], ...] = ()
    attributes: tuple[dict[str, Any], ...] = ()
    status_id: int = STATUS_ACTIVE

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "StatusId": self.status_id,
            "PhoneNumber": self.phone_number,
            "Email": self.email,
            "FirstName": self.first_name,
            "LastName": self.last_name,
            "AssignedId": self.assigned_id,
            "Subscriptions": [dict(subscription) for subscription in self.subscriptions],
            "Attributes": [dict(attribute) for attribute in self.attributes],
            **self.audit.to_api(),
        }


def read_contact(block: ContactBlock, offset: int, held: Mapping[int, Contact]) -> dict[str, Any]:
    """The API form of the block's contact at ``offset``: the contact held whole under its id, else the generated
    one."""
    found = held.get(block.first_id + offset)
    return block.contact(offset) if found is None else found.to_api()


@dataclass(frozen=True)
class ContactPage:
    """A window of contacts over blocks: (block, first offset, end offset) slices, rendered while iterated (each
    contact ``held`` whole read instead of its block's rendering)."""

    slices: tuple[tuple[ContactBlock, int, int], ...]
    held: Mapping[int, Contact]

    def __len__(self) -> int:
        return sum(end - start for _, start, end in self.slices)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        for block, start, end in self.slices:
            for offset in range(start, end):
                yield read_contact(block, offset, self.held)
