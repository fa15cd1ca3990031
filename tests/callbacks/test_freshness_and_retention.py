"""
The freshness window on ``CallbackTimestamp`` (a captured body cannot be replayed once its copy is gone from the
store), ``messaging-platform-callbacks prune`` (retention that keeps de-duplication sound), and payloads stored as
UTF-8. Over SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest
from sqlalchemy import text, update

from messaging_platform_provider.callbacks.cli import main as cli_main
from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.receiver import Receiver
from messaging_platform_provider.callbacks.schema import claims_table
from messaging_platform_provider.callbacks.server import ReceiverServer
from messaging_platform_provider.callbacks.settings import MAX_AGE_ENV, resolve_freshness
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback, PruneResult
from tests.support.callback_helpers import BOUND_TOKEN, callback, post

#: A small window for the retention tests: an hour behind, five minutes ahead.
MAX_AGE, SKEW = 3600.0, 300.0


@pytest.fixture
def database_url(any_database_url: str) -> str:
    return any_database_url


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@pytest.mark.parametrize(
    "timestamp",
    [
        "0001-01-01T00:00:00",
        "9999-12-31T23:59:59",
        stamp(utcnow() - timedelta(hours=25)),
        stamp(utcnow() + timedelta(minutes=10)),
        "9999-12-31T23:59:59-01:00",  # past year 9999 once in UTC
        "0001-01-01T00:00:00+01:00",
    ],
    ids=["year-1", "year-9999", "25-hours-old", "10-minutes-ahead", "beyond-9999-utc", "before-year-1-utc"],
)
def test_a_callback_outside_the_freshness_window_is_refused_422(receiver, store, timestamp):
    response = post(receiver.url, callback(1, CallbackTimestamp=timestamp))
    assert response.status_code == 422, response.text
    assert [(e["loc"], e["type"]) for e in response.json()["detail"]] == [(["CallbackTimestamp"], "freshness")]
    assert store.count() == 0


@pytest.mark.parametrize(
    "timestamp",
    [
        stamp(utcnow() - timedelta(hours=23)),
        stamp(utcnow() + timedelta(minutes=4)),
        stamp(utcnow()) + "Z",
        datetime.now(timezone.utc).astimezone(timezone(timedelta(hours=2))).isoformat(),  # now, written at +02:00
    ],
    ids=["23-hours-old", "4-minutes-ahead", "with-Z", "with-an-offset"],
)
def test_a_callback_within_the_window_is_stored(receiver, store, timestamp):
    assert post(receiver.url, callback(1, CallbackTimestamp=timestamp)).json()["status"] == "stored"


def test_the_window_is_configured_by_environment_or_argument(database_url, store, monkeypatch):
    two_minutes_old = callback(1, CallbackTimestamp=stamp(utcnow() - timedelta(minutes=2)))
    monkeypatch.setenv(MAX_AGE_ENV, "60")
    with ReceiverServer(tokens=[BOUND_TOKEN], database_url=database_url) as server:
        assert post(server.url, two_minutes_old).status_code == 422
    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, max_age_seconds=600)
    with ReceiverServer(receiver=receiver) as server:
        assert post(server.url, two_minutes_old).status_code == 200
    monkeypatch.setenv(MAX_AGE_ENV, "soon")
    with pytest.raises(ValueError, match=MAX_AGE_ENV):
        resolve_freshness()


def stored(store, body: dict, received_at: datetime) -> None:
    store.add(replace(NewCallback.from_model(parse_callback(body)), received_at=received_at))


def prune(database_url: str, *args: str) -> int:
    window = ["--max-age-seconds", str(MAX_AGE), "--max-clock-skew-seconds", str(SKEW)]
    return cli_main(["prune", "--database-url", database_url, *window, *args])


def test_prune_keeps_what_a_replay_could_still_match_so_a_replay_is_never_stored_twice(database_url, store, capsys):
    now = utcnow()
    # Received 62 minutes ago from a clock 5 minutes ahead: a copy of it still passes the window for 3 minutes.
    ahead = callback(1, CallbackTimestamp=stamp(now - timedelta(minutes=57)))
    stored(store, ahead, now - timedelta(minutes=62))
    # Received 70 minutes ago, timestamped then: a copy of it is refused by the window.
    on_time = callback(1, CallbackTimestamp=stamp(now - timedelta(minutes=70)))
    stored(store, on_time, now - timedelta(minutes=70))
    horizon_days = str((MAX_AGE + SKEW) / 86400)  # the least --older-than-days that keeps de-duplication sound

    assert prune(database_url, "--older-than-days", str(3000 / 86400)) == 2  # 50 minutes: refused, nothing deleted
    assert "freshness window" in capsys.readouterr().err and store.count() == 2
    assert prune(database_url, "--older-than-days", horizon_days) == 0
    assert "Deleted 1 callback(s)" in capsys.readouterr().out
    assert store.transaction_ids() == [ahead["TransactionId"]]

    receiver = Receiver(tokens=[BOUND_TOKEN], database_url=database_url, max_age_seconds=MAX_AGE)
    with ReceiverServer(receiver=receiver) as server:
        assert post(server.url, ahead).json()["status"] == "duplicate"  # recognised: kept by prune
        assert post(server.url, on_time).status_code == 422  # gone from the store, and refused as stale
    assert store.count() == 1


def test_prune_keeps_what_a_watcher_has_not_read_unless_told(database_url, store, capsys):
    old = utcnow() - timedelta(days=40)
    for _ in range(3):
        stored(store, callback(1), old)
    store.open_position("behind", "earliest")
    store.commit_position("behind", 1)
    store.open_position("caught-up", "latest")
    store.claim("behind", "run-1", store.transaction_ids())
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE mp_callback_claim SET claimed_at = :at"), {"at": old})

    assert prune(database_url) == 0  # 30 days by default
    out = capsys.readouterr().out
    assert "Deleted 1 callback(s) and 3 claim(s)" in out and "not yet read by: behind" in out
    assert [c.seq for c in store.read_after(0)] == [2, 3]
    assert prune(database_url, "--drop-unread") == 0
    assert store.count() == 0


def test_payloads_are_stored_as_utf8_not_escaped(receiver, store):
    message = "Grüße 😀 " * 500
    body = callback(11, Message=message)
    assert post(receiver.url, body).json()["status"] == "stored"
    with store.engine.connect() as conn:
        raw = conn.execute(text("SELECT payload FROM mp_callback_event")).scalar_one()
    assert "😀" in raw and "\\ud83d" not in raw
    assert len(raw.encode()) < 1.1 * len(json.dumps(body, ensure_ascii=False).encode())  # was 3x (\uXXXX)
    assert store.read_after(0)[0].payload["Message"] == message


CUTOFF = datetime(2026, 1, 2, 3, 4, 5)


def test_prune_deletes_what_was_received_or_claimed_before_the_instant_not_at_it(store: CallbackStore) -> None:
    before, at = callback(1), callback(1)
    stored(store, before, CUTOFF - timedelta(microseconds=1))
    stored(store, at, CUTOFF)
    ids = [before["TransactionId"], at["TransactionId"]]
    assert store.claim("welcome", "run-1", ids) == set(ids)
    with store.engine.begin() as conn:
        for tid, claimed_at in zip(ids, (CUTOFF - timedelta(microseconds=1), CUTOFF), strict=True):
            conn.execute(update(claims_table).where(claims_table.c.transaction_id == tid).values(claimed_at=claimed_at))

    assert store.prune(CUTOFF, keep_unread=False) == PruneResult(callbacks=1, claims=1)
    assert store.transaction_ids() == [at["TransactionId"]]
    assert store.claim("welcome", "run-2", ids) == {before["TransactionId"]}  # only the claim made at CUTOFF is left


def test_prune_keeps_unread_callbacks_by_default_naming_only_the_consumers_behind(store: CallbackStore) -> None:
    for _ in range(3):
        stored(store, callback(1), CUTOFF - timedelta(days=1))  # seq 1 to 3, old
    stored(store, callback(1), CUTOFF)  # seq 4, young
    for consumer, position in (("behind", 1), ("caught-up", 3), ("ahead", 4)):
        store.open_position(consumer, "earliest")
        store.commit_position(consumer, position)

    assert store.prune(CUTOFF) == PruneResult(callbacks=1, claims=0, held_back_by=("behind",))
    assert [c.seq for c in store.read_after(0)] == [2, 3, 4]
    assert store.prune(CUTOFF) == PruneResult(callbacks=0, claims=0, held_back_by=("behind",))  # nothing more
    assert [c.seq for c in store.read_after(0)] == [2, 3, 4]
