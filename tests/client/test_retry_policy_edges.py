"""The retry policy at its edges: what a DAG author reads for a bad policy, the jitter range, the Retry-After cap."""

from __future__ import annotations

import random

import pytest

from messaging_platform_provider.client.retry import RetryPolicy

POLICY = RetryPolicy(max_attempts=3, backoff_base=1.0, backoff_max=8.0, max_retry_after=60)


class _FixedRandom(random.Random):
    """A generator whose every draw is ``value`` (``uniform(a, b)`` is then ``a + (b - a) * value``)."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


# -- __post_init__: which policies are refused, and the message a DAG author reads -----------------------------------


@pytest.mark.parametrize("max_attempts", [0, -1])
def test_too_few_attempts_are_refused_with_their_message(max_attempts):
    with pytest.raises(ValueError) as caught:
        RetryPolicy(max_attempts=max_attempts)
    assert str(caught.value) == "max_attempts must be at least 1"


@pytest.mark.parametrize(
    "kwargs",
    [{"backoff_base": -0.5}, {"backoff_max": -1.0}, {"backoff_base": -1.0, "backoff_max": -1.0}],
    ids=["base", "max", "both"],
)
def test_a_negative_backoff_is_refused_with_its_message(kwargs):
    with pytest.raises(ValueError) as caught:
        RetryPolicy(**kwargs)
    assert str(caught.value) == "backoff_base and backoff_max must not be negative"


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"backoff_base": 0.0}, 0.0),  # retry at once
        ({"backoff_max": 0.0}, 0.0),
        ({"backoff_base": 0.0, "backoff_max": 0.0}, 0.0),
        ({"backoff_base": 1.0, "backoff_max": 0.5}, 0.5),  # a cap under one second
    ],
    ids=["base-0", "max-0", "both-0", "max-half"],
)
def test_a_zero_or_small_backoff_is_accepted(kwargs, expected):
    policy = RetryPolicy(max_attempts=1, **kwargs)
    assert policy.max_attempts == 1
    assert policy.backoff(3, _FixedRandom(1.0)) == expected


# -- backoff: the jitter spans half to all of the ceiling ------------------------------------------------------------


@pytest.mark.parametrize(
    ("draw", "retry_number", "expected"),
    [
        (0.0, 1, 0.5),  # ceiling 1: from half ...
        (1.0, 1, 1.0),  # ... to all of it
        (0.5, 3, 3.0),  # ceiling 4
        (1.0, 4, 8.0),  # ceiling 8, the cap
        (1.0, 9, 8.0),
        (0.25, 9, 5.0),
    ],
)
def test_the_jitter_reaches_the_full_ceiling(draw, retry_number, expected):
    assert POLICY.backoff(retry_number, _FixedRandom(draw)) == expected


def test_seeded_backoff_draws():
    rng = random.Random(1)
    delays = [POLICY.backoff(4, rng) for _ in range(3)]
    assert delays == pytest.approx([4.537456976449604, 7.389734947748931, 7.055098475906457])


def test_the_longest_waits_come_near_the_ceiling():
    rng = random.Random(11)
    delays = [POLICY.backoff(4, rng) for _ in range(2000)]
    # uniform over [4, 8]: the chance that no draw of 2000 passes 7.5 is (7/8) ** 2000, about 1e-116
    assert max(delays) > 7.5
    assert min(delays) >= 4.0


# -- delay_after_status: a Retry-After up to max_retry_after is waited for --------------------------------------------


@pytest.mark.parametrize(
    ("retry_after", "expected"),
    [("59", 59.0), ("60", 60.0), ("61", None)],
    ids=["under", "at-the-cap", "over"],
)
def test_a_retry_after_at_the_cap_is_waited_for(retry_after, expected):
    assert POLICY.delay_after_status(429, idempotent=False, attempt=1, retry_after=retry_after) == expected
