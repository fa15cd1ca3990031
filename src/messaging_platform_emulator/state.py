"""The emulator's in-memory platform: tables, id counters, the seed, and the lock around them.

Business rules live in ``services/``; each service method takes ``state.lock`` for its whole read or
change, so routes stay thin and every operation is atomic. A later resource adds a table to
``Tables``, a counter start to ``ID_STARTS`` and a service attached in ``PlatformState.__init__``.
"""

from __future__ import annotations

import secrets
import threading
from dataclasses import dataclass, field
from datetime import datetime

from .clock import ScaledClock
from .lifecycle import Behaviour
from .models import (
    ACTION_TYPE_PUSH_CAMPAIGN,
    Account,
    Action,
    ApiKey,
    Audit,
    Campaign,
    Schedule,
)
from .services.campaigns import CampaignService
from .services.schedules import ScheduleService

SEED_ACCOUNT_ID = 1001
SEED_ACCOUNT_NAME = "Demo account"
SEED_ACTION_ID = 5001
SEED_API_KEY_ID = 1
SYSTEM_PRINCIPAL = "emulator"

ID_STARTS = {
    "account": SEED_ACCOUNT_ID,
    "api_key": SEED_API_KEY_ID,
    "action": SEED_ACTION_ID,
    "campaign": 3001,
    "schedule": 7001,
}


@dataclass(frozen=True)
class Seed:
    """Credentials and ids of an account the emulator created (the seed, or one made by control)."""

    account_id: int
    api_key: str
    api_secret: str
    action_id: int

    def to_dict(self) -> dict[str, object]:
        return {
            "account_id": self.account_id,
            "api_key": self.api_key,
            "api_secret": self.api_secret,
            "action_id": self.action_id,
        }


@dataclass
class Tables:
    accounts: dict[int, Account] = field(default_factory=dict)
    api_keys: dict[int, ApiKey] = field(default_factory=dict)
    actions: dict[int, Action] = field(default_factory=dict)
    campaigns: dict[int, Campaign] = field(default_factory=dict)
    schedules: dict[int, Schedule] = field(default_factory=dict)
    next_ids: dict[str, int] = field(default_factory=lambda: dict(ID_STARTS))


class PlatformState:
    def __init__(self, clock: ScaledClock, api_key: str | None = None, api_secret: str | None = None) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self._seed_key = api_key or secrets.token_hex(16)
        self._seed_secret = api_secret or secrets.token_urlsafe(24)
        self.tables = Tables()
        self.default_behaviour = Behaviour()
        self.seed = self._create_account(SEED_ACCOUNT_NAME, self._seed_key, self._seed_secret)
        self.campaigns = CampaignService(self)
        self.schedules = ScheduleService(self)

    def reset(self) -> None:
        """Back to the seeded state, with the same seed credentials."""
        with self.lock:
            self.tables = Tables()
            self.default_behaviour = Behaviour()
            self.seed = self._create_account(SEED_ACCOUNT_NAME, self._seed_key, self._seed_secret)

    def now(self) -> datetime:
        """Emulator time as naive UTC (the form the platform's timestamps take)."""
        return self.clock.now().replace(tzinfo=None)

    def next_id(self, kind: str) -> int:
        with self.lock:
            value = self.tables.next_ids[kind]
            self.tables.next_ids[kind] = value + 1
            return value

    def add_account(self, name: str, api_key: str | None = None, api_secret: str | None = None) -> Seed:
        """Create another account with its own API key and one action to schedule."""
        return self._create_account(name, api_key or secrets.token_hex(16), api_secret or secrets.token_urlsafe(24))

    def _create_account(self, name: str, key: str, secret: str) -> Seed:
        with self.lock:
            if any(k.key == key for k in self.tables.api_keys.values()):
                raise ValueError("an API key with that key already exists")
            now = self.now()
            account = Account(self.next_id("account"), name, Audit.new(now, SYSTEM_PRINCIPAL))
            self.tables.accounts[account.id] = account
            api_key = ApiKey(
                id=self.next_id("api_key"),
                account_id=account.id,
                key=key,
                secret=secret,
                audit=Audit.new(now, SYSTEM_PRINCIPAL),
                label=f"{name} key",
            )
            self.tables.api_keys[api_key.id] = api_key
            action = Action(
                self.next_id("action"), account.id, ACTION_TYPE_PUSH_CAMPAIGN, Audit.new(now, SYSTEM_PRINCIPAL)
            )
            self.tables.actions[action.id] = action
            return Seed(account.id, key, secret, action.id)
