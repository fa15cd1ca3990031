"""The record of callback deliveries: every callback an event sent, its tries, and the policy the tries follow.

Tests read it through ``GET /_emulator/events/deliveries`` to see what a receiver was sent and how often. The
record keeps the newest ``MAX_RECORDED`` deliveries; events and deliveries are numbered from 1 again after a
reset, whose ``generation`` tells deliveries still running from before it to stop.
"""

from __future__ import annotations

import threading
import uuid
from collections import deque
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .models import CALLBACK_TYPES, Callback

MAX_RECORDED = 10_000


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


@dataclass(frozen=True)
class PolicyChanges:
    """Policy values to change; None keeps the current one."""

    max_attempts: int | None = None
    backoff_seconds: float | None = None
    backoff_max_seconds: float | None = None
    timeout_seconds: float | None = None


@dataclass(frozen=True)
class CallbackEvent:
    """An event as it fired: what each of its callbacks carries, the record's URL and a transaction id aside."""

    account_id: int  # the body's AccountId: the account the event is about (for NewAccount, the new one)
    callback_type: int
    timestamp: str
    token: str  # the CallbackToken of the account whose records receive the event
    fields: dict[str, Any]

    def body(self, url: str, transaction_id: str) -> dict[str, Any]:
        """What is POSTed to one callback record."""
        return {
            "AccountId": self.account_id,
            "CallbackTimestamp": self.timestamp,
            "CallbackToken": self.token,
            "CallbackType": self.callback_type,
            "CallbackURL": url,
            "TransactionId": transaction_id,
            **self.fields,
        }

    def to_dict(self) -> dict[str, Any]:
        """The event in a control answer: no token, no per-record values."""
        return {
            "AccountId": self.account_id,
            "CallbackTimestamp": self.timestamp,
            "CallbackType": self.callback_type,
            "CallbackTypeName": CALLBACK_TYPES[self.callback_type],
            **self.fields,
        }


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


@dataclass(frozen=True)
class RecordedEvent:
    """An event's deliveries as recorded, with the policy and generation they are to be sent under."""

    event_id: int
    deliveries: list[Delivery]
    policy: DeliveryPolicy
    generation: int


class DeliveryRecord:
    """Deliveries and policy of one emulator, behind their own lock (sending runs outside the store's)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.generation = 0
        self._start()

    def _start(self) -> None:
        self._policy = DeliveryPolicy()
        self._deliveries: deque[Delivery] = deque(maxlen=MAX_RECORDED)
        self._by_id: dict[int, Delivery] = {}
        self._next_delivery = 1
        self._next_event = 1

    def reset(self) -> None:
        """Forget every delivery and the policy; deliveries still running stop before their next try."""
        with self._lock:
            self.generation += 1
            self._start()

    def add_event(self, event: CallbackEvent, records: Sequence[Callback]) -> RecordedEvent:
        """Number the event and record one delivery to each callback record, in the order given."""
        with self._lock:
            event_id = self._next_event
            self._next_event += 1
            deliveries = []
            for record in records:
                transaction_id = str(uuid.uuid4())
                delivery = Delivery(
                    id=self._next_delivery,
                    event_id=event_id,
                    callback_id=record.id,
                    account_id=record.account_id,
                    callback_type=event.callback_type,
                    url=record.url,
                    transaction_id=transaction_id,
                    body=event.body(record.url, transaction_id),
                )
                self._next_delivery += 1
                self._deliveries.append(delivery)
                self._by_id[delivery.id] = delivery
                deliveries.append(delivery)
            return RecordedEvent(event_id, deliveries, self._policy, self.generation)

    def add_attempt(self, delivery: Delivery, attempt: Attempt, *, ok: bool, last: bool) -> None:
        """Note a try; the delivery is delivered when it succeeded, failed when it was the last."""
        with self._lock:
            delivery.attempts.append(attempt)
            if ok:
                delivery.state = "delivered"
            elif last:
                delivery.state = "failed"

    def policy(self) -> DeliveryPolicy:
        with self._lock:
            return self._policy

    def set_policy(self, changes: PolicyChanges) -> DeliveryPolicy:
        with self._lock:
            given = {name: value for name, value in asdict(changes).items() if value is not None}
            self._policy = replace(self._policy, **given)
            return self._policy

    def list(self, since: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            return [d.to_dict() for d in self._deliveries if d.id > since]

    def get(self, delivery_id: int) -> dict[str, Any] | None:
        with self._lock:
            found = self._by_id.get(delivery_id)
            return found.to_dict() if found is not None else None

    def clear(self) -> int:
        with self._lock:
            count = len(self._deliveries)
            self._deliveries.clear()
            self._by_id.clear()
            return count
