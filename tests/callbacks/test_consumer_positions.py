"""
A watcher's committed position (``mp_callback_consumer``) only ever moves forward: triggerers that share a consumer
(Airflow 3.3's shared streams in HA, or two triggerers during a hand-over) commit in any order, and a commit below
the position must not move it back, or the next stream opened on that consumer would hand over again callbacks that
were already persisted as asset events (one DAG run each, twice). Over SQLite and PostgreSQL.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select, update

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.schema import consumers_table
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback
from messaging_platform_provider.triggers.callback import CallbackStoreProducer
from tests.support.callback_helpers import callback


@pytest.fixture
def database_url(any_database_url: str) -> str:
    """Every test here runs over SQLite and over PostgreSQL."""
    return any_database_url


def five_callbacks(store: CallbackStore) -> list[int]:
    store.add_many([NewCallback.from_model(parse_callback(callback(1, Keyword="JOIN"))) for _ in range(5)])
    return [row.seq for row in store.read_after(0)]


def test_a_commit_below_the_position_leaves_it_where_it_is(store):
    assert five_callbacks(store) == [1, 2, 3, 4, 5]
    assert store.open_position("shared", "earliest") == 0
    assert store.open_position("other", "earliest") == 0
    store.commit_position("shared", 4)
    assert (store.position("shared"), store.position("other")) == (4, 0)  # positions are per consumer
    store.commit_position("shared", 2)  # a triggerer that was behind commits late
    assert store.position("shared") == 4
    assert store.open_position("shared", "earliest") == 4  # where a stream opened now starts
    store.commit_position("shared", 4)
    assert store.position("shared") == 4
    store.commit_position("shared", 5)
    assert store.position("shared") == 5
    store.commit_position("other", 1)
    assert (store.position("shared"), store.position("other")) == (5, 1)


def test_a_triggerer_behind_another_on_the_same_consumer_makes_no_restart_replay(store, database_url):
    assert five_callbacks(store) == [1, 2, 3, 4, 5]
    kwargs: dict[str, Any] = {"consumer": "shared", "start": "earliest", "database_url": database_url}
    ahead, behind, restarted = (CallbackStoreProducer(kwargs) for _ in range(3))
    assert store.open_position("shared", "earliest") == 0  # as the streams of both triggerers did when they opened

    async def scenario() -> int:
        await ahead.commit(4)  # persisted up to seq 4
        await behind.commit(2)  # the other triggerer confirms its older events afterwards
        stream = restarted.open_stream()
        try:
            _, seq = await asyncio.wait_for(anext(stream), 30)
        finally:
            await stream.aclose()
        return seq

    assert asyncio.run(scenario()) == 5  # the first event after a restart: the one nobody persisted yet
    assert restarted.committed == 4 and store.position("shared") == 4


def test_a_new_consumer_starts_after_the_newest_callback_unless_told_earliest(store: CallbackStore) -> None:
    assert five_callbacks(store) == [1, 2, 3, 4, 5]
    assert store.open_position("new") == 5  # latest by default: only callbacks stored from now on reach it
    assert store.open_position("new-earliest", "earliest") == 0
    with pytest.raises(ValueError, match=r"^start must be 'latest' or 'earliest'$"):
        store.open_position("misspelt", "LATEST")
    assert store.position("misspelt") is None


def updated_at(store: CallbackStore, consumer: str) -> datetime:
    with store.engine.connect() as conn:
        value = conn.execute(
            select(consumers_table.c.updated_at).where(consumers_table.c.name == consumer)
        ).scalar_one()
    assert isinstance(value, datetime)
    return value


def test_a_consumers_updated_at_is_when_its_position_last_moved(store: CallbackStore) -> None:
    """What an operator reads to find a consumer that stopped (and so holds back ``prune``)."""
    assert five_callbacks(store) == [1, 2, 3, 4, 5]
    store.open_position("shared", "earliest")
    store.commit_position("shared", 3)
    long_ago = datetime(2001, 2, 3, 4, 5, 6)
    with store.engine.begin() as conn:
        conn.execute(update(consumers_table).values(updated_at=long_ago))
    store.commit_position("shared", 2)  # behind: the position does not move
    store.commit_position("shared", 3)  # where it is: nor now
    assert (store.position("shared"), updated_at(store, "shared")) == (3, long_ago)
    store.commit_position("shared", 4)
    assert store.position("shared") == 4 and updated_at(store, "shared") > long_ago
