"""
The watcher trigger: one event per new matching callback, a position that survives a triggerer restart without
losing or repeating a persisted event, and reads that never block the event loop.

The restart tests drive the trigger through Airflow 3.3's own ``SharedStreamManager`` exactly as the triggerer's
``run_trigger`` does (``TriggererHarness`` in conftest.py); "persisting" an event stands for the supervisor's
``Trigger.submit_event`` followed by the persist confirmation of the next state sync.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
from typing import Any

import pytest

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.store import NewCallback
from messaging_platform_provider.triggers.callback import (
    HAVE_SHARED_STREAMS,
    MessagingPlatformCallbackSensorTrigger,
    MessagingPlatformCallbackTrigger,
)
from tests.support.airflow_versions import needs_shared_streams, serde
from tests.support.callback_helpers import TriggererHarness, callback, harness_for, until

CONSUMER = "test-consumer"


def add(store, *bodies):
    return store.add_many([NewCallback.from_model(parse_callback(b)) for b in bodies])


def keyword(word="JOIN", **overrides):
    return callback(1, Keyword=word, **overrides)


def trigger(**kwargs) -> MessagingPlatformCallbackTrigger:
    values = {"callback_types": ["Keyword"], "keywords": ["join"], "consumer": CONSUMER, "poll_interval": 0.02}
    values.update(kwargs)
    return MessagingPlatformCallbackTrigger(**values)


def ids(events):
    return [e.payload["transaction_id"] for e in events]


WATCHER = "messaging_platform_provider.triggers.callback.MessagingPlatformCallbackTrigger"
SENSOR_TRIGGER = "messaging_platform_provider.triggers.callback.MessagingPlatformCallbackSensorTrigger"


def stored_and_rebuilt(t: Any) -> Any:
    """The trigger as the triggerer gets it back: ``serialize()``, through Airflow's serde (the trigger row), built."""
    classpath, kwargs = t.serialize()
    module, _, name = classpath.rpartition(".")
    return getattr(importlib.import_module(module), name)(**serde().deserialize(serde().serialize(kwargs)))


def test_serialises_and_rebuilds_to_the_same_identity(database_url):
    made = trigger(account_ids=[1001], phone_numbers=["+1 555 010 0000"])
    expected = {  # every argument as given (normalised), the defaults for the rest: written out, not re-derived
        "callback_types": [1],
        "keywords": ["JOIN"],
        "account_ids": [1001],
        "phone_numbers": ["+15550100000"],
        "consumer": CONSUMER,
        "database_url": None,  # resolved in the triggerer, not baked into the trigger row
        "start": "latest",
        "poll_interval": 0.02,
        "batch_size": 100,
    }
    assert made.serialize() == (WATCHER, expected)
    assert stored_and_rebuilt(made).serialize() == (WATCHER, expected)
    shared = ("messaging_platform_callbacks", database_url, CONSUMER)
    assert made.shared_stream_key() == (shared if HAVE_SHARED_STREAMS else None)
    with pytest.raises(ValueError):
        MessagingPlatformCallbackTrigger(callback_types=["Nope"])


def test_every_argument_of_the_watcher_survives_the_trigger_row():
    made = MessagingPlatformCallbackTrigger(
        callback_types=["Stop", 1],
        keywords="help",
        account_ids="1002",
        phone_numbers=["+1 555 010 0001"],
        consumer="named",
        database_url="sqlite:////tmp/elsewhere.db",
        start="earliest",
        poll_interval=2,
        batch_size=7,
    )
    expected = {
        "callback_types": [1, 6],  # Keyword 1, Stop 6
        "keywords": ["HELP"],
        "account_ids": [1002],
        "phone_numbers": ["+15550100001"],
        "consumer": "named",
        "database_url": "sqlite:////tmp/elsewhere.db",
        "start": "earliest",
        "poll_interval": 2.0,
        "batch_size": 7,
    }
    assert made.serialize() == (WATCHER, expected)
    assert stored_and_rebuilt(made).serialize() == (WATCHER, expected)


def test_every_argument_of_the_sensor_trigger_survives_the_trigger_row():
    filter_kwargs = {"callback_types": [3], "keywords": [], "account_ids": [1001], "phone_numbers": ["+15550100000"]}
    made = MessagingPlatformCallbackSensorTrigger(
        filter_kwargs=filter_kwargs,
        received_after="2026-12-01T09:00:00+00:00",
        database_url="sqlite:////tmp/elsewhere.db",
        poll_interval=2,
        deadline="2026-12-01T10:00:00+00:00",
        try_number=3,
    )
    expected = {
        "filter_kwargs": {
            "callback_types": [3],
            "keywords": [],
            "account_ids": [1001],
            "phone_numbers": ["+15550100000"],
        },
        "received_after": "2026-12-01T09:00:00+00:00",
        "database_url": "sqlite:////tmp/elsewhere.db",
        "poll_interval": 2.0,
        "deadline": "2026-12-01T10:00:00+00:00",
        "try_number": 3,
    }
    assert made.serialize() == (SENSOR_TRIGGER, expected)
    assert stored_and_rebuilt(made).serialize() == (SENSOR_TRIGGER, expected)
    defaults = MessagingPlatformCallbackSensorTrigger(filter_kwargs={}, received_after="2026-12-01T09:00:00+00:00")
    assert defaults.serialize() == (
        SENSOR_TRIGGER,
        {
            "filter_kwargs": {},
            "received_after": "2026-12-01T09:00:00+00:00",
            "database_url": None,
            "poll_interval": 5.0,
            "deadline": None,
            "try_number": None,
        },
    )


def test_yields_one_event_per_matching_callback_in_order(store):
    async def scenario():
        harness = harness_for(trigger())
        await harness.start()
        await harness.wait_open()  # a new consumer starts at the newest stored callback: add only after that
        add(store, wanted[0], others[0], wanted[1], others[1], others[2], wanted[2])
        assert add(store, wanted[2]) == [False]  # a resend stores nothing new
        add(store, last)
        await harness.wait_for(4)  # events come in seq order: a repeat of anything would come before ``last``
        await harness.crash()
        return harness.yielded

    wanted = [keyword(), keyword("Join"), keyword()]
    others = [keyword("STOPNOW"), callback(3), callback(6)]
    last = keyword()
    events = asyncio.run(scenario())
    assert ids(events) == [b["TransactionId"] for b in [*wanted, last]]
    assert [e.payload["seq"] for e in events] == [1, 3, 6, 7]  # stored 1-6 in one batch (the resend: none), 7
    first = events[0].payload
    assert first["callback_type"] == 1 and first["payload"]["Keyword"] == "JOIN"
    assert set(first) == {"seq", "transaction_id", "callback_type", "account_id", "received_at", "payload"}
    assert "CallbackToken" not in first["payload"]


@needs_shared_streams
def test_a_restart_neither_loses_nor_repeats(store):
    """Persisted events are never yielded again; events yielded but not persisted when it died come back once."""
    persisted: list[str] = []

    def persist(event):
        persisted.append(event.payload["transaction_id"])

    bodies = [keyword() for _ in range(9)]

    async def life(new_bodies, persist_count, wanted):
        harness = TriggererHarness(trigger(), persist=persist)
        await harness.start()
        await harness.wait_open()
        add(store, *new_bodies)
        await harness.wait_for(wanted)
        kept, harness.unconfirmed = harness.unconfirmed[persist_count:], harness.unconfirmed[:persist_count]
        await harness.persist_pending()  # only the first ``persist_count`` reach Airflow's database (committed)
        harness.unconfirmed = kept
        await harness.crash()  # the rest die with the triggerer
        return ids(harness.yielded)

    # First life: the consumer is new (starts at the newest callback); 5 arrive, 3 persisted, then a crash.
    first = asyncio.run(life(bodies[:5], 3, 5))
    assert first == [b["TransactionId"] for b in bodies[:5]]
    assert store.position(CONSUMER) == 3
    # Second life: the 2 unpersisted come back (not the 3 persisted), then 4 new ones; all persisted.
    second = asyncio.run(life(bodies[5:], 6, 6))
    assert second == [b["TransactionId"] for b in bodies[3:]]
    assert persisted == [b["TransactionId"] for b in bodies]  # every callback reached Airflow exactly once
    assert store.position(CONSUMER) == 9

    async def third_life(new_body):  # a clean restart yields only what is new: nothing persisted comes before it
        harness = TriggererHarness(trigger())
        await harness.start()
        await harness.wait_open()
        add(store, new_body)
        await harness.wait_for(1)
        await harness.crash()
        return ids(harness.yielded)

    fresh = keyword()
    assert asyncio.run(third_life(fresh)) == [fresh["TransactionId"]]


@needs_shared_streams
def test_an_event_that_is_not_confirmed_restarts_the_stream_from_the_committed_position(store):
    """The triggerer never confirms (persist failed): after the ack timeout the trigger fails, position unmoved."""
    from airflow.triggers.shared_stream import AckTimeout

    async def scenario():
        harness = TriggererHarness(trigger())
        # both events are read in one query and handed to the subscriber in one turn of the loop, well within it
        harness.manager = type(harness.manager)(ack_timeout=1.0)
        await harness.start()
        await harness.wait_open()
        add(store, keyword(), keyword())
        await harness.wait_for(2)
        assert harness.task is not None
        with pytest.raises(AckTimeout):
            await asyncio.wait_for(harness.task, 30)
        await harness.manager.stop_all()

    asyncio.run(scenario())
    assert store.position(CONSUMER) == 0


def test_position_is_per_consumer_and_a_new_consumer_starts_where_asked(store):
    old = [keyword(), keyword()]
    add(store, *old)

    async def first_events(made, new_body):
        """What the consumer yields up to a callback stored once it is open (seq order: the old ones come first)."""
        harness = harness_for(made)
        await harness.start()
        await harness.wait_open()
        add(store, new_body)
        await until(
            lambda: new_body["TransactionId"] in ids(harness.yielded),
            what="the new callback yielded",
            task=harness.task,
        )
        await harness.crash()
        return ids(harness.yielded)

    new = [keyword(), keyword()]
    assert asyncio.run(first_events(trigger(consumer="late"), new[0])) == [new[0]["TransactionId"]]
    history = asyncio.run(first_events(trigger(consumer="history", start="earliest"), new[1]))
    assert history == [b["TransactionId"] for b in [*old, *new]]


def test_concurrent_writers_are_read_completely_and_in_commit_order(database_url, store):
    """Two writers in parallel threads (each its own engine, like two receiver processes): nothing skipped."""
    from messaging_platform_provider.callbacks.store import CallbackStore

    written: list[str] = []
    lock = threading.Lock()

    def writer():
        own = CallbackStore(database_url)
        for _ in range(40):
            batch = [keyword() for _ in range(3)]
            add(own, *batch)
            with lock:
                written.extend(b["TransactionId"] for b in batch)
        own.close()

    async def scenario():
        harness = harness_for(trigger(), persist=lambda e: None)
        await harness.start()
        await harness.wait_open()
        threads = [threading.Thread(target=writer) for _ in range(2)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while any(t.is_alive() for t in threads) or len(harness.yielded) < 240:
            await harness.persist_pending()
            await asyncio.sleep(0.02)
            if len(harness.yielded) > 240:
                break
            if harness.task is not None and harness.task.done():
                harness.task.result()
            assert time.monotonic() < deadline, f"{len(harness.yielded)} of 240 events within 60 s"
        await harness.persist_pending()
        await harness.crash()
        for t in threads:
            t.join()
        return harness.yielded

    events = asyncio.run(scenario())
    assert sorted(ids(events)) == sorted(written) and len(events) == 240
    assert [e.payload["seq"] for e in events] == list(range(1, 241))


class SlowRead:
    """One read of the slow database: in progress until the event loop has turned ``TURNS`` times meanwhile."""

    TURNS = 3

    def __init__(self) -> None:
        self.turns = 0  # counted by the ticker on the event loop, while this read is in progress
        self.released = threading.Event()


def test_reads_do_not_block_the_event_loop(store, monkeypatch):
    """
    Each read stands for a slow database: it runs off the event loop's thread, and answers only once a ticker on
    the event loop has turned three times while the read is in progress. A read run on the event loop's thread
    is counted as such at once (waiting there for the ticker would hang the loop).
    """
    real = store.read_after
    in_progress: list[SlowRead] = []
    outcomes: list[tuple[bool, bool]] = []  # per read: (run off the loop's thread, the loop turned meanwhile)
    lock = threading.Lock()
    stopping = threading.Event()
    loop_thread: list[int] = []

    def slow(*args, **kwargs):
        off_loop = threading.get_ident() not in loop_thread
        read = SlowRead()
        with lock:
            in_progress.append(read)
        try:
            # A generous deadline for three turns of a 10 ms ticker: reached only if the loop cannot turn.
            released = off_loop and (stopping.is_set() or read.released.wait(30.0))
        finally:
            with lock:
                in_progress.remove(read)
        outcomes.append((off_loop, released))
        return real(*args, **kwargs)

    from messaging_platform_provider.callbacks import store as store_module

    monkeypatch.setattr(store_module, "_SHARED", {store.url: store})
    monkeypatch.setattr(store, "read_after", slow)

    async def ticker():
        while True:
            await asyncio.sleep(0.01)
            with lock:
                reads = list(in_progress)
            for read in reads:
                read.turns += 1
                if read.turns >= SlowRead.TURNS:
                    read.released.set()

    async def scenario():
        loop_thread.append(threading.get_ident())
        tick = asyncio.create_task(ticker())
        harness = harness_for(trigger())
        await harness.start()
        await until(lambda: len(outcomes) >= 3 or not all(all(o) for o in outcomes), what="3 reads", task=harness.task)
        stopping.set()  # reads still in flight (or starting) answer at once
        with lock:
            for read in in_progress:
                read.released.set()
        await harness.crash()
        tick.cancel()

    asyncio.run(scenario())
    assert outcomes[:3] == [(True, True)] * 3, "a read ran on the event loop's thread, or held the loop meanwhile"


def test_the_standalone_run_path_commits_as_it_hands_events_over(store):
    """Without shared streams (Airflow before 3.3) ``run`` is used: the same events, position after hand-over."""
    made = trigger()

    async def scenario():
        events = []
        gen = made.run()
        task = asyncio.create_task(gen.__anext__())
        await until(lambda: store.position(CONSUMER) is not None, what="the consumer opened its position", task=task)
        add(store, keyword(), callback(6), keyword())
        events.append(await asyncio.wait_for(task, 30))
        events.append(await asyncio.wait_for(gen.__anext__(), 30))
        await gen.aclose()
        return events

    events = asyncio.run(scenario())
    assert [e.payload["payload"]["Keyword"] for e in events] == ["JOIN", "JOIN"]
    assert store.position(CONSUMER) == 1  # the second event was handed over, its position not yet committed


def carried_by_the_triggerer(payload: dict) -> dict:
    """The event payload through msgpack and back, as the triggerer's runner sends events to its supervisor."""
    import msgspec

    return msgspec.msgpack.decode(msgspec.msgpack.encode(payload))


def test_a_stored_callback_airflow_cannot_carry_is_skipped_by_watcher_and_sensor(store, caplog):
    """
    A store written before the receiver checked what consumers can carry may hold such a callback: the triggerer's
    runner died on it (msgpack: integers beyond 64 bits) and again on every restart. It is skipped with a warning.
    """
    from messaging_platform_provider.callbacks.filters import CallbackFilter
    from messaging_platform_provider.triggers.callback import find_callback

    poison = keyword(ContactId=2**64, PhoneNumber="+15550109999")
    good = [keyword(), keyword(PhoneNumber="+15550109999")]

    async def scenario():
        harness = harness_for(trigger())
        await harness.start()
        await harness.wait_open()
        add(store, good[0], poison, keyword(Extra={"__classname__": "x"}), good[1])
        await harness.wait_for(2)
        await harness.crash()
        return harness.yielded

    events = asyncio.run(scenario())
    assert ids(events) == [b["TransactionId"] for b in good]
    assert [carried_by_the_triggerer(e.payload) for e in events] == [e.payload for e in events]
    assert poison["TransactionId"] in caplog.text and "ContactId" in caplog.text and str(2**64) not in caplog.text
    # the callback sensor's query (poke and deferred alike): the first match is the poison, the answer the next
    same_phone = CallbackFilter.build(phone_numbers=["+15550109999"])
    assert store.first_match(same_phone).transaction_id == poison["TransactionId"]
    found = find_callback(store, same_phone, "2000-01-01T00:00:00")
    assert found is not None and found["transaction_id"] == good[1]["TransactionId"]


# -- arguments ------------------------------------------------------------------------------------


def test_a_watcher_given_only_its_filter_writes_out_the_defaults_and_names_its_consumer_after_the_filter():
    """The consumer a watcher gets without one is named after its filter: the same filter, the same position."""
    made = MessagingPlatformCallbackTrigger(callback_types=["Keyword"], keywords=["join"])
    assert made.serialize() == (
        WATCHER,
        {
            "callback_types": [1],
            "keywords": ["JOIN"],
            "account_ids": [],
            "phone_numbers": [],
            "consumer": "trigger:type=Keyword,keyword=JOIN",
            "database_url": None,
            "start": "latest",
            "poll_interval": 1.0,
            "batch_size": 100,
        },
    )
    assert MessagingPlatformCallbackTrigger().consumer == "trigger:all"
    assert trigger(batch_size=1).batch_size == 1  # one callback a query: the least there is, and allowed


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: trigger(poll_interval=0), "poll_interval must be greater than 0"),
        (lambda: trigger(poll_interval=-1), "poll_interval must be greater than 0"),
        (lambda: trigger(batch_size=0), "batch_size must be a whole number of at least 1, not 0"),
        (lambda: trigger(batch_size=0.5), "batch_size must be a whole number of at least 1, not 0.5"),
        (lambda: trigger(batch_size=1.5), "batch_size must be a whole number of at least 1, not 1.5"),
        (lambda: trigger(batch_size=True), "batch_size must be a whole number of at least 1, not True"),
        (lambda: trigger(start="newest"), "start must be 'latest' or 'earliest'"),
        (
            lambda: MessagingPlatformCallbackSensorTrigger(
                filter_kwargs={}, received_after="2026-12-01T09:00:00+00:00", poll_interval=0
            ),
            "poll_interval must be greater than 0",
        ),
    ],
    ids=[
        "zero-poll-interval",
        "negative-poll-interval",
        "zero-batch-size",
        "fractional-batch-size",
        "fractional-batch-size-above-one",
        "boolean-batch-size",
        "unknown-start",
        "sensor-zero-poll",
    ],
)
def test_an_argument_that_would_spin_or_read_nothing_is_refused_naming_it(make, message):
    """A zero poll interval would query the store in a tight loop, a zero batch size read nothing, ever (a fraction of
    one was read as 0)."""
    with pytest.raises(ValueError) as raised:
        make()
    assert str(raised.value) == message


# -- what a watcher matches, and how it reads the store ---------------------------------------------


def stored(store, *bodies: dict, received_at: Any = None) -> None:
    """Store ``bodies`` (received at ``received_at``, naive UTC, when given: the receiver's clock)."""
    import dataclasses

    items = [NewCallback.from_model(parse_callback(b)) for b in bodies]
    if received_at is not None:
        items = [dataclasses.replace(item, received_at=received_at) for item in items]
    store.add_many(items)


class CaughtUp(Exception):
    """The watcher's stream began its pause between reads: it has read everything stored."""


def pauses_end_the_stream(monkeypatch: pytest.MonkeyPatch, record: list[tuple[Any, ...]] | None = None) -> None:
    """A watcher's stream raises ``CaughtUp`` where it would pause (the pause recorded in ``record``)."""
    from types import SimpleNamespace

    from messaging_platform_provider.triggers import callback as callback_module

    async def pause(seconds: float) -> None:
        if record is not None:
            record.append(("pause", seconds))
        raise CaughtUp

    monkeypatch.setattr(callback_module, "asyncio", SimpleNamespace(to_thread=asyncio.to_thread, sleep=pause))


def test_a_watcher_passes_exactly_the_callbacks_its_filter_matches(store, monkeypatch):
    """
    Every criterion holds: type, keyword, account and phone number. Both halves are checked: what the stream that
    Airflow's triggerer opens for the watcher reads from the store (``create_shared_stream_producer``, also behind
    ``run``), and what the watcher passes on from a shared stream carrying every callback.
    """
    joins, stops = [keyword(), keyword("Join")], [callback(6)]  # account 1001; +15550100000 and +15550100002
    others = [  # each differs from what one of the watchers wants in one criterion only
        keyword("STOPNOW"),
        keyword(AccountId=1002),
        callback(6, AccountId=1002),
        keyword(PhoneNumber="+15550100009"),
        callback(6, PhoneNumber="+15550100009"),
        keyword(PhoneNumber="+15550100002"),  # not a Stop callback
        callback(3, PhoneNumber="+15550100002"),
    ]
    stored(store, joins[0], *others, stops[0], joins[1])
    everything = [row.to_event() for row in store.read_after(0)]
    pauses_end_the_stream(monkeypatch)

    async def read_by_the_stream(made: MessagingPlatformCallbackTrigger) -> list[dict]:
        stream = type(made).create_shared_stream_producer(made.serialize()[1]).open_stream()
        events = []
        with pytest.raises(CaughtUp):
            async for event, seq in stream:
                assert seq == event["seq"]
                events.append(event)
        return events

    async def passed_by_the_filter(made: MessagingPlatformCallbackTrigger) -> list[Any]:
        async def shared() -> Any:
            for raw in everything:
                yield raw

        return [event async for event in made.filter_shared_stream(shared())]

    watchers = [
        (trigger(consumer=None, account_ids=[1001], phone_numbers=["+1 555 010 0000"], start="earliest"), joins),
        (
            MessagingPlatformCallbackTrigger(
                callback_types=["Stop"], account_ids=1001, phone_numbers="+1 555 010 0002", start="earliest"
            ),
            stops,
        ),
    ]
    for made, wanted in watchers:
        expected = [b["TransactionId"] for b in wanted]
        assert [e["transaction_id"] for e in asyncio.run(read_by_the_stream(made))] == expected, made.consumer
        assert ids(asyncio.run(passed_by_the_filter(made))) == expected, made.consumer


def test_a_backlog_is_read_in_batches_without_pausing_then_the_watcher_polls_at_its_interval(
    database_url, store, monkeypatch
):
    """
    A watcher that was down catches up at once, ``batch_size`` callbacks a query; only a read that found less
    than a full batch (it has caught up) is followed by the ``poll_interval`` pause.
    """
    from messaging_platform_provider.callbacks.store import shared_store

    backlog = [keyword() for _ in range(5)]
    stored(store, *backlog)
    happened: list[tuple[Any, ...]] = []
    triggerers_store = shared_store(database_url)
    real_read = triggerers_store.read_after

    def read_after(position: int, filt: Any = None, limit: int = 100) -> list[Any]:
        rows = real_read(position, filt, limit)
        happened.append(("read", limit, len(rows)))
        return rows

    monkeypatch.setattr(triggerers_store, "read_after", read_after)
    pauses_end_the_stream(monkeypatch, happened)
    made = trigger(start="earliest", batch_size=2, poll_interval=7)

    async def scenario() -> list[dict]:
        stream = type(made).create_shared_stream_producer(made.serialize()[1]).open_stream()
        events = [(await anext(stream))[0] for _ in backlog]
        with pytest.raises(CaughtUp):
            await anext(stream)
        return events

    events = asyncio.run(scenario())
    assert [e["transaction_id"] for e in events] == [b["TransactionId"] for b in backlog]
    assert happened == [("read", 2, 2), ("read", 2, 2), ("read", 2, 1), ("pause", 7.0)]


def test_watcher_and_sensor_trigger_read_the_store_they_name(tmp_path, store):
    """
    A trigger given ``database_url`` reads that store, not the configured one; two watchers of one consumer name
    on two stores are two streams (and two positions) in one triggerer.
    """
    from messaging_platform_provider.callbacks.store import CallbackStore

    elsewhere_url = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    elsewhere = CallbackStore(elsewhere_url)
    here_bodies, there_bodies = [keyword(), keyword()], [keyword(), keyword()]
    stored(store, *here_bodies)
    stored(elsewhere, *there_bodies)
    here = trigger(start="earliest")
    there = trigger(start="earliest", database_url=elsewhere_url)  # the same consumer name

    async def both() -> tuple[list[str], list[str]]:
        first: Any = harness_for(here)
        if HAVE_SHARED_STREAMS:  # one triggerer: one shared stream manager for both
            second: Any = TriggererHarness(there, trigger_id=2)
            second.manager = first.manager
        else:
            second = harness_for(there)
        await first.start()
        await second.start()
        await first.wait_for(2)
        await second.wait_for(2)
        if HAVE_SHARED_STREAMS:
            await second.crash_task()  # the manager they share stops with the first
        else:
            await second.crash()
        await first.crash()
        return ids(first.yielded), ids(second.yielded)

    try:
        assert asyncio.run(both()) == (
            [b["TransactionId"] for b in here_bodies],
            [b["TransactionId"] for b in there_bodies],
        )
        sensor_trigger = MessagingPlatformCallbackSensorTrigger(
            filter_kwargs={"callback_types": [1]},
            received_after="2000-01-01T00:00:00+00:00",
            database_url=elsewhere_url,
            poll_interval=0.02,
            try_number=3,
        )
        event = asyncio.run(first_sensor_event(sensor_trigger))
        found = event.pop("callback")
        assert event == {"outcome": "success", "try_number": 3}
        assert found["transaction_id"] == there_bodies[0]["TransactionId"]
    finally:
        elsewhere.close()


async def first_sensor_event(made: MessagingPlatformCallbackSensorTrigger) -> dict[str, Any]:
    events: Any = made.run()
    try:
        event = await asyncio.wait_for(anext(events), 30)
    finally:
        await events.aclose()
    payload: dict[str, Any] = event.payload
    return payload


# -- the callback sensor's deferred wait ------------------------------------------------------------


def test_the_sensor_trigger_times_out_at_its_deadline_not_before_and_not_after(database_url, store, monkeypatch):
    """
    On a clock of the test's: a deadline half a second away and a 5 s poll interval. The trigger queries, pauses
    only until the deadline, queries once more, and at the deadline instant reports the timeout (as the schedule
    waits do: ``after_round``).
    """
    from datetime import datetime, timedelta, timezone
    from types import SimpleNamespace

    from messaging_platform_provider.triggers import callback as callback_module
    from messaging_platform_provider.waiting import deadline as deadline_module

    start = datetime(2026, 12, 1, 9, 0, tzinfo=timezone.utc)
    deadline = (start + timedelta(seconds=0.5)).isoformat()
    clock = {"now": start}
    pauses: list[float] = []
    queries: list[str] = []
    real_sleep, real_find = asyncio.sleep, callback_module.find_callback

    class TestClock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> Any:
            return clock["now"]

    async def pause(seconds: float) -> None:
        pauses.append(seconds)
        assert len(pauses) <= 5, f"still waiting after pauses of {pauses} s (deadline {deadline})"
        clock["now"] += timedelta(seconds=seconds)
        await real_sleep(0)

    def find_callback(*args: Any) -> Any:
        queries.append(clock["now"].isoformat())
        return real_find(*args)

    stored(store, callback(3), received_at=datetime(2026, 12, 1, 9, 0))  # not what the sensor waits for
    monkeypatch.setattr(deadline_module, "datetime", TestClock)
    monkeypatch.setattr(callback_module, "asyncio", SimpleNamespace(to_thread=asyncio.to_thread, sleep=pause))
    monkeypatch.setattr(callback_module, "find_callback", find_callback)
    made = MessagingPlatformCallbackSensorTrigger(
        filter_kwargs={"callback_types": [1]},
        received_after=start.isoformat(),
        poll_interval=5,
        deadline=deadline,
        try_number=2,
    )
    event = asyncio.run(first_sensor_event(made))
    assert event == {"outcome": "timeout", "message": f"no matching callback by {deadline}", "try_number": 2}
    assert pauses == [0.5]
    assert queries == [start.isoformat(), deadline]


# -- find_callback: the one query of the callback sensor's poke and deferred paths ---------------------


@pytest.fixture
def local_time_not_utc():
    """The process's local time zone set to UTC+05:30 (the store, and the sensor's instants, are in UTC)."""
    import os

    old = os.environ.get("TZ")
    os.environ["TZ"] = "Asia/Kolkata"
    time.tzset()
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = old
        time.tzset()


def test_the_sensor_query_compares_instants_in_utc_whatever_the_local_time_zone(store, local_time_not_utc):
    """
    An instant with an offset or a Z is taken at its UTC value; a naive one is UTC (not local time); a date with an
    offset is midnight at that offset, as the operators read it ("+10:00" is not ten o'clock).
    """
    from datetime import datetime, timedelta, timezone

    from messaging_platform_provider.callbacks.filters import CallbackFilter
    from messaging_platform_provider.triggers.callback import find_callback

    body = keyword()
    stored(store, body, received_at=datetime(2026, 12, 1, 9, 30))  # 09:30 UTC
    wanted = CallbackFilter.build(callback_types=["Keyword"])

    def found(instant: Any) -> str | None:
        match = find_callback(store, wanted, instant)
        return match["transaction_id"] if match is not None else None

    at_or_before = [
        "2026-12-01T10:00:00+01:00",
        "2026-12-01T09:00:00Z",
        "2026-12-01T09:30:00",
        "2026-12-01T04:30:00-05:00",
        "2026-12-01+10:00",
        datetime(2026, 12, 1, 4, 0, tzinfo=timezone(timedelta(hours=-5))),
    ]
    after = [
        "2026-12-01T10:31:00+01:00",
        "2026-12-01T09:31:00Z",
        "2026-12-01T09:31:00",
        datetime(2026, 12, 1, 9, 31),
    ]
    assert [found(instant) for instant in at_or_before] == [body["TransactionId"]] * len(at_or_before)
    assert [found(instant) for instant in after] == [None] * len(after)


def test_the_sensor_query_skips_an_uncarriable_callback_without_taking_one_received_before_the_instant(store):
    """
    Receivers commit in their own order, so a callback stored later (a higher seq) may have been received
    earlier. Past a callback Airflow cannot carry, the query still wants one received at or after the instant.
    """
    from datetime import datetime

    from messaging_platform_provider.callbacks.filters import CallbackFilter
    from messaging_platform_provider.triggers.callback import find_callback

    poison, early, late = keyword(ContactId=2**64), keyword(), keyword()
    stored(store, poison, received_at=datetime(2026, 12, 1, 10, 0))
    stored(store, early, received_at=datetime(2026, 12, 1, 8, 0))  # before the instant: not the answer
    stored(store, late, received_at=datetime(2026, 12, 1, 10, 30))
    found = find_callback(store, CallbackFilter.build(callback_types=["Keyword"]), "2026-12-01T09:00:00+00:00")
    assert found is not None and found["transaction_id"] == late["TransactionId"]


# -- the position: committed through what Airflow confirmed, never backwards ---------------------------


@needs_shared_streams
def test_an_unconfirmed_event_stops_the_position_before_it_and_the_stream_reads_it_again(store):
    """
    ``advance`` as Airflow's shared stream manager calls it: a batch whose second event one of the watchers
    sharing the stream could not persist (an ack timeout). The position is committed through the first only, the
    stream stops with an error naming where it restarts, and the restarted stream reads the second again; a
    triggerer behind (another one sharing the consumer) never moves the position back.
    """
    from airflow.triggers.shared_stream import AdvanceItem, AdvanceOutcome

    from messaging_platform_provider.triggers.callback import CallbackNotPersisted

    made = trigger(start="earliest")
    bodies = [keyword(), keyword(), keyword()]
    stored(store, *bodies)
    clean, failed = AdvanceOutcome(acked=2, failed=0), AdvanceOutcome(acked=1, failed=1)

    async def a_stream_reads(count: int) -> tuple[Any, list[int]]:
        producer = type(made).create_shared_stream_producer(made.serialize()[1])
        stream = producer.open_stream()
        seqs = [(await anext(stream))[1] for _ in range(count)]
        await stream.aclose()
        return producer, seqs

    async def scenario() -> None:
        first, seqs = await a_stream_reads(3)
        assert seqs == [1, 2, 3]
        batch = [AdvanceItem(1, clean), AdvanceItem(2, failed), AdvanceItem(3, clean)]
        with pytest.raises(CallbackNotPersisted) as raised:
            await first.advance(batch)
        assert str(raised.value) == (
            f"consumer {CONSUMER!r}: an event after seq 1 was not confirmed persisted; "
            "it will be read again from the committed position"
        )
        assert store.position(CONSUMER) == 1
        again, seqs = await a_stream_reads(2)  # the group restarted: a new stream from the committed position
        assert seqs == [2, 3]
        await again.advance([AdvanceItem(2, clean), AdvanceItem(3, clean)])
        assert store.position(CONSUMER) == 3
        behind, _ = await a_stream_reads(0)
        await behind.advance([AdvanceItem(2, clean)])  # a triggerer that was behind confirms an older event
        assert store.position(CONSUMER) == 3

    asyncio.run(scenario())
