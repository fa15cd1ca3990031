"""
The watcher trigger: one event per new matching callback, a position that survives a triggerer restart without
losing or repeating a persisted event, and reads that never block the event loop.

The restart tests drive the trigger through Airflow 3.3's own ``SharedStreamManager`` exactly as the triggerer's
``run_trigger`` does (``TriggererHarness`` in conftest.py); "persisting" an event stands for the supervisor's
``Trigger.submit_event`` followed by the persist confirmation of the next state sync.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from callback_helpers import TriggererHarness, callback, harness_for

from airflow_versions import needs_shared_streams
from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.store import NewCallback
from messaging_platform_provider.compat import HAVE_SHARED_STREAMS
from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackTrigger

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


def test_serialises_and_rebuilds_to_the_same_identity(database_url):
    made = trigger(account_ids=[1001], phone_numbers=["+1 555 010 0000"])
    classpath, kwargs = made.serialize()
    assert classpath == "messaging_platform_provider.triggers.callback.MessagingPlatformCallbackTrigger"
    again = MessagingPlatformCallbackTrigger(**kwargs)
    assert again.serialize() == (classpath, kwargs)
    assert kwargs["keywords"] == ["JOIN"] and kwargs["phone_numbers"] == ["+15550100000"]
    assert kwargs["database_url"] is None  # resolved in the triggerer, not baked into the trigger row
    shared = ("messaging_platform_callbacks", database_url, CONSUMER)
    assert made.shared_stream_key() == (shared if HAVE_SHARED_STREAMS else None)
    with pytest.raises(ValueError):
        MessagingPlatformCallbackTrigger(callback_types=["Nope"])


def test_yields_one_event_per_matching_callback_in_order(store):
    async def scenario():
        harness = harness_for(trigger())
        await harness.start()
        await asyncio.to_thread(store.position, CONSUMER)
        await asyncio.sleep(0.1)  # the consumer starts at the newest stored callback
        wanted = [keyword(), keyword("Join"), keyword()]
        others = [keyword("STOPNOW"), callback(3), callback(6)]
        add(store, wanted[0], others[0], wanted[1], others[1], others[2], wanted[2])
        add(store, wanted[2])  # a resend stores nothing new
        await harness.wait_for(3)
        await asyncio.sleep(0.1)
        await harness.crash()
        return harness.yielded

    events = asyncio.run(scenario())
    assert len(events) == 3
    first = events[0].payload
    assert first["callback_type"] == 1 and first["payload"]["Keyword"] == "JOIN"
    assert set(first) == {"seq", "transaction_id", "callback_type", "account_id", "received_at", "payload"}
    assert "CallbackToken" not in first["payload"]
    assert [e.payload["seq"] for e in events] == sorted(e.payload["seq"] for e in events)


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
        await asyncio.sleep(0.1)
        add(store, *new_bodies)
        await harness.wait_for(wanted)
        kept, harness.unconfirmed = harness.unconfirmed[persist_count:], harness.unconfirmed[:persist_count]
        await harness.persist_pending()  # only the first ``persist_count`` reach Airflow's database
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

    async def third_life():  # a clean restart with nothing new yields nothing
        harness = TriggererHarness(trigger())
        await harness.start()
        await asyncio.sleep(0.3)
        await harness.crash()
        return harness.yielded

    assert asyncio.run(third_life()) == []


@needs_shared_streams
def test_an_event_that_is_not_confirmed_restarts_the_stream_from_the_committed_position(store):
    """The triggerer never confirms (persist failed): after the ack timeout the trigger fails, position unmoved."""
    from airflow.triggers.shared_stream import AckTimeout

    async def scenario():
        harness = TriggererHarness(trigger())
        harness.manager = type(harness.manager)(ack_timeout=0.3)
        await harness.start()
        await asyncio.sleep(0.1)
        add(store, keyword(), keyword())
        await harness.wait_for(2)
        assert harness.task is not None
        with pytest.raises(AckTimeout):
            await asyncio.wait_for(harness.task, 5)
        await harness.manager.stop_all()

    asyncio.run(scenario())
    assert store.position(CONSUMER) == 0


def test_position_is_per_consumer_and_a_new_consumer_starts_where_asked(store):
    old = [keyword(), keyword()]
    add(store, *old)

    async def first_events(made):
        harness = harness_for(made)
        await harness.start()
        await asyncio.sleep(0.3)
        await harness.crash()
        return ids(harness.yielded)

    assert asyncio.run(first_events(trigger(consumer="late"))) == []
    assert asyncio.run(first_events(trigger(consumer="history", start="earliest"))) == [b["TransactionId"] for b in old]


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
        await asyncio.sleep(0.1)
        threads = [threading.Thread(target=writer) for _ in range(2)]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads) or len(harness.yielded) < 240:
            await harness.persist_pending()
            await asyncio.sleep(0.02)
            if len(harness.yielded) > 240:
                break
        await harness.persist_pending()
        await harness.crash()
        return harness.yielded

    events = asyncio.run(scenario())
    assert sorted(ids(events)) == sorted(written) and len(events) == 240
    assert [e.payload["seq"] for e in events] == list(range(1, 241))


def test_reads_do_not_block_the_event_loop(store, monkeypatch):
    real = store.read_after

    def slow(*args, **kwargs):
        time.sleep(0.25)  # a slow database
        return real(*args, **kwargs)

    from messaging_platform_provider.callbacks import store as store_module

    monkeypatch.setattr(store_module, "_SHARED", {store.url: store})
    monkeypatch.setattr(store, "read_after", slow)

    async def scenario():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick = asyncio.create_task(ticker())
        harness = harness_for(trigger())
        await harness.start()
        started = time.monotonic()
        await asyncio.sleep(0.8)
        elapsed = time.monotonic() - started
        await harness.crash()
        tick.cancel()
        return ticks, elapsed

    ticks, elapsed = asyncio.run(scenario())
    assert ticks > 0.6 * elapsed / 0.01  # the loop kept ticking through several 0.25 s reads


def test_the_standalone_run_path_commits_as_it_hands_events_over(store):
    """Without shared streams (Airflow before 3.3) ``run`` is used: the same events, position after hand-over."""
    made = trigger()

    async def scenario():
        events = []
        gen = made.run()
        task = asyncio.create_task(gen.__anext__())
        await asyncio.sleep(0.1)
        add(store, keyword(), callback(6), keyword())
        events.append(await asyncio.wait_for(task, 5))
        events.append(await asyncio.wait_for(gen.__anext__(), 5))
        await gen.aclose()
        return events

    events = asyncio.run(scenario())
    assert [e.payload["payload"]["Keyword"] for e in events] == ["JOIN", "JOIN"]
    assert store.position(CONSUMER) == 1  # the second event was handed over, its position not yet committed
