"""
Every consumer a stored callback is handed to, run on one trigger event: what the receiver's 200 promises
(``callbacks/limits.py``). Each raises as that consumer would; the assertion names the consumer.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
from sqlalchemy import text
from sqlalchemy.engine import Engine

from tests.support.airflow_versions import serde


def carry_everywhere(event: dict[str, Any], postgres: Engine) -> None:
    """
    Hand ``event`` (``StoredCallback.to_event()``) to the triggerer's messages (msgpack), Airflow's serializer of
    ``next_kwargs`` and XCom's (serde), each round trip giving the event back, and insert it and its serialized
    forms into PostgreSQL JSONB (what ``next_kwargs``, XCom and asset event extras are on a PostgreSQL metadata
    database).
    """
    from airflow.serialization.serialized_objects import BaseSerialization

    xcom = serde()
    next_kwargs = BaseSerialization.serialize({"event": event})
    round_trips = {
        "the triggerer's messages (msgpack)": lambda: msgspec.msgpack.decode(msgspec.msgpack.encode(event)),
        "next_kwargs (BaseSerialization)": lambda: BaseSerialization.deserialize(json.loads(json.dumps(next_kwargs)))[
            "event"
        ],
        "XCom (serde)": lambda: xcom.deserialize(json.loads(json.dumps(xcom.serialize(event)))),
    }
    for consumer, round_trip in round_trips.items():
        assert round_trip() == event, f"{consumer} changed the event"
    with postgres.connect() as conn:
        for document in (event, next_kwargs, xcom.serialize(event)):
            conn.execute(text("SELECT CAST(:doc AS jsonb)"), {"doc": json.dumps(document)})
