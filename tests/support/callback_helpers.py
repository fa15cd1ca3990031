"""Helpers of the callback tests: payload builders, polling, and a harness that drives a watcher trigger the way
Airflow 3.3's triggerer does."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

import requests

TOKEN = "3f0e8c52-8d0a-4c55-9b7e-6a1f2d4c9e01"
ACCOUNT_ID = 1001
BOUND_TOKEN = f"{ACCOUNT_ID}:{TOKEN}"  # as configured: the token of account 1001

COMMON = ("AccountId", "CallbackTimestamp", "CallbackToken", "CallbackType", "CallbackURL", "TransactionId")
FIELDS: dict[int, dict[str, Any]] = {
    1: {
        "CampaignId": 3001,
        "ChannelId": 22,
        "ContactId": 6001,
        "Keyword": "JOIN",
        "KeywordId": 8001,
        "PhoneNumber": "+15550100000",
        "SubscriptionId": 1,
    },
    3: {
        "Answer": "Yes",
        "QuestionCampaignId": 3002,
        "QuestionText": "Do you like it?",
        "ChannelId": 22,
        "ContactId": 6002,
        "PhoneNumber": "+15550100001",
        "SubscriptionId": 1,
        "DialogCampaignId": 3003,
    },
    6: {"ChannelId": 22, "ContactId": 6003, "PhoneNumber": "+15550100002", "SubscriptionId": 1},
    8: {"Name": "Branch office", "ParentId": 1001},
    11: {
        "Message": "hello",
        "ChannelId": 22,
        "ContactId": 6004,
        "PhoneNumber": "+15550100003",
        "ChannelCode": "55222",
        "AccountName": "Demo account",
    },
}


def now_timestamp() -> str:
    """A CallbackTimestamp of now, as the platform writes it (UTC, no offset)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S")


def callback(callback_type: int = 1, *, token: str = TOKEN, **overrides: Any) -> dict[str, Any]:
    """A valid callback body of the type, issued now, with a fresh TransactionId."""
    body: dict[str, Any] = {
        "AccountId": 1001,
        "CallbackTimestamp": now_timestamp(),
        "CallbackToken": token,
        "CallbackType": callback_type,
        "CallbackURL": "http://127.0.0.1/callbacks",
        "TransactionId": str(uuid.uuid4()),
        **FIELDS[callback_type],
    }
    body.update(overrides)
    return body


def post(url: str, body: Any, **kwargs: Any) -> requests.Response:
    return requests.post(url, json=body, timeout=30, **kwargs)  # generous: the machine may be loaded


def wait_until(check: Callable[[], Any], timeout: float = 30.0, interval: float = 0.02, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something true; that value. AssertionError naming ``what`` at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not met within {timeout} s")
        time.sleep(interval)


async def until(
    check: Callable[[], Any],
    timeout: float = 30.0,
    interval: float = 0.01,
    what: str = "condition",
    task: asyncio.Task[Any] | None = None,
) -> Any:
    """
    ``wait_until`` for a coroutine: ``check`` runs in a worker thread (it may query a database) and the event loop
    keeps running between polls. When ``task`` (a consumer, say) ends meanwhile, its error is raised at once.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = await asyncio.to_thread(check)
        if value:
            return value
        if task is not None and task.done():
            task.result()
            raise AssertionError(f"{what}: {task.get_name()} ended before the condition was met")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not met within {timeout} s")
        await asyncio.sleep(interval)


def _consumer_store(trigger: Any) -> Any:
    """The store the trigger's stream reads and keeps its position in (the triggerer's own, shared one)."""
    from messaging_platform_provider.callbacks.store import shared_store

    return shared_store(trigger.database_url)


async def wait_open(trigger: Any, timeout: float = 30.0, task: asyncio.Task[Any] | None = None) -> None:
    """
    Until the trigger's stream has opened its position (its row in ``mp_callback_consumer`` exists): a callback
    stored from then on is after that position, so it reaches the stream whatever ``start`` says.
    """
    store = await asyncio.to_thread(_consumer_store, trigger)
    await until(
        lambda: store.position(trigger.consumer) is not None,
        timeout=timeout,
        what=f"consumer {trigger.consumer!r} opened its position",
        task=task,
    )


class TriggererHarness:
    """
    Runs an event trigger as ``TriggerRunner.run_trigger`` does on Airflow 3.3 (shared stream, ack mode): subscribe
    through a ``SharedStreamManager``, feed the raw stream to ``filter_shared_stream``, bind each trigger event to
    the raw event it came from, and confirm it persisted once ``persist`` (what the supervisor does:
    ``Trigger.submit_event``) has stored it. ``crash`` drops everything not yet confirmed, like a killed triggerer.
    """

    def __init__(self, trigger: Any, *, trigger_id: int = 1, persist: Callable[[Any], None] | None = None) -> None:
        from airflow.triggers.shared_stream import SharedStreamManager

        self.trigger = trigger
        self.trigger_id = trigger_id
        self.persist = persist or (lambda event: None)
        self.manager = SharedStreamManager(ack_timeout=30)
        self.key = trigger.shared_stream_key()
        assert self.key is not None
        self.unconfirmed: list[tuple[Any, int | None]] = []
        self.yielded: list[Any] = []
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        stream = self.manager.subscribe(trigger_id=self.trigger_id, trigger=self.trigger, key=self.key)
        self.task = asyncio.create_task(self._consume(self.trigger.filter_shared_stream(stream)))

    async def _consume(self, events: Any) -> None:
        async for event in events:
            seq = self.manager.bind_pending_event(trigger_id=self.trigger_id, key=self.key)
            self.unconfirmed.append((event, seq))
            self.yielded.append(event)

    async def wait_open(self, timeout: float = 30.0) -> None:
        """Until the stream has opened its position: what is stored from then on reaches it."""
        await wait_open(self.trigger, timeout, self.task)

    async def wait_for(self, count: int, timeout: float = 30.0) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while len(self.yielded) < count:
            if self.task is not None and self.task.done():
                self.task.result()
            if loop.time() > deadline:
                raise AssertionError(f"{len(self.yielded)} events within {timeout} s, expected {count}")
            await asyncio.sleep(0.01)

    async def persist_pending(self, timeout: float = 30.0) -> list[Any]:
        """
        The supervisor's side: store each pending event, then confirm it (next state sync); returns once the
        advance pump has committed the position through the last of them (they must be the oldest unconfirmed).
        """
        done, self.unconfirmed = self.unconfirmed, []
        for event, _ in done:
            await asyncio.to_thread(self.persist, event)
        self.manager.confirm_persisted([seq for _, seq in done if seq is not None])
        confirmed = [int(event.payload["seq"]) for event, seq in done if seq is not None]
        if confirmed:
            store = await asyncio.to_thread(_consumer_store, self.trigger)
            consumer, last = self.trigger.consumer, max(confirmed)

            await until(
                lambda: (store.position(consumer) or 0) >= last,
                timeout=timeout,
                what=f"consumer {consumer!r} committed position {last}",
                task=self.task,  # a failed stream (an advance raised, say) raises its own error
            )
        return [event for event, _ in done]

    async def crash_task(self) -> None:
        if self.task is not None:
            self.task.cancel()
            try:
                await self.task
            except asyncio.CancelledError:
                pass

    async def crash(self) -> None:
        await self.crash_task()
        await self.manager.stop_all()


class StandaloneHarness:
    """
    Runs an event trigger as the triggerer does before Airflow 3.3 (no shared streams): iterate ``run()`` and take
    each event as it comes. Same surface as ``TriggererHarness``; there is no persist confirmation to wait for.
    """

    def __init__(self, trigger: Any, *, persist: Callable[[Any], None] | None = None) -> None:
        self.trigger = trigger
        self.persist = persist or (lambda event: None)
        self.pending: list[Any] = []
        self.yielded: list[Any] = []
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self.task = asyncio.create_task(self._consume(self.trigger.run()))

    async def _consume(self, events: Any) -> None:
        async for event in events:
            self.pending.append(event)
            self.yielded.append(event)

    wait_open = TriggererHarness.wait_open
    wait_for = TriggererHarness.wait_for

    async def persist_pending(self) -> list[Any]:
        done, self.pending = self.pending, []
        for event in done:
            await asyncio.to_thread(self.persist, event)
        return done

    crash = TriggererHarness.crash_task


def harness_for(trigger: Any, **kwargs: Any) -> TriggererHarness | StandaloneHarness:
    """The way this Airflow's triggerer runs an event trigger: a shared stream from 3.3, ``run()`` before."""
    from messaging_platform_provider.triggers.callback import HAVE_SHARED_STREAMS

    return TriggererHarness(trigger, **kwargs) if HAVE_SHARED_STREAMS else StandaloneHarness(trigger, **kwargs)


def add_callback_record(platform: Any, callback_type: int, url: str) -> dict[str, Any]:
    """A callback record on the emulator's seeded account (what the create-callback operator makes)."""
    session = requests.Session()
    session.auth = (platform.seed.api_key, platform.seed.api_secret)
    response = session.post(
        f"{platform.base_url}/account/{platform.seed.account_id}/callback",
        json={"CallbackType": callback_type, "URL": url, "Active": True},
        timeout=10,
    )
    response.raise_for_status()
    record: dict[str, Any] = response.json()
    return record


def transaction_sizes(store: Any, monkeypatch: Any) -> list[int]:
    """The number of callbacks in each transaction ``store`` opens from now on (its ``add_many`` calls), in order."""
    sizes: list[int] = []
    real = store.add_many

    def add_many(items: Any) -> list[bool]:
        sizes.append(len(items))
        result: list[bool] = real(items)
        return result

    monkeypatch.setattr(store, "add_many", add_many)
    return sizes
