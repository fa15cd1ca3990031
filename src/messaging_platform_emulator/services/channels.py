"""Channels of an account: its short codes and long codes, found by id or code; more added by control."""

from __future__ import annotations

import re

from ..errors import ControlConflict
from ..models import Channel
from ..store import Store
from .accounts import AccountService

#: A long code: a phone number in E.164 form. A short code: five or six digits.
LONG_CODE = re.compile(r"^\+[1-9]\d{6,14}$")
SHORT_CODE = re.compile(r"^\d{5,6}$")


class ChannelTaken(ControlConflict):
    """Some account already has a channel with that code."""


class ChannelService:
    def __init__(self, store: Store, accounts: AccountService) -> None:
        self._store = store
        self._accounts = accounts

    def find(self, account_id: int, channel: str) -> Channel | None:
        """The account's channel with that id or code, or None. Caller holds the lock."""
        for found in self._store.tables.channels.values():
            if found.account_id == account_id and channel in (str(found.id), found.code):
                return found
        return None

    def store(self, account_id: int, code: str) -> Channel:
        """Add a channel to an account. Caller holds the lock and checked the code."""
        channel = Channel(self._store.next_id("channel"), account_id, code)
        self._store.tables.channels[channel.id] = channel
        return channel

    def add(self, code: str, account_id: int | None) -> Channel:
        """For control: a short or long code for an account (the seeded one by default); AccountNotFound,
        ChannelTaken."""
        with self._store.lock:
            account = self._accounts.control_account(account_id)
            if any(c.code == code for c in self._store.tables.channels.values()):
                raise ChannelTaken(f"a channel with code {code} already exists")
            return self.store(account.id, code)
