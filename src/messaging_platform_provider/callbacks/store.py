"""
The durable callback store (SQLAlchemy; a SQLite file by default, any database SQLAlchemy speaks).

Every stored callback gets a sequence number ``seq``. Numbers are handed out from one counter row that each write
transaction updates first, so writers, in one process or many, take turns: a later commit always carries higher
numbers, with no gaps. That makes "everything after position P" a complete, stable answer, which is what lets a
reader keep nothing but a number as its position (``mp_callback_consumer``) and never skip a callback that
committed late (with per-row autoincrement on PostgreSQL a smaller id can commit after a larger one has been read).

``TransactionId`` is unique: a resent callback is recognised and stored once, across restarts and processes.
The callback token is never stored. Payloads are stored as UTF-8 JSON text.

``prune`` is the retention tool (``messaging-platform-callbacks prune``): it deletes old callbacks and claims, but
never one young enough for a copy of it to pass the receiver's freshness window (de-duplication stays sound), and by
default never one that a consumer has not read yet.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    create_engine,
    delete,
    event,
    func,
    select,
    update,
)
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from messaging_platform_provider.callbacks.filters import CallbackFilter
from messaging_platform_provider.callbacks.schema import (
    NewCallback,
    StoredCallback,
    claims_table,
    consumers_table,
    counter_table,
    events_table,
    metadata,
    row_to_stored,
    utcnow,
)
from messaging_platform_provider.callbacks.settings import redact_url, resolve_database_url

_IN_CHUNK = 500  # bound on bound parameters per IN (SQLite's default limit is far above; PostgreSQL has none)


def _sqlite_setup(engine: Engine, *, synchronous: str) -> None:
    """WAL (readers never block the writer), fsync per commit, and explicit BEGIN: IMMEDIATE for writes."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # SQLAlchemy's begin event below decides how a transaction begins
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get("mp_write") else "BEGIN")


class CallbackStore:
    """
    Durable, de-duplicating callback storage.

    :param database_url: SQLAlchemy URL; ``None`` resolves it as ``settings.resolve_database_url`` does.
    :param synchronous: SQLite only: ``FULL`` (default) makes every acknowledged callback survive a power cut;
        ``NORMAL`` survives a crash of the process but not of the machine.
    """

    def __init__(self, database_url: str | None = None, *, synchronous: str = "FULL", create: bool = True) -> None:
        self.url = resolve_database_url(database_url)
        url = make_url(self.url)
        self.is_sqlite = url.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {"pool_pre_ping": not self.is_sqlite}
        if self.is_sqlite:
            if url.database and url.database != ":memory:":
                Path(url.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine = create_engine(url, **kwargs)
        if self.is_sqlite:
            if synchronous.upper() not in ("FULL", "NORMAL", "EXTRA"):
                raise ValueError("synchronous must be FULL, NORMAL or EXTRA")
            _sqlite_setup(self.engine, synchronous=synchronous.upper())
        self._created = False
        self._create_lock = threading.Lock()
        if create:
            self.create()

    def __repr__(self) -> str:
        return f"CallbackStore({redact_url(self.url)!r})"

    def create(self) -> None:
        """Create the tables and the counter row if missing (safe when several processes start at once)."""
        with self._create_lock:
            if self._created:
                return
            for attempt in range(3):
                try:
                    metadata.create_all(self.engine)
                    with self._write() as conn:
                        if conn.execute(select(counter_table.c.value).where(counter_table.c.id == 1)).first() is None:
                            conn.execute(counter_table.insert().values(id=1, value=0))
                    break
                except (IntegrityError, OperationalError, ProgrammingError):
                    if attempt == 2:
                        raise
            self._created = True

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            conn.execution_options(mp_write=True)
            with conn.begin():
                yield conn

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self.engine.connect() as conn:
            with conn.begin():
                yield conn

    # -- writing ----------------------------------------------------------------------------------

    def add_many(self, items: Sequence[NewCallback]) -> list[bool]:
        """
        Store callbacks in one transaction; for each, whether it was new (False: its TransactionId was already
        stored, now or in an earlier call, or earlier in ``items``). Either all are committed or none is.
        """
        if not items:
            return []
        seen: set[str] = set()
        first: list[bool] = []
        for item in items:
            first.append(item.transaction_id not in seen)
            seen.add(item.transaction_id)
        with self._write() as conn:
            # The first statement takes the counter row's lock (SQLite: the database's write lock): writers queue
            # here, so what they read below is everything committed before them.
            conn.execute(update(counter_table).where(counter_table.c.id == 1).values(value=counter_table.c.value))
            value = int(conn.execute(select(counter_table.c.value).where(counter_table.c.id == 1)).scalar_one())
            ids = list(seen)
            existing: set[str] = set()
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = ids[start : start + _IN_CHUNK]
                existing.update(
                    conn.execute(
                        select(events_table.c.transaction_id).where(events_table.c.transaction_id.in_(chunk))
                    ).scalars()
                )
            rows = []
            new_flags = []
            for item, is_first in zip(items, first, strict=True):
                is_new = is_first and item.transaction_id not in existing
                new_flags.append(is_new)
                if is_new:
                    value += 1
                    rows.append(
                        {
                            "seq": value,
                            "transaction_id": item.transaction_id,
                            "callback_type": item.callback_type,
                            "account_id": item.account_id,
                            "keyword": item.keyword,
                            "phone_number": item.phone_number,
                            "callback_timestamp": item.callback_timestamp,
                            "received_at": item.received_at,
                            "payload": json.dumps(item.payload, separators=(",", ":"), ensure_ascii=False),
                        }
                    )
            if rows:
                conn.execute(events_table.insert(), rows)
                conn.execute(update(counter_table).where(counter_table.c.id == 1).values(value=value))
        return new_flags

    def add(self, item: NewCallback) -> bool:
        return self.add_many([item])[0]

    # -- reading ----------------------------------------------------------------------------------

    def _filtered(self, filt: CallbackFilter) -> Any:
        query = select(events_table)
        if filt.callback_types:
            query = query.where(events_table.c.callback_type.in_(filt.callback_types))
        if filt.account_ids:
            query = query.where(events_table.c.account_id.in_(filt.account_ids))
        if filt.keywords:
            query = query.where(events_table.c.keyword.in_(filt.keywords))
        if filt.phone_numbers:
            query = query.where(events_table.c.phone_number.in_(filt.phone_numbers))
        return query

    def read_after(self, position: int, filt: CallbackFilter | None = None, limit: int = 100) -> list[StoredCallback]:
        """Matching callbacks with ``seq > position``, oldest first, at most ``limit``."""
        query = self._filtered(filt or CallbackFilter()).where(events_table.c.seq > position)
        with self._read() as conn:
            rows = conn.execute(query.order_by(events_table.c.seq).limit(limit)).all()
        return [row_to_stored(r) for r in rows]

    def first_match(
        self, filt: CallbackFilter, *, after_seq: int | None = None, received_after: datetime | None = None
    ) -> StoredCallback | None:
        """The oldest matching callback after a position and/or received at or after an instant (naive UTC)."""
        query = self._filtered(filt)
        if after_seq is not None:
            query = query.where(events_table.c.seq > after_seq)
        if received_after is not None:
            query = query.where(events_table.c.received_at >= received_after)
        with self._read() as conn:
            row = conn.execute(query.order_by(events_table.c.seq).limit(1)).first()
        return row_to_stored(row) if row is not None else None

    def last_seq(self) -> int:
        with self._read() as conn:
            return int(conn.execute(select(counter_table.c.value).where(counter_table.c.id == 1)).scalar_one())

    def count(self) -> int:
        with self._read() as conn:
            return int(conn.execute(select(func.count()).select_from(events_table)).scalar_one())

    def transaction_ids(self) -> list[str]:
        with self._read() as conn:
            return list(conn.execute(select(events_table.c.transaction_id)).scalars())

    # -- consumer positions -----------------------------------------------------------------------

    def position(self, consumer: str) -> int | None:
        with self._read() as conn:
            value = conn.execute(select(consumers_table.c.position).where(consumers_table.c.name == consumer)).scalar()
        return int(value) if value is not None else None

    def open_position(self, consumer: str, start: str = "latest") -> int:
        """
        The consumer's committed position; a new consumer starts at the newest stored callback (``latest``: only
        callbacks stored from now on reach it) or before the first (``earliest``).
        """
        if start not in ("latest", "earliest"):
            raise ValueError("start must be 'latest' or 'earliest'")
        with self._write() as conn:
            conn.execute(update(counter_table).where(counter_table.c.id == 1).values(value=counter_table.c.value))
            found = conn.execute(select(consumers_table.c.position).where(consumers_table.c.name == consumer)).scalar()
            if found is not None:
                return int(found)
            initial = 0
            if start == "latest":
                initial = int(conn.execute(select(counter_table.c.value).where(counter_table.c.id == 1)).scalar_one())
            conn.execute(consumers_table.insert().values(name=consumer, position=initial, updated_at=utcnow()))
            return initial

    def commit_position(self, consumer: str, position: int) -> None:
        """Move the consumer's position forward to ``position`` (never backwards)."""
        with self._write() as conn:
            conn.execute(
                update(consumers_table)
                .where(consumers_table.c.name == consumer, consumers_table.c.position < position)
                .values(position=position, updated_at=utcnow())
            )

    # -- claims (idempotent consumers) ------------------------------------------------------------

    def claim(self, consumer: str, owner: str, transaction_ids: Iterable[str]) -> set[str]:
        """
        Claim callbacks for ``owner`` (a DAG run, say); returns the ids that ``owner`` holds: newly claimed, or
        claimed by the same owner before (a retry gets its own claims back). Another owner's claims are not
        returned, so a callback delivered twice is handled once.
        """
        ids = sorted(set(transaction_ids))
        if not ids:
            return set()
        with self._write() as conn:
            conn.execute(update(counter_table).where(counter_table.c.id == 1).values(value=counter_table.c.value))
            held: dict[str, str] = {}
            for start in range(0, len(ids), _IN_CHUNK):
                chunk = ids[start : start + _IN_CHUNK]
                rows = conn.execute(
                    select(claims_table.c.transaction_id, claims_table.c.owner).where(
                        claims_table.c.consumer == consumer, claims_table.c.transaction_id.in_(chunk)
                    )
                ).all()
                held.update({r.transaction_id: r.owner for r in rows})
            fresh = [t for t in ids if t not in held]
            if fresh:
                now = utcnow()
                conn.execute(
                    claims_table.insert(),
                    [{"consumer": consumer, "transaction_id": t, "owner": owner, "claimed_at": now} for t in fresh],
                )
        return set(fresh) | {t for t, o in held.items() if o == owner}

    # -- retention ----------------------------------------------------------------------------------

    def prune(self, received_before: datetime, *, keep_unread: bool = True) -> PruneResult:
        """
        Delete the callbacks received before ``received_before`` (naive UTC) and the claims made before it. With
        ``keep_unread``, callbacks that some consumer has not read yet (``seq`` above its position) are kept, and
        the consumers holding them back are named. The caller keeps the freshness window (``cli.prune`` does).
        """
        with self._write() as conn:
            conn.execute(update(counter_table).where(counter_table.c.id == 1).values(value=counter_table.c.value))
            old = events_table.c.received_at < received_before
            holding: list[str] = []
            positions = {r.name: int(r.position) for r in conn.execute(select(consumers_table)).all()}
            newest_old = conn.execute(select(func.max(events_table.c.seq)).where(old)).scalar()
            if keep_unread and positions and newest_old is not None:
                holding = sorted(name for name, position in positions.items() if position < int(newest_old))
                old = old & (events_table.c.seq <= min(positions.values()))
            callbacks = conn.execute(delete(events_table).where(old)).rowcount
            claims = conn.execute(delete(claims_table).where(claims_table.c.claimed_at < received_before)).rowcount
        return PruneResult(callbacks=int(callbacks or 0), claims=int(claims or 0), held_back_by=tuple(holding))


@dataclass(frozen=True)
class PruneResult:
    """What ``prune`` deleted, and the consumers whose unread callbacks it kept."""

    callbacks: int
    claims: int
    held_back_by: tuple[str, ...] = ()


_SHARED: dict[str, CallbackStore] = {}
_SHARED_LOCK = threading.Lock()


def shared_store(database_url: str | None = None) -> CallbackStore:
    """One store (one engine and pool) per database URL in this process, for triggers and sensors."""
    url = resolve_database_url(database_url)
    with _SHARED_LOCK:
        store = _SHARED.get(url)
        if store is None:
            store = _SHARED[url] = CallbackStore(url)
        return store
