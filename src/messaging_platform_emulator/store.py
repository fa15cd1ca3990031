"""The emulator's in-memory platform data: the tables, the id counters, the lock around them, and the clock.

The store holds data only. Business rules live in ``services/``, each service built by ``Emulator`` with the store
and the other services it uses; a service method takes ``store.lock`` for its whole read or change, so routes
stay thin and every operation is atomic. A later resource adds a table to ``Tables`` and a counter start to
``ID_STARTS``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime

from .clock import ScaledClock
from .models import (
    Account,
    Action,
    ApiKey,
    Callback,
    Campaign,
    Channel,
    Contact,
    ContactBlock,
    ContactList,
    CouponDefinition,
    ExternalCouponList,
    FilterGroup,
    Keyword,
    Redemption,
    Schedule,
    VoiceCall,
)

# The first id of each kind. The seeded account, its key and its action are the first of their kinds after every
# reset, so they are always 1001, 1 and 5001.
ID_STARTS = {
    "account": 1001,
    "api_key": 1,
    "action": 5001,
    "campaign": 3001,
    "schedule": 7001,
    "coupon_list": 2001,
    "coupon_code": 20001,
    "contact_list": 4001,
    "filter_group": 4101,
    "contact_filter": 4201,
    "contact": 6001,
    "channel": 22,
    "keyword": 8001,
    "callback": 9001,
}


@dataclass
class Tables:
    accounts: dict[int, Account] = field(default_factory=dict)
    api_keys: dict[int, ApiKey] = field(default_factory=dict)
    actions: dict[int, Action] = field(default_factory=dict)
    voice_calls: dict[int, VoiceCall] = field(default_factory=dict)  # by action id; the action is in ``actions``
    campaigns: dict[int, Campaign] = field(default_factory=dict)
    coupon_definitions: dict[int, CouponDefinition] = field(default_factory=dict)  # by campaign id
    coupon_lists: dict[int, ExternalCouponList] = field(default_factory=dict)  # each holds its codes
    redemptions: list[Redemption] = field(default_factory=list)  # every event-redeemcoupon, in order
    schedules: dict[int, Schedule] = field(default_factory=dict)
    contact_lists: dict[int, ContactList] = field(default_factory=dict)
    filter_groups: dict[int, FilterGroup] = field(default_factory=dict)  # every group of every list, flat
    contact_blocks: dict[int, ContactBlock] = field(default_factory=dict)  # by first contact id
    contacts: dict[int, Contact] = field(default_factory=dict)  # held whole (created or changed), by id
    channels: dict[int, Channel] = field(default_factory=dict)
    keywords: dict[int, Keyword] = field(default_factory=dict)
    callbacks: dict[int, Callback] = field(default_factory=dict)
    next_ids: dict[str, int] = field(default_factory=lambda: dict(ID_STARTS))


class Store:
    """Tables and id counters behind one re-entrant lock, on the emulator's clock."""

    def __init__(self, clock: ScaledClock) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self.tables = Tables()

    def reset(self) -> None:
        """Empty tables and counters back at their starts (the emulator seeds them again)."""
        with self.lock:
            self.tables = Tables()

    def now(self) -> datetime:
        """Emulator time as naive UTC (the form the platform's timestamps take)."""
        return self.clock.now().replace(tzinfo=None)

    def next_id(self, kind: str) -> int:
        return self.reserve_ids(kind, 1)

    def reserve_ids(self, kind: str, count: int) -> int:
        """Take ``count`` consecutive ids of a kind; returns the first."""
        with self.lock:
            value = self.tables.next_ids[kind]
            self.tables.next_ids[kind] = value + count
            return value
