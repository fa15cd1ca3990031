"""
Many calls of one operation at once: bounded in flight, paced by the platform's 429s, each item retried as a single
call would be, the outcomes in input order.

A call that goes out one after another waits a full round trip each time (tens of milliseconds across the internet),
so 10,000 coupon-code deletes take minutes though the platform would take them in under one. Here up to
``max_in_flight`` calls are on the wire at once, and ``pacing.AdaptivePace`` keeps them under the rate the platform
allows. Retries follow ``retry.RetryPolicy`` exactly as one call does: a 429 is waited out (``Retry-After``) and
sent again, a POST is never resent after an answer or a lost connection that may hide a create, and an error a retry
cannot fix ends that item at once. One item's failure never stops the others: each outcome holds its value or its
error. A DELETE whose connection was lost after sending (or that was answered 5xx) and whose resend is answered 404
counts as done: the earlier try deleted it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.errors import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.client.operations import Operation
from messaging_platform_provider.client.pacing import DEFAULT_MAX_IN_FLIGHT, AdaptivePace
from messaging_platform_provider.client.request import PreparedRequest, account_for_call, decode, prepare
from messaging_platform_provider.client.retry import Failure, RetryPolicy

#: what an item may hold beside the path's values
_CALL_OPTIONS = ("body", "query", "account_id")


@dataclass(frozen=True)
class BulkOutcome:
    """What became of one item: its decoded answer, or the error that ended it (``ok`` tells which)."""

    value: Any = None
    error: MessagingPlatformApiError | None = None
    attempts: int = 1

    @property
    def ok(self) -> bool:
        return self.error is None


def prepare_calls(
    op: Operation,
    base_url: str,
    default_account: int | None,
    calls: Sequence[Mapping[str, Any]],
    *,
    allow_insecure_http: bool = False,
) -> list[PreparedRequest]:
    """
    Every item checked and built before anything is sent. An item holds what ``call`` takes: the path's values
    (``coupon_list_id=...``), and ``body``, ``query`` and ``account_id`` when needed. A bad item raises
    ``MessagingPlatformValidationError`` naming it: ``calls[3].coupon_code``.
    """
    prepared = []
    known = (*op.path_params, *_CALL_OPTIONS)
    for index, call in enumerate(calls):
        values = dict(call)
        body, query = values.pop("body", None), values.pop("query", None)
        account_id = values.pop("account_id", None)
        try:
            unknown = sorted(set(values) - set(known), key=str)
            if unknown:
                raise MessagingPlatformValidationError(str(unknown[0]), f"is not a value {op.name} takes", known)
            account = account_for_call(account_id, default_account)
            prepared.append(
                prepare(
                    op,
                    base_url,
                    {"account_id": account, **values},
                    body,
                    query,
                    allow_insecure_http=allow_insecure_http,
                )
            )
        except MessagingPlatformValidationError as exc:
            raise exc.within(f"calls[{index}]") from None
    return prepared


def classify_httpx_error(exc: httpx.HTTPError) -> Failure:
    """Whether a request that raised ``exc`` can have reached the platform."""
    if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)):
        return Failure.NOT_SENT
    return Failure.LOST


class BulkRun:
    """One run of ``prepared`` calls of ``op`` on ``client``; ``await run()`` answers the outcomes in input order."""

    def __init__(
        self,
        client: AsyncMessagingPlatformClient,
        op: Operation,
        prepared: Sequence[PreparedRequest],
        *,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        retry_policy: RetryPolicy | None = None,
        pace: AdaptivePace | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if max_in_flight < 1:
            raise MessagingPlatformValidationError("max_in_flight", f"must be at least 1, got {max_in_flight!r}")
        self.client = client
        self.op = op
        self.prepared = prepared
        self.max_in_flight = max_in_flight
        self.retry_policy = retry_policy or RetryPolicy()
        self.pace = pace or AdaptivePace()
        self._sleep = sleep
        self.limited = 0  # answers 429, over all items and tries

    async def run(self) -> list[BulkOutcome]:
        outcomes: list[BulkOutcome | None] = [None] * len(self.prepared)
        items: Iterator[int] = iter(range(len(self.prepared)))

        async def worker() -> None:
            for index in items:  # one shared iterator: each index is taken by exactly one worker
                outcomes[index] = await self.send_one(self.prepared[index])

        await asyncio.gather(*(worker() for _ in range(min(self.max_in_flight, len(self.prepared)))))
        return [outcome for outcome in outcomes if outcome is not None]

    async def send_one(self, prepared: PreparedRequest) -> BulkOutcome:
        """One item to its end: sent, paced, and retried as a single call would be."""
        op, policy = self.op, self.retry_policy
        attempt = 0
        maybe_done = False  # an earlier try may have reached the platform and acted
        while True:
            attempt += 1
            sent_at = await self.pace.slot()
            try:
                response = await self.client.send(prepared)
            except httpx.HTTPError as exc:
                failure = classify_httpx_error(exc)
                maybe_done = maybe_done or failure is Failure.LOST
                delay = policy.delay_after_failure(failure, idempotent=op.idempotent, attempt=attempt)
                if delay is None:
                    error = MessagingPlatformApiError(
                        method=prepared.method,
                        path=prepared.path,
                        status=None,
                        reason=type(exc).__name__,
                        attempts=attempt,
                    )
                    return BulkOutcome(error=error, attempts=attempt)
                await self._sleep(delay)
                continue
            status = response.status_code
            if status == 429:
                self.limited += 1
                self.pace.limited(sent_at)
            elif status < 500:  # an overloaded platform (5xx) is no reason to go faster
                self.pace.succeeded()
            if status == 404 and maybe_done and prepared.method == "DELETE":
                return BulkOutcome(value=None, attempts=attempt)
            delay = policy.delay_after_status(
                status, idempotent=op.idempotent, attempt=attempt, retry_after=response.headers.get("Retry-After")
            )
            if status >= 400 and delay is not None:
                maybe_done = maybe_done or status >= 500  # a server error may come after the platform acted
                await self._sleep(delay)
                continue
            retry_after = response.headers.get("Retry-After")
            try:
                return BulkOutcome(
                    value=decode(op, prepared, status, response.content, attempt, self.client.hidden, retry_after),
                    attempts=attempt,
                )
            except MessagingPlatformApiError as exc:
                return BulkOutcome(error=exc, attempts=attempt)
