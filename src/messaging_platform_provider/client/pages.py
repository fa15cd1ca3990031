"""
A paged list read ahead of its reader: up to ``lookahead`` pages are on the wire while the reader works through the
one before, and never more than ``2 * lookahead + 1`` pages are held (those on the wire, those waiting in the
queue, and the reader's own), however long the list.

One page after another waits a full round trip per page (50 ms across the internet: 200,000 contacts in pages of 500
take 20 s of waiting alone). The pages are fetched by ``$skip`` in a thread with its own event loop and handed over
through a bounded queue in order; when the reader is slow the fetching stops, when it stops early (or fails) the
thread is told to end, gives up the page it is retrying, and is waited for. A page is retried as ``bulk.BulkRun``
retries any call; an error that ends it is raised to the reader in its place. The list is read as it stands while it
is read, as page by page would.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.bulk import BulkRun
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.operations import Operation
from messaging_platform_provider.client.request import prepare
from messaging_platform_provider.client.retry import RetryPolicy

_END = object()
#: how often a wait in the reading thread looks whether the reader has stopped (seconds)
_TICK = 0.02


class PagesAhead:
    """
    ``for page in PagesAhead(...)``: the pages of ``op`` (a list operation taking ``$top``/``$skip``), in order.
    ``make_client`` builds the async client in the reading thread's loop; it is closed when the reading ends.
    """

    def __init__(
        self,
        make_client: Callable[[], AsyncMessagingPlatformClient],
        op: Operation,
        *,
        account_id: int,
        page_size: int,
        lookahead: int = 4,
        query: Mapping[str, Any] | None = None,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        for name, value in (("page_size", page_size), ("lookahead", lookahead)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise MessagingPlatformValidationError(name, f"must be a whole number of at least 1, got {value!r}")
        self.make_client = make_client
        self.op = op
        self.account_id = account_id
        self.page_size = page_size
        self.lookahead = lookahead
        self.query = dict(query or {})
        self.retry_policy = retry_policy

    def __iter__(self) -> Iterator[list[dict[str, Any]]]:
        pages: queue.Queue[Any] = queue.Queue(maxsize=self.lookahead)
        stop = threading.Event()
        thread = threading.Thread(target=lambda: asyncio.run(self._fetch(pages, stop)), name="pages-ahead", daemon=True)
        thread.start()
        try:
            while True:
                page = pages.get()
                if page is _END:
                    return
                if isinstance(page, BaseException):
                    raise page
                yield page
        finally:
            stop.set()
            while thread.is_alive():  # a fetcher blocked on a full queue sees ``stop`` once there is room
                try:
                    pages.get(timeout=_TICK)
                except queue.Empty:
                    pass
            thread.join()

    async def _fetch(self, pages: queue.Queue[Any], stop: threading.Event) -> None:
        client: AsyncMessagingPlatformClient | None = None
        pending: deque[asyncio.Task[Any]] = deque()
        try:
            client = self.make_client()
            run = BulkRun(client, self.op, [], max_in_flight=self.lookahead, retry_policy=self.retry_policy)
            skip, last_seen = 0, False
            while not stop.is_set():
                while not last_seen and len(pending) < self.lookahead:
                    query = {**self.query, "$top": self.page_size, "$skip": skip}
                    prepared = prepare(self.op, client.base_url, {"account_id": self.account_id}, None, query)
                    pending.append(asyncio.ensure_future(run.send_one(prepared)))
                    skip += self.page_size
                if not pending:
                    break
                head = pending[0]
                while not head.done() and not stop.is_set():  # the reader may stop while a page is retried
                    await asyncio.wait([head], timeout=_TICK)
                if stop.is_set():
                    break
                outcome = pending.popleft().result()
                if outcome.error is not None:
                    await self._put(pages, outcome.error, stop)
                    return
                page = outcome.value or []
                if len(page) < self.page_size:
                    last_seen = True  # the pages asked for beyond it are empty: not waited for
                    for task in pending:
                        task.cancel()
                    pending.clear()
                if page:
                    await self._put(pages, page, stop)
            await self._put(pages, _END, stop)
        except BaseException as exc:  # handed to the reader, who raises it (it must never wait for nothing)
            await self._put(pages, exc, stop)
        finally:
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            if client is not None:
                await client.aclose()

    @staticmethod
    async def _put(pages: queue.Queue[Any], item: Any, stop: threading.Event) -> None:
        """
        Hand ``item`` over, waiting for room while the reader still reads. The wait is the event loop's, so the
        pages in flight meanwhile are read as they arrive, not left to run into their read timeout.
        """
        while not stop.is_set():
            try:
                pages.put_nowait(item)
                return
            except queue.Full:
                await asyncio.sleep(_TICK)
