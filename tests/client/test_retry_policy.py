"""The retry policy's decisions, one table for every status and failure kind."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime, parsedate_to_datetime

import pytest

from messaging_platform_provider.client.retry import Failure, RetryPolicy, parse_retry_after

POLICY = RetryPolicy(max_attempts=3, backoff_base=1.0, backoff_max=8.0, max_retry_after=60)


@pytest.mark.parametrize(
    ("status", "idempotent", "retried"),
    [
        (429, True, True),
        (429, False, True),
        (502, True, True),
        (503, True, True),
        (504, True, True),
        (502, False, False),
        (503, False, False),
        (500, True, False),
        (400, True, False),
        (401, True, False),
        (404, True, False),
    ],
)
def test_status_decisions(status, idempotent, retried):
    delay = POLICY.delay_after_status(status, idempotent=idempotent, attempt=1)
    assert (delay is not None) is retried


@pytest.mark.parametrize(
    ("failure", "idempotent", "retried"),
    [
        (Failure.NOT_SENT, False, True),
        (Failure.NOT_SENT, True, True),
        (Failure.LOST, True, True),
        (Failure.LOST, False, False),
    ],
)
def test_failure_decisions(failure, idempotent, retried):
    assert (POLICY.delay_after_failure(failure, idempotent=idempotent, attempt=1) is not None) is retried


def test_attempts_are_bounded():
    assert POLICY.delay_after_status(503, idempotent=True, attempt=3) is None
    assert POLICY.delay_after_failure(Failure.NOT_SENT, idempotent=True, attempt=3) is None


def test_backoff_grows_with_jitter_under_the_cap():
    rng = random.Random(7)
    delays = [[POLICY.backoff(n, rng) for _ in range(200)] for n in (1, 2, 3, 4, 5)]
    for n, samples in enumerate(delays, start=1):
        ceiling = min(8.0, 2 ** (n - 1))
        assert all(ceiling / 2 <= d <= ceiling for d in samples)
        assert len(set(samples)) > 100  # jittered, not fixed


def test_retry_after_forms():
    now = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after(format_datetime(now + timedelta(seconds=30), usegmt=True), now) == 30.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert parse_retry_after("Sat, 21 Nov 2026 12:00:45 -0000", now) == 45.0  # no zone given (-0000): read as UTC
    assert parse_retry_after("Sat, 21 Nov 2026 11:59:00 GMT", now) == 0.0  # already past: no wait, never negative
    later = format_datetime(datetime.now(timezone.utc) + timedelta(seconds=60), usegmt=True)
    before = datetime.now(timezone.utc)
    wait = parse_retry_after(later)  # against the clock when no `now` is given: the clock while it parses
    after = datetime.now(timezone.utc)
    when = parsedate_to_datetime(later)
    assert wait is not None and (when - after).total_seconds() <= wait <= (when - before).total_seconds()
    assert POLICY.delay_after_status(429, idempotent=True, attempt=1, retry_after="5") == 5.0
    assert POLICY.delay_after_status(429, idempotent=True, attempt=1, retry_after="600") is None  # too long to wait
