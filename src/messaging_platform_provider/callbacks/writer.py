"""
Group commit for the receiver: callbacks that arrive while a transaction commits form the next transaction, so one
commit (one fsync on SQLite) acknowledges many, and each answer still waits for its own commit.

When a batch fails, its callbacks are written again one by one, each in its own transaction, and each is answered
by its own outcome: one callback the database refuses never fails the others. A callback the database refuses by
itself (its data, not the database's state) is rejected (422: a redelivery would fail the same way); any other
failure means the store is unavailable (503: the platform redelivers).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from sqlalchemy.exc import DataError, IntegrityError, StatementError

from messaging_platform_provider.callbacks.schema import NewCallback
from messaging_platform_provider.callbacks.store import CallbackStore

log = logging.getLogger(__name__)

MAX_BATCH = 500


class StoreUnavailable(RuntimeError):
    """The store could not be written; the callback was not acknowledged."""


class CallbackRejected(ValueError):
    """The database refuses this callback's data; redelivering it would fail the same way."""


def _refuses_the_data(exc: BaseException) -> bool:
    if isinstance(exc, DataError | IntegrityError | UnicodeError | ValueError | OverflowError):
        return True
    # a driver error raised while binding parameters, not by the server (SQLAlchemy wraps it, not as a DBAPIError)
    return type(exc) is StatementError and isinstance(exc.orig, UnicodeError | ValueError | OverflowError)


class _Pending:
    __slots__ = ("item", "future")

    def __init__(self, item: NewCallback, future: asyncio.Future[bool]) -> None:
        self.item = item
        self.future = future


class BatchWriter:
    """One task per event loop takes what is waiting and stores it in one transaction on a thread."""

    def __init__(self, store: CallbackStore, max_batch: int = MAX_BATCH) -> None:
        self.store = store
        self.max_batch = max_batch
        self._loop: asyncio.AbstractEventLoop | None = None
        self._queue: asyncio.Queue[_Pending] | None = None
        self._task: asyncio.Task[None] | None = None
        self.batches = 0

    def _ensure_running(self) -> asyncio.Queue[_Pending]:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._task is None or self._task.done() or self._queue is None:
            self._loop = loop
            self._queue = asyncio.Queue()
            self._task = loop.create_task(self._run(self._queue), name="messaging-platform-callback-writer")
        return self._queue

    async def submit(self, item: NewCallback) -> bool:
        """Store one callback; True when it was new. Returns once it is committed."""
        queue = self._ensure_running()
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        queue.put_nowait(_Pending(item, future))
        return await future

    async def _run(self, queue: asyncio.Queue[_Pending]) -> None:
        while True:
            batch = [await queue.get()]
            while len(batch) < self.max_batch and not queue.empty():
                batch.append(queue.get_nowait())
            outcomes = await asyncio.to_thread(self._store_batch, [p.item for p in batch])
            for pending, outcome in zip(batch, outcomes, strict=True):
                if pending.future.done():
                    continue
                if isinstance(outcome, BaseException):
                    pending.future.set_exception(outcome)
                else:
                    pending.future.set_result(outcome)

    def _store_batch(self, items: Sequence[NewCallback]) -> list[bool | BaseException]:
        try:
            flags = self.store.add_many(items)
        except Exception as exc:
            if len(items) == 1:
                return [self._failure(exc)]
            log.warning("Could not store a batch of %d callbacks (%s); storing them one by one", len(items), _name(exc))
            return [self._store_one(item) for item in items]
        self.batches += 1
        return list(flags)

    def _store_one(self, item: NewCallback) -> bool | BaseException:
        try:
            return self.store.add_many([item])[0]
        except Exception as exc:
            return self._failure(exc)

    @staticmethod
    def _failure(exc: BaseException) -> BaseException:
        # the exception's text can quote the row's values: only its type is logged, never its message
        if _refuses_the_data(exc):
            log.warning("The store refused a callback's data (%s); answered 422", _name(exc))
            return CallbackRejected("the store cannot hold this callback")
        log.warning("Could not store a callback (%s); answered 503", _name(exc))
        return StoreUnavailable("the callback store could not be written")

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except (asyncio.CancelledError, Exception):
                pass
            self._task = None


def _name(exc: BaseException) -> str:
    orig = getattr(exc, "orig", None)
    return f"{type(exc).__name__}/{type(orig).__name__}" if orig is not None else type(exc).__name__
