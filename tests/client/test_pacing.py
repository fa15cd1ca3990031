"""``AdaptivePace`` on a fake clock: calls spaced at the rate, slow start bounded by use, one cut a second."""

from __future__ import annotations

import asyncio

import pytest

from messaging_platform_provider.client.pacing import CUT_TO, MIN_RATE, PROBE, AdaptivePace


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def pace(clock: Clock, **options: float) -> AdaptivePace:
    return AdaptivePace(clock=clock, sleep=clock.sleep, **options)


def test_calls_are_spaced_at_the_rate_and_waiters_take_turns():
    clock = Clock()
    p = pace(clock, start_rate=10)

    async def twenty() -> list[float]:
        return list(await asyncio.gather(*(p.slot() for _ in range(20))))

    sent = asyncio.run(twenty())
    assert sent == sorted(sent)
    assert sent[-1] - sent[0] == pytest.approx(1.9)  # 20 calls at 10 a second: one at once, then every 0.1 s


def test_slow_start_doubles_with_use_only():
    clock = Clock()
    p = pace(clock, start_rate=10)
    for _ in range(10):
        p.succeeded()
    assert p.rate == 20  # +1 a success
    clock.now += 2
    for _ in range(20):  # calls held back by something else: two successes a second
        clock.now += 0.5
        p.succeeded()
    assert p.rate == 20  # never beyond twice the last second's successes (and the start rate)
    for _ in range(30):
        p.succeeded()
    assert 20 < p.rate <= 50  # busy again: it grows again


def test_a_429_cuts_to_nine_tenths_of_last_seconds_successes_once_a_second():
    clock = Clock()
    p = pace(clock, start_rate=400)
    p.succeeded()  # the run's first answer, long before: the last second is a whole second
    clock.now += 5
    for _ in range(200):
        clock.now += 0.004
        p.succeeded()
    sent = clock.now
    clock.now += 0.05
    p.limited(sent)
    assert p.rate == pytest.approx(CUT_TO * 200) and not p.slow_start and p.cuts == 1
    p.limited(sent)  # sent before the cut: says nothing new
    clock.now += 0.5
    p.limited(clock.now - 0.01)  # within a second of the cut
    assert p.cuts == 1
    before = p.rate
    p.succeeded()
    assert p.rate == pytest.approx(before + PROBE)
    clock.now += 10
    before = p.rate
    p.limited(clock.now)  # nothing succeeded in the last second: no news of the limit, a cut of the rate alone
    assert p.rate == pytest.approx(CUT_TO * before)
    for _ in range(60):
        clock.now += 1.5
        p.limited(clock.now)
    assert p.rate == MIN_RATE  # however many 429s, a call a second still goes out


def test_a_429_early_in_a_run_counts_the_successes_since_the_first_answer():
    clock = Clock()
    p = pace(clock, start_rate=80)
    asyncio.run(p.slot())
    clock.now += 0.1  # a round trip before the first answer: no success could come in it
    for _ in range(15):
        p.succeeded()
        clock.now += 1 / 30
    p.limited(clock.now - 0.01)
    # 15 successes in the half second since the first answer: 30 a second let through, not 15 (over a second)
    # nor 25 (over the 0.6 s since the first call)
    assert p.rate == pytest.approx(CUT_TO * 30)


def test_the_start_rate_must_be_positive_and_max_rate_caps_it():
    with pytest.raises(ValueError):
        AdaptivePace(start_rate=0)
    clock = Clock()
    p = pace(clock, start_rate=5, max_rate=6)
    for _ in range(10):
        p.succeeded()
    assert p.rate == 6
