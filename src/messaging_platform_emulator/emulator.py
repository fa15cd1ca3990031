"""One emulator instance, built and wired in one place: the store, the services on it, the seed, and the emulator's
own parts (clock, network conditions, fault rules, request record, violations of the API reference, callback
delivery).

Each service is given the store and, as constructor arguments, the services it uses, in the order below; no
service reaches another through the store, so the dependencies read top to bottom and cannot form a cycle.
Routes reach the services as attributes of the ``Emulator`` they are served with.
"""

from __future__ import annotations

from .clock import ScaledClock
from .conditions import Conditions, NetworkConditions
from .delivery import CallbackDelivery
from .faults import FaultBook
from .recorder import Recorder
from .seed_data import seed_platform
from .services.accounts import AccountService, Seed, SeedCredentials
from .services.api_keys import ApiKeyService
from .services.callbacks import CallbackService
from .services.campaigns import CampaignService
from .services.channels import ChannelService
from .services.contacts import ContactService
from .services.coupon_definitions import CouponDefinitionService
from .services.coupon_lists import CouponListService
from .services.coupon_redemptions import CouponRedemptionService
from .services.events import EventService
from .services.filter_groups import FilterGroupService
from .services.keywords import KeywordService
from .services.schedules import ScheduleService
from .services.voice_calls import VoiceCallService
from .store import Store
from .violations import ViolationBook


class Emulator:
    """The platform stand-in: seeded on creation with ``api_key``/``api_secret`` (random when omitted), which stay
    the same across ``reset``. ``strict``: refuse every departure from the API reference (``violations.py``)
    instead of taking it as the platform does and recording it."""

    def __init__(
        self,
        api_key: str | None = None,
        api_secret: str | None = None,
        conditions: Conditions | None = None,
        *,
        strict: bool = False,
    ) -> None:
        self.clock = ScaledClock()
        self.conditions = NetworkConditions(conditions)
        self.store = Store(self.clock)
        self.faults = FaultBook()
        self.recorder = Recorder()
        self.violations = ViolationBook(strict=strict)
        self.delivery = CallbackDelivery()

        self.api_keys = ApiKeyService(self.store)
        self.accounts = AccountService(self.store, self.api_keys, SeedCredentials.new(api_key, api_secret))
        self.contacts = ContactService(self.store, self.accounts)
        self.keywords = KeywordService(self.store)
        self.channels = ChannelService(self.store, self.accounts)
        self.campaigns = CampaignService(self.store)
        self.coupon_lists = CouponListService(self.store)
        self.coupon_definitions = CouponDefinitionService(self.store, self.coupon_lists)
        self.coupon_redemptions = CouponRedemptionService(self.store, self.contacts, self.coupon_lists)
        self.schedules = ScheduleService(self.store)
        self.voice_calls = VoiceCallService(self.store, self.schedules, self.channels)
        self.filter_groups = FilterGroupService(self.store)
        self.callbacks = CallbackService(self.store)
        self.events = EventService(self.store, self.accounts, self.contacts, self.delivery)

        self._seed = self._create_seed()

    @property
    def strict(self) -> bool:
        return self.violations.strict

    @property
    def seed(self) -> Seed:
        return self._seed

    def reset(self) -> None:
        """Seeded state again (same seed credentials, strictness, and the network conditions given at start); no
        faults, records, violations, clock changes, behaviours, deliveries or delivery policy. Deliveries still
        running stop before their next try."""
        self.faults.clear()
        self.conditions.reset()
        self.recorder.clear()
        self.violations.clear()
        self.clock.reset()
        with self.store.lock:
            self.store.reset()
            self.schedules.reset_default_behaviour()
            self.delivery.reset()
            self._seed = self._create_seed()

    def _create_seed(self) -> Seed:
        return seed_platform(self.store, self.accounts, self.contacts, self.keywords, self.channels)
