"""
Triggers over the callback store: an event trigger for ``AssetWatcher`` (one event per new matching callback) and
the one-shot trigger behind the deferrable ``MessagingPlatformCallbackSensor``.

Database reads run in a worker thread (``asyncio.to_thread``) and never block the triggerer's event loop. The store
is SQLAlchemy with a synchronous driver, so any database with a synchronous driver works; the async driver that
Airflow ships (aiosqlite) would cover SQLite only.

How the watcher keeps its position (see docs/callbacks.md, "Delivery guarantee"):

- The position is a ``seq`` of the store, committed in the store's ``mp_callback_consumer`` table under the
  trigger's ``consumer`` name. ``seq`` is gap-free and in commit order, so "after the position" never skips a
  callback.
- On Airflow 3.3 the trigger runs as a shared stream in *ack mode*: the triggerer tells the producer which events
  were persisted as asset events in Airflow's metadata database, and only then is the position committed
  (``CallbackStoreProducer.advance``). A triggerer that dies before that re-reads from the committed position, so
  no callback is lost. A callback is repeated only if the triggerer dies between Airflow committing its asset event
  and the position commit (one state sync, about a second); ``claim_callbacks`` lets the DAG drop such a repeat.
- Without shared streams (Airflow before 3.3) ``run`` commits the position as soon as the triggerer has taken the
  event from the trigger, before Airflow persists it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Hashable, Iterable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from airflow.triggers.base import BaseEventTrigger, BaseTrigger, TriggerEvent

from messaging_platform_provider.callbacks.filters import CallbackFilter
from messaging_platform_provider.callbacks.settings import resolve_database_url
from messaging_platform_provider.client.values import parse_iso_datetime
from messaging_platform_provider.triggers.heap import freeze_startup_heap

if TYPE_CHECKING:
    from messaging_platform_provider.callbacks.store import CallbackStore

try:  # Airflow 3.3+: event triggers can share one stream, and Airflow confirms each event it persisted
    from airflow.triggers.shared_stream import AdvanceItem, SharedStreamProducer

    HAVE_SHARED_STREAMS = True
except ImportError:
    HAVE_SHARED_STREAMS = False
    AdvanceItem = Any  # type: ignore[misc,assignment]
    SharedStreamProducer = object  # type: ignore[misc,assignment]

STREAM_KEY = "messaging_platform_callbacks"


class CallbackNotPersisted(RuntimeError):
    """The triggerer could not confirm a callback's asset event; the stream restarts from the committed position."""


def _positive(name: str, value: float) -> float:
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0")
    return float(value)


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
    return value


class CallbackStoreProducer(SharedStreamProducer):
    """
    The "broker" side of the watcher: reads the store from the consumer's committed position and commits the
    position only for events the triggerer confirmed persisted.
    """

    def __init__(self, kwargs: dict[str, Any]) -> None:
        self.filter = CallbackFilter.build(
            kwargs.get("callback_types"), kwargs.get("keywords"), kwargs.get("account_ids"), kwargs.get("phone_numbers")
        )
        self.consumer = str(kwargs.get("consumer") or default_consumer(self.filter))
        self.database_url = kwargs.get("database_url")
        self.start = str(kwargs.get("start") or "latest")
        self.poll_interval = float(kwargs.get("poll_interval") or 1.0)
        self.batch_size = int(kwargs.get("batch_size") or 100)
        self.store: CallbackStore | None = None
        self.committed: int | None = None

    async def _store(self) -> CallbackStore:
        if self.store is None:
            from messaging_platform_provider.callbacks.store import shared_store

            self.store = await asyncio.to_thread(shared_store, self.database_url)
        return self.store

    async def open_stream(self) -> AsyncIterator[tuple[dict[str, Any], int]]:
        """Yield ``(event, seq)`` for every matching callback after the committed position, forever."""
        freeze_startup_heap()
        store = await self._store()
        cursor = self.committed = await asyncio.to_thread(store.open_position, self.consumer, self.start)
        while True:
            rows = await asyncio.to_thread(store.read_after, cursor, self.filter, self.batch_size)
            for row in rows:
                cursor = row.seq
                if row.is_carriable():
                    yield row.to_event(), row.seq
            if len(rows) < self.batch_size:
                await asyncio.sleep(self.poll_interval)

    async def advance(self, batch: Sequence[AdvanceItem]) -> None:
        """Commit the position through the clean prefix of ``batch``; a failed event restarts the stream."""
        last: int | None = None
        failed = False
        for item in batch:
            if not item.outcome.is_clean:
                failed = True
                break
            last = int(item.broker_payload)
        if last is not None:
            await self.commit(last)
        if failed:
            raise CallbackNotPersisted(
                f"consumer {self.consumer!r}: an event after seq {self.committed} was not confirmed persisted; "
                "it will be read again from the committed position"
            )

    async def commit(self, position: int) -> None:
        store = await self._store()
        await asyncio.to_thread(store.commit_position, self.consumer, position)
        self.committed = position


def default_consumer(filt: CallbackFilter) -> str:
    return f"trigger:{filt.describe()}"


class MessagingPlatformCallbackTrigger(BaseEventTrigger):
    """
    Fire one ``TriggerEvent`` per new stored callback matching the filter; for ``AssetWatcher``.

    The event's payload (the asset event's ``extra["payload"]``) is ``{"seq", "transaction_id", "callback_type",
    "account_id", "received_at", "payload"}`` where ``payload`` is the callback as the platform sent it, without
    its ``CallbackToken``.

    :param callback_types: names or numbers (``"Keyword"``, ``3``); empty: every type.
    :param keywords: keyword names (case-insensitive); empty: any.
    :param account_ids: the callbacks' AccountId; empty: any.
    :param phone_numbers: the callbacks' PhoneNumber; empty: any.
    :param consumer: name under which the position is kept in the store. Give one per watcher and keep it when
        you change the filter or the poll interval; default: derived from the filter.
    :param database_url: the store; ``None``: the configured one (``$MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL``,
        ``[messaging_platform_callbacks] database_url``, else ``messaging_platform_callbacks.db`` in
        ``AIRFLOW_HOME``), resolved in the triggerer.
    :param start: where a consumer seen for the first time starts: ``latest`` (callbacks stored from then on) or
        ``earliest`` (every stored callback).
    :param poll_interval: seconds between reads of the store when there is nothing new.
    :param batch_size: callbacks read per query.
    """

    def __init__(
        self,
        *,
        callback_types: Iterable[int | str] | int | str | None = None,
        keywords: Iterable[str] | str | None = None,
        account_ids: Iterable[int | str] | int | str | None = None,
        phone_numbers: Iterable[str] | str | None = None,
        consumer: str | None = None,
        database_url: str | None = None,
        start: str = "latest",
        poll_interval: float = 1.0,
        batch_size: int = 100,
    ) -> None:
        super().__init__()
        self.filter = CallbackFilter.build(callback_types, keywords, account_ids, phone_numbers)
        if start not in ("latest", "earliest"):
            raise ValueError("start must be 'latest' or 'earliest'")
        self.consumer = consumer or default_consumer(self.filter)
        self.database_url = database_url
        self.start = start
        self.poll_interval = _positive("poll_interval", poll_interval)
        self.batch_size = _count("batch_size", batch_size)

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                **self.filter.to_kwargs(),
                "consumer": self.consumer,
                "database_url": self.database_url,
                "start": self.start,
                "poll_interval": self.poll_interval,
                "batch_size": self.batch_size,
            },
        )

    # -- Airflow 3.3 shared stream, ack mode ------------------------------------------------------

    def shared_stream_key(self) -> Hashable | None:
        if not HAVE_SHARED_STREAMS:
            return None
        return (STREAM_KEY, resolve_database_url(self.database_url), self.consumer)

    @classmethod
    def create_shared_stream_producer(cls, kwargs: dict[str, Any]) -> CallbackStoreProducer:
        return CallbackStoreProducer(kwargs)

    async def filter_shared_stream(self, stream: AsyncIterator[Any]) -> AsyncIterator[TriggerEvent]:
        async for raw in stream:
            if self._matches(raw):
                yield TriggerEvent(raw)

    def _matches(self, raw: dict[str, Any]) -> bool:
        payload = raw.get("payload") or {}
        return self.filter.matches(
            int(raw["callback_type"]), int(raw["account_id"]), payload.get("Keyword"), payload.get("PhoneNumber")
        )

    # -- standalone path (no shared streams) ------------------------------------------------------

    async def run(self) -> AsyncIterator[TriggerEvent]:
        producer = CallbackStoreProducer(self.serialize()[1])
        async for raw, seq in producer.open_stream():
            if self._matches(raw):
                yield TriggerEvent(raw)
            await producer.commit(seq)


class MessagingPlatformCallbackSensorTrigger(BaseTrigger):
    """
    Wait for the first stored callback matching the filter received at or after ``received_after``; the deferrable
    half of ``MessagingPlatformCallbackSensor`` (the poke half runs the same query, ``find_callback``).

    Yields ``{"outcome": "success", "callback": {...}}`` or ``{"outcome": "timeout", "message": ...}``, each with
    ``try_number``, the task try that deferred.
    """

    def __init__(
        self,
        *,
        filter_kwargs: dict[str, Any],
        received_after: str,
        database_url: str | None = None,
        poll_interval: float = 5.0,
        deadline: str | None = None,
        try_number: int | None = None,
    ) -> None:
        super().__init__()
        self.filter_kwargs = dict(filter_kwargs)
        self.received_after = received_after
        self.database_url = database_url
        self.poll_interval = _positive("poll_interval", poll_interval)
        self.deadline = deadline
        self.try_number = try_number

    def serialize(self) -> tuple[str, dict[str, Any]]:
        return (
            f"{type(self).__module__}.{type(self).__qualname__}",
            {
                "filter_kwargs": self.filter_kwargs,
                "received_after": self.received_after,
                "database_url": self.database_url,
                "poll_interval": self.poll_interval,
                "deadline": self.deadline,
                "try_number": self.try_number,
            },
        )

    async def run(self) -> AsyncIterator[TriggerEvent]:
        from messaging_platform_provider.callbacks.store import shared_store
        from messaging_platform_provider.waiting.deadline import bounded_pause, seconds_left

        freeze_startup_heap()
        store = await asyncio.to_thread(shared_store, self.database_url)
        filt = CallbackFilter.build(**self.filter_kwargs)
        while True:
            found = await asyncio.to_thread(find_callback, store, filt, self.received_after)
            if found is not None:
                yield TriggerEvent({"outcome": "success", "callback": found, "try_number": self.try_number})
                return
            left = seconds_left(self.deadline)
            if left is not None and left <= 0:
                message = f"no matching callback by {self.deadline}"
                yield TriggerEvent({"outcome": "timeout", "message": message, "try_number": self.try_number})
                return
            await asyncio.sleep(bounded_pause(self.poll_interval, left))


def parse_instant(value: str | datetime) -> datetime:
    """An instant as naive UTC (the store's form), read as the operators read a date-time; naive input is UTC."""
    moment = value if isinstance(value, datetime) else parse_iso_datetime(str(value))
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment


def find_callback(store: CallbackStore, filt: CallbackFilter, received_after: str | datetime) -> dict[str, Any] | None:
    """The one query both sensor paths make: the oldest match received at or after the instant."""
    after = parse_instant(received_after)
    found = store.first_match(filt, received_after=after)
    while found is not None and not found.is_carriable():
        found = store.first_match(filt, after_seq=found.seq, received_after=after)
    return found.to_event() if found is not None else None
