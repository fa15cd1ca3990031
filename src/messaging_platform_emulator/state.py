"""The emulator's in-memory platform: tables, id counters, the seed, and the lock around them.

Business rules live in ``services/``; each service method takes ``state.lock`` for its whole read or
change, so routes stay thin and every operation is atomic. A later resource adds a table to
``Tables``, a counter start to ``ID_STARTS`` and a service attached in ``PlatformState.__init__``.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field, replace
from datetime import datetime

from .clock import ScaledClock
from .lifecycle import Behaviour
from .models import (
    ACTION_TYPE_PUSH_CAMPAIGN,
    API_KEY_TYPE_COMMON,
    Account,
    Action,
    ApiKey,
    Audit,
    Callback,
    Campaign,
    Channel,
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
from .seed_data import seed_resources
from .services.api_keys import ApiKeyService, new_key, new_secret
from .services.callbacks import CallbackService
from .services.campaigns import CampaignService
from .services.contacts import ContactService
from .services.coupon_definitions import CouponDefinitionService
from .services.coupon_lists import CouponListService
from .services.coupon_redemptions import CouponRedemptionService
from .services.filter_groups import FilterGroupService
from .services.keywords import KeywordService
from .services.schedules import ScheduleService
from .services.voice_calls import VoiceCallService

SEED_ACCOUNT_ID = 1001
SEED_ACCOUNT_NAME = "Demo account"
SEED_ACTION_ID = 5001
SEED_API_KEY_ID = 1
SEED_API_KEY_LABEL = "Seeded key"
SYSTEM_PRINCIPAL = "emulator"

ID_STARTS = {
    "account": SEED_ACCOUNT_ID,
    "api_key": SEED_API_KEY_ID,
    "action": SEED_ACTION_ID,
    "campaign": 3001,
    "schedule": 7001,
    "coupon_list": 2001,
    "coupon_code": 20001,
    "contact_list": 4001,
    "filter_group": 4101,
    "contact_filter": 4201,
    "contact": 6001,
    "keyword": 8001,
    "callback": 9001,
}


@dataclass(frozen=True)
class Seed:
    """Credentials and ids of an account the emulator created (the seed, or one made by control).

    ``resources`` holds the ids of what only the seeded account has (contact list, root group, channel, keyword).
    """

    account_id: int
    api_key: str
    api_secret: str
    action_id: int
    api_key_id: int
    callback_token: str
    resources: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "account_id": self.account_id,
            "api_key": self.api_key,
            "api_secret": self.api_secret,
            "action_id": self.action_id,
            "api_key_id": self.api_key_id,
            "callback_token": self.callback_token,
            **self.resources,
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
    channels: dict[int, Channel] = field(default_factory=dict)
    keywords: dict[int, Keyword] = field(default_factory=dict)
    callbacks: dict[int, Callback] = field(default_factory=dict)
    next_ids: dict[str, int] = field(default_factory=lambda: dict(ID_STARTS))


class PlatformState:
    def __init__(self, clock: ScaledClock, api_key: str | None = None, api_secret: str | None = None) -> None:
        self.clock = clock
        self.lock = threading.RLock()
        self._seed_key = api_key or new_key()
        self._seed_secret = api_secret or new_secret()
        self._seed_callback_token = str(uuid.uuid4())
        self.tables = Tables()
        self.default_behaviour = Behaviour()
        self.campaigns = CampaignService(self)
        self.coupon_definitions = CouponDefinitionService(self)
        self.coupon_lists = CouponListService(self)
        self.coupon_redemptions = CouponRedemptionService(self)
        self.schedules = ScheduleService(self)
        self.voice_calls = VoiceCallService(self)
        self.api_keys = ApiKeyService(self)
        self.filter_groups = FilterGroupService(self)
        self.contacts = ContactService(self)
        self.callbacks = CallbackService(self)
        self.keywords = KeywordService(self)
        self.seed = self._create_seed()

    def reset(self) -> None:
        """Back to the seeded state, with the same seed credentials and callback token."""
        with self.lock:
            self.tables = Tables()
            self.default_behaviour = Behaviour()
            self.seed = self._create_seed()

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

    def add_account(self, name: str, api_key: str | None = None, api_secret: str | None = None) -> Seed:
        """Create another account with its own API key and one action to schedule."""
        return self._create_account(
            name, api_key or new_key(), api_secret or new_secret(), f"{name} key", str(uuid.uuid4())
        )

    def _create_seed(self) -> Seed:
        with self.lock:
            seed = self._create_account(
                SEED_ACCOUNT_NAME, self._seed_key, self._seed_secret, SEED_API_KEY_LABEL, self._seed_callback_token
            )
            return replace(seed, resources=seed_resources(self, seed.account_id, SYSTEM_PRINCIPAL))

    def _create_account(self, name: str, key: str, secret: str, key_label: str, callback_token: str) -> Seed:
        with self.lock:
            if any(k.key == key for k in self.tables.api_keys.values()):
                raise ValueError("an API key with that key already exists")
            now = self.now()
            account = Account(
                self.next_id("account"), name, Audit.new(now, SYSTEM_PRINCIPAL), callback_token=callback_token
            )
            self.tables.accounts[account.id] = account
            api_key = ApiKey(
                id=self.next_id("api_key"),
                account_id=account.id,
                key=key,
                secret=secret,
                audit=Audit.new(now, SYSTEM_PRINCIPAL),
                type_id=API_KEY_TYPE_COMMON,
                label=key_label,
            )
            self.tables.api_keys[api_key.id] = api_key
            action = Action(
                self.next_id("action"), account.id, ACTION_TYPE_PUSH_CAMPAIGN, Audit.new(now, SYSTEM_PRINCIPAL)
            )
            self.tables.actions[action.id] = action
            return Seed(account.id, key, secret, action.id, api_key.id, callback_token)
