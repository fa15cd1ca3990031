"""
What the callback store keeps: its tables, and the records written to and read from them (``store.py`` holds the
store itself).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import BigInteger, Column, DateTime, Index, Integer, MetaData, String, Table, Text

from messaging_platform_provider.callbacks.filters import normalise_phone
from messaging_platform_provider.callbacks.limits import carriage_errors
from messaging_platform_provider.callbacks.models import CallbackBase

log = logging.getLogger(__name__)

_ID = BigInteger().with_variant(Integer(), "sqlite")
metadata = MetaData()
events_table = Table(
    "mp_callback_event",
    metadata,
    Column("seq", _ID, primary_key=True, autoincrement=False),
    Column("transaction_id", String(64), nullable=False, unique=True),
    Column("callback_type", Integer, nullable=False),
    Column("account_id", BigInteger, nullable=False),
    Column("keyword", String(255)),  # upper case
    Column("phone_number", String(64)),  # normalised (digits, leading +)
    Column("callback_timestamp", String(64), nullable=False),
    Column("received_at", DateTime, nullable=False),  # naive UTC
    Column("payload", Text, nullable=False),  # JSON, without the callback token
)
Index("ix_mp_callback_event_type_seq", events_table.c.callback_type, events_table.c.seq)
counter_table = Table(
    "mp_callback_counter",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("value", BigInteger, nullable=False),
)
consumers_table = Table(
    "mp_callback_consumer",
    metadata,
    Column("name", String(255), primary_key=True),
    Column("position", BigInteger, nullable=False),
    Column("updated_at", DateTime, nullable=False),
)
claims_table = Table(
    "mp_callback_claim",
    metadata,
    Column("consumer", String(255), primary_key=True),
    Column("transaction_id", String(64), primary_key=True),
    Column("owner", String(255), nullable=False),
    Column("claimed_at", DateTime, nullable=False),
)


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass(frozen=True)
class NewCallback:
    """A validated callback about to be stored."""

    transaction_id: str
    callback_type: int
    account_id: int
    keyword: str | None
    phone_number: str | None
    callback_timestamp: str
    payload: dict[str, Any]
    received_at: datetime = field(default_factory=utcnow)

    @classmethod
    def from_model(cls, model: CallbackBase) -> NewCallback:
        phone = model.phone_number
        return cls(
            transaction_id=model.TransactionId,
            callback_type=model.CallbackType,
            account_id=model.AccountId,
            keyword=model.keyword.upper() if model.keyword else None,
            phone_number=normalise_phone(phone) if phone else None,
            callback_timestamp=model.CallbackTimestamp,
            payload=model.stored_payload(),
        )


@dataclass(frozen=True, kw_only=True)
class StoredCallback(NewCallback):
    """A stored callback: its fields, and its position in the store (``seq``)."""

    seq: int

    def is_carriable(self) -> bool:
        """
        Whether Airflow can carry this callback (``limits.carriage_errors``). The receiver stores no other, but a
        store written by an older version may hold one: it is skipped, with a warning, instead of stopping the
        triggerer or failing the task that reads it.
        """
        errors = carriage_errors(self.payload)
        if errors:
            fields = ", ".join(".".join(str(part) for part in error["loc"]) for error in errors)
            log.warning(
                "Callback seq %s (TransactionId %s) skipped: Airflow cannot carry its %s",
                self.seq,
                self.transaction_id,
                fields,
            )
        return not errors

    def to_event(self) -> dict[str, Any]:
        """The JSON form handed to Airflow (trigger event, asset event extra, XCom): no token in it."""
        return {
            "seq": self.seq,
            "transaction_id": self.transaction_id,
            "callback_type": self.callback_type,
            "account_id": self.account_id,
            "received_at": self.received_at.replace(tzinfo=timezone.utc).isoformat(),
            "payload": self.payload,
        }


def row_to_stored(row: Any) -> StoredCallback:
    return StoredCallback(
        seq=int(row.seq),
        transaction_id=row.transaction_id,
        callback_type=int(row.callback_type),
        account_id=int(row.account_id),
        keyword=row.keyword,
        phone_number=row.phone_number,
        callback_timestamp=row.callback_timestamp,
        received_at=row.received_at,
        payload=json.loads(row.payload),
    )
