"""Callback delivery: POSTing an event's callbacks, each retried with backoff until it succeeds or runs out of tries.

Deliveries run as tasks on the server's event loop, so a control request that fires an event answers as soon as
they are started. A receiver that answers non-2xx, or cannot be reached, gets the same body again (same
TransactionId) after the policy's backoff, up to ``max_attempts`` tries; every try goes to the ``DeliveryRecord``.
One ``CallbackDelivery`` belongs to one ``Emulator``, which resets it with everything else: deliveries still
running from before a reset stop before their next try.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from .delivery_record import Attempt, CallbackEvent, Delivery, DeliveryPolicy, DeliveryRecord
from .models import Callback

_HEADERS = {"Content-Type": "application/json", "User-Agent": "messaging-platform-emulator"}


@dataclass
class FiredEvent:
    """An event whose deliveries were started: the control answer (deliveries as they were when fired) and the
    tasks running them."""

    event_id: int
    event: dict[str, Any]
    deliveries: list[dict[str, Any]]
    tasks: list[asyncio.Task[None]] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"event_id": self.event_id, "event": self.event, "deliveries": self.deliveries}


class CallbackDelivery:
    def __init__(self) -> None:
        self.record = DeliveryRecord()
        self._tasks: set[asyncio.Task[None]] = set()
        self._clients: dict[int, httpx.AsyncClient] = {}

    def reset(self) -> None:
        """Forget the record and the policy; deliveries still running stop before their next try."""
        self.record.reset()

    def send(self, event: CallbackEvent, records: Sequence[Callback]) -> FiredEvent:
        """Record one delivery of ``event`` to each callback record and start them. Must be called on the event
        loop that is to run them (a route's)."""
        recorded = self.record.add_event(event, records)
        tasks = [self._start(d, recorded.policy, recorded.generation) for d in recorded.deliveries]
        return FiredEvent(recorded.event_id, event.to_dict(), [d.to_dict() for d in recorded.deliveries], tasks)

    async def settled(self, fired: FiredEvent) -> list[dict[str, Any]]:
        """The event's deliveries once each is delivered or has failed (as fired, if the record lost one)."""
        if not fired.tasks:
            return fired.deliveries
        await asyncio.gather(*fired.tasks, return_exceptions=True)
        return [self.record.get(d["id"]) or d for d in fired.deliveries]

    def _start(self, delivery: Delivery, policy: DeliveryPolicy, generation: int) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(self._deliver(delivery, policy, generation))
        self._tasks.add(task)  # a task nothing refers to may be collected before it ends
        task.add_done_callback(self._tasks.discard)
        return task

    def _client(self) -> httpx.AsyncClient:
        """One pooled client per event loop (a client must not be shared across loops)."""
        key = id(asyncio.get_running_loop())
        client = self._clients.get(key)
        if client is None or client.is_closed:
            client = self._clients[key] = httpx.AsyncClient(
                limits=httpx.Limits(max_connections=50, max_keepalive_connections=10), trust_env=False
            )
        return client

    async def _deliver(self, delivery: Delivery, policy: DeliveryPolicy, generation: int) -> None:
        content = json.dumps(delivery.body).encode("utf-8")
        for number in range(1, policy.max_attempts + 1):
            if generation != self.record.generation:
                return  # the emulator was reset
            start = time.monotonic()
            status: int | None = None
            error: str | None = None
            try:
                response = await self._client().post(
                    delivery.url, content=content, headers=_HEADERS, timeout=policy.timeout_seconds
                )
                status = response.status_code
            except httpx.HTTPError as exc:
                error = type(exc).__name__
            end = time.monotonic()
            ok = status is not None and 200 <= status < 300
            last = number == policy.max_attempts
            self.record.add_attempt(
                delivery, Attempt(number, status, error, end, round(end - start, 4)), ok=ok, last=last
            )
            if ok:
                return
            if not last:
                await asyncio.sleep(policy.pause(number))
