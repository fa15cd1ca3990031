"""
Simulated inbound events and the callbacks they fire (spec section 6).

An event (a keyword texted in, a dialog answer, a STOP, an incoming message, a new account) is POSTed to every
active callback record of its type on the account that owns it (for NewAccount: the parent account), each with the
account's ``CallbackToken``, its ``CallbackURL`` and a new ``TransactionId``. Deliveries run as background tasks on
the server's event loop: a receiver that answers non-2xx, or cannot be reached, gets the same body again (same
TransactionId) after a backoff, up to ``max_attempts`` tries. Every delivery and attempt is recorded for tests.

State lives beside the emulator (one hub per ``Emulator``); a reset of the emulator (its tables replaced) clears the
record and the delivery policy, and deliveries still running from before the reset stop.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import uuid
import weakref
from collections import deque
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

import httpx

from ..clock import format_timestamp
from ..models import CALLBACK_TYPES, Account, Channel, ContactBlock, Keyword

if TYPE_CHECKING:
    from ..emulator import Emulator
    from ..state import PlatformState

KEYWORD, DIALOG, STOP, NEW_ACCOUNT, INCOMING_MESSAGE = 1, 3, 6, 8, 11
MAX_RECORDED = 10_000
_PHONE_BASE = 100_000
_PHONE_SPAN = 10_000_000


class EventRefused(Exception):
    """The event cannot fire as asked (control routes answer ``status`` with the message)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class DeliveryPolicy:
    max_attempts: int = 5
    backoff_seconds: float = 0.5  # before the 2nd try; doubles each time
    backoff_max_seconds: float = 8.0
    timeout_seconds: float = 5.0

    def pause(self, attempt: int) -> float:
        """Seconds to wait after failed try number ``attempt``."""
        return float(min(self.backoff_max_seconds, self.backoff_seconds * (2 ** (attempt - 1))))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Attempt:
    number: int
    status: int | None
    error: str | None
    time: float  # time.monotonic() when the try ended
    elapsed: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Delivery:
    id: int
    event_id: int
    callback_id: int
    account_id: int
    callback_type: int
    url: str
    transaction_id: str
    body: dict[str, Any] = field(repr=False)
    state: str = "pending"  # pending, delivered, failed
    attempts: list[Attempt] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "event_id": self.event_id,
            "callback_id": self.callback_id,
            "account_id": self.account_id,
            "callback_type": self.callback_type,
            "callback_type_name": CALLBACK_TYPES.get(self.callback_type),
            "url": self.url,
            "transaction_id": self.transaction_id,
            "state": self.state,
            "attempts": [a.to_dict() for a in self.attempts],
            "payload": {**self.body, "CallbackToken": "***"},
        }


def _contact_in_block(block: ContactBlock, contact_id: int) -> dict[str, Any]:
    return block.contact(contact_id - block.first_id)


class EventHub:
    """Events, their deliveries and the policy of one emulator."""

    def __init__(self, emulator: Emulator) -> None:
        self._emulator = weakref.ref(emulator)
        self._lock = threading.Lock()
        self._tables: object = None
        self._generation = 0
        self.policy = DeliveryPolicy()
        self._deliveries: deque[Delivery] = deque(maxlen=MAX_RECORDED)
        self._by_id: dict[int, Delivery] = {}
        self._next_delivery = 1
        self._next_event = 1
        self._tasks: set[asyncio.Task[None]] = set()
        self._clients: dict[int, httpx.AsyncClient] = {}

    @property
    def state(self) -> PlatformState:
        emulator = self._emulator()
        assert emulator is not None
        return emulator.state

    def _sync(self) -> None:
        """Forget everything when the emulator was reset since we last looked. Caller holds ``_lock``."""
        tables = self.state.tables
        if tables is not self._tables:
            self._tables = tables
            self._generation += 1
            self.policy = DeliveryPolicy()
            self._deliveries.clear()
            self._by_id.clear()
            self._next_delivery = 1
            self._next_event = 1

    # -- policy and record ------------------------------------------------------------------------

    def get_policy(self) -> DeliveryPolicy:
        with self._lock:
            self._sync()
            return self.policy

    def set_policy(self, **changes: Any) -> DeliveryPolicy:
        with self._lock:
            self._sync()
            self.policy = replace(self.policy, **{k: v for k, v in changes.items() if v is not None})
            return self.policy

    def deliveries(self, since: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            self._sync()
            return [d.to_dict() for d in self._deliveries if d.id > since]

    def delivery(self, delivery_id: int) -> dict[str, Any] | None:
        with self._lock:
            self._sync()
            found = self._by_id.get(delivery_id)
            return found.to_dict() if found is not None else None

    def clear(self) -> int:
        with self._lock:
            self._sync()
            count = len(self._deliveries)
            self._deliveries.clear()
            self._by_id.clear()
            return count

    # -- building events (all under the platform lock) --------------------------------------------

    def account(self, account_id: int | None) -> Account:
        state = self.state
        wanted = state.seed.account_id if account_id is None else account_id
        account = state.tables.accounts.get(wanted)
        if account is None:
            raise EventRefused(404, f"account {wanted} does not exist")
        return account

    def _channel(self, account: Account, channel: str | int | None) -> Channel | None:
        channels = [c for c in self.state.tables.channels.values() if c.account_id == account.id]
        if channel is None or channel == "":
            return channels[0] if channels else None
        for found in channels:
            if str(channel) in (str(found.id), found.code):
                return found
        raise EventRefused(404, f"account {account.id} has no channel {channel}")

    def _contact(self, account: Account, contact_id: int | None, phone: str | None) -> tuple[int | None, str]:
        blocks = [b for b in self.state.tables.contact_blocks.values() if b.account_id == account.id]
        if contact_id is not None:
            for block in blocks:
                if block.first_id <= contact_id <= block.last_id:
                    found = _contact_in_block(block, contact_id)
                    if phone and phone != found["PhoneNumber"]:
                        raise EventRefused(409, f"contact {contact_id} has phone number {found['PhoneNumber']}")
                    return contact_id, str(found["PhoneNumber"])
            raise EventRefused(404, f"account {account.id} has no contact {contact_id}")
        if phone:
            digits = phone[5:] if phone.startswith("+1555") else ""
            if len(digits) == 7 and digits.isdigit():
                first = (int(digits) - _PHONE_BASE) % _PHONE_SPAN
                for block in blocks:
                    ordinal = first
                    while ordinal < block.first_ordinal:
                        ordinal += _PHONE_SPAN
                    if ordinal < block.first_ordinal + block.count:
                        return block.first_id + (ordinal - block.first_ordinal), phone
            return None, phone  # someone who is not (yet) a contact
        if not blocks:
            raise EventRefused(422, f"account {account.id} has no contacts: give phone_number")
        first_contact = blocks[0].contact(0)
        return int(first_contact["Id"]), str(first_contact["PhoneNumber"])

    def _keyword(self, keyword: str, channel: str | int | None) -> Keyword:
        matches = [
            k
            for k in self.state.tables.keywords.values()
            if (keyword == str(k.id) or keyword.upper() == k.name.upper())
            and (channel in (None, "") or str(channel) in (str(k.channel_id), k.channel_code))
        ]
        if not matches:
            raise EventRefused(404, f"no keyword {keyword!r}" + (f" on channel {channel}" if channel else ""))
        if len(matches) > 1:
            raise EventRefused(409, f"keyword {keyword!r} is on several channels: give channel_id")
        found = matches[0]
        if not found.callback_required:
            raise EventRefused(409, f"keyword {found.name} does not have callbacks enabled (CallbackRequired)")
        if found.campaign_id is None:
            raise EventRefused(409, f"keyword {found.name} is not attached to a campaign: no Keyword callback fires")
        return found

    def keyword_event(
        self, keyword: str, channel: str | int | None, contact_id: int | None, phone: str | None
    ) -> tuple[Account, int, dict[str, Any]]:
        found = self._keyword(keyword, channel)
        account = self.account(found.account_id)
        contact, number = self._contact(account, contact_id, phone)
        campaign = self.state.tables.campaigns.get(found.campaign_id or -1)
        fields = {
            "CampaignId": found.campaign_id,
            "ChannelId": found.channel_id,
            "ContactId": contact,
            "Keyword": found.name,
            "KeywordId": found.id,
            "PhoneNumber": number,
            "SubscriptionId": (campaign.subscription_id if campaign is not None else None) or 1,
        }
        return account, KEYWORD, fields

    def dialog_event(self, body: dict[str, Any]) -> tuple[Account, int, dict[str, Any]]:
        account = self.account(body.get("account_id"))
        channel = self._channel(account, body.get("channel_id"))
        contact, number = self._contact(account, body.get("contact_id"), body.get("phone_number"))
        fields = {
            "Answer": body["answer"],
            "QuestionCampaignId": body.get("question_campaign_id"),
            "QuestionText": body.get("question_text"),
            "ChannelId": channel.id if channel else None,
            "ContactId": contact,
            "PhoneNumber": number,
            "SubscriptionId": body.get("subscription_id", 1),
            "DialogCampaignId": body.get("dialog_campaign_id"),
            # Named by the spec for Dialog callbacks but left out of its listed shape (6.3).
            "ContactAccountId": account.id,
            "ContactAccountName": account.name,
        }
        return account, DIALOG, fields

    def stop_event(self, body: dict[str, Any]) -> tuple[Account, int, dict[str, Any]]:
        account = self.account(body.get("account_id"))
        channel = self._channel(account, body.get("channel_id"))
        contact, number = self._contact(account, body.get("contact_id"), body.get("phone_number"))
        fields = {
            "ChannelId": channel.id if channel else None,
            "ContactId": contact,
            "PhoneNumber": number,
            "SubscriptionId": body.get("subscription_id", 1),
        }
        return account, STOP, fields

    def incoming_message_event(self, body: dict[str, Any]) -> tuple[Account, int, dict[str, Any]]:
        account = self.account(body.get("account_id"))
        channel = self._channel(account, body.get("channel_id"))
        contact, number = self._contact(account, body.get("contact_id"), body.get("phone_number"))
        fields = {
            "Message": body["message"],
            "ChannelId": channel.id if channel else None,
            "ContactId": contact,
            "PhoneNumber": number,
            "ChannelCode": channel.code if channel else None,
            "AccountName": account.name,
        }
        return account, INCOMING_MESSAGE, fields

    # -- firing -----------------------------------------------------------------------------------

    def fire(
        self, account: Account, callback_type: int, fields: dict[str, Any], event_account_id: int
    ) -> dict[str, Any]:
        """
        Record one delivery per active callback record of ``callback_type`` on ``account`` and start them. Caller
        holds the platform lock; must be called on the event loop that will run the deliveries.
        """
        state = self.state
        if not account.callback_token:
            raise EventRefused(409, f"account {account.id} does not have callbacks enabled")
        records = [
            c
            for c in state.tables.callbacks.values()
            if c.account_id == account.id and c.callback_type == callback_type and c.active
        ]
        timestamp = format_timestamp(state.now())
        started: list[Delivery] = []
        with self._lock:
            self._sync()
            event_id = self._next_event
            self._next_event += 1
            generation = self._generation
            for record in sorted(records, key=lambda r: r.id):
                transaction_id = str(uuid.uuid4())
                body = {
                    "AccountId": event_account_id,
                    "CallbackTimestamp": timestamp,
                    "CallbackToken": account.callback_token,
                    "CallbackType": callback_type,
                    "CallbackURL": record.url,
                    "TransactionId": transaction_id,
                    **fields,
                }
                delivery = Delivery(
                    id=self._next_delivery,
                    event_id=event_id,
                    callback_id=record.id,
                    account_id=account.id,
                    callback_type=callback_type,
                    url=record.url,
                    transaction_id=transaction_id,
                    body=body,
                )
                self._next_delivery += 1
                self._deliveries.append(delivery)
                self._by_id[delivery.id] = delivery
                started.append(delivery)
            policy = self.policy
        tasks = [self._start(d, policy, generation) for d in started]
        event = {
            "AccountId": event_account_id,
            "CallbackTimestamp": timestamp,
            "CallbackType": callback_type,
            "CallbackTypeName": CALLBACK_TYPES[callback_type],
            **fields,
        }
        return {"event_id": event_id, "event": event, "deliveries": [d.to_dict() for d in started], "_tasks": tasks}

    def _start(self, delivery: Delivery, policy: DeliveryPolicy, generation: int) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._deliver(delivery, policy, generation))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def _client(self) -> httpx.AsyncClient:
        key = id(asyncio.get_running_loop())
        client = self._clients.get(key)
        if client is None or client.is_closed:
            client = self._clients[key] = httpx.AsyncClient(
                limits=httpx.Limits(max_connections=50, max_keepalive_connections=10), trust_env=False
            )
        return client

    async def _deliver(self, delivery: Delivery, policy: DeliveryPolicy, generation: int) -> None:
        content = json.dumps(delivery.body).encode("utf-8")
        headers = {"Content-Type": "application/json", "User-Agent": "messaging-platform-emulator"}
        for number in range(1, policy.max_attempts + 1):
            if generation != self._generation:
                return  # the emulator was reset
            start = time.monotonic()
            status: int | None = None
            error: str | None = None
            try:
                response = await self._client().post(
                    delivery.url, content=content, headers=headers, timeout=policy.timeout_seconds
                )
                status = response.status_code
            except httpx.HTTPError as exc:
                error = type(exc).__name__
            end = time.monotonic()
            ok = status is not None and 200 <= status < 300
            with self._lock:
                delivery.attempts.append(Attempt(number, status, error, end, round(end - start, 4)))
                if ok:
                    delivery.state = "delivered"
                elif number == policy.max_attempts:
                    delivery.state = "failed"
            if ok:
                return
            if number < policy.max_attempts:
                await asyncio.sleep(policy.pause(number))


_HUBS: weakref.WeakKeyDictionary[Emulator, EventHub] = weakref.WeakKeyDictionary()
_HUBS_LOCK = threading.Lock()


def events_for(emulator: Emulator) -> EventHub:
    with _HUBS_LOCK:
        hub = _HUBS.get(emulator)
        if hub is None:
            hub = _HUBS[emulator] = EventHub(emulator)
        return hub
