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
        # As a real sleep, it always takes some time: a wait of less than the clock's float resolution (what
        # rounding leaves of a token) would otherwise leave the clock where it was, and the pace waiting forever.
        self.now += max(seconds, 1e-9)


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


# -- the start: its default, its floor, and one call at a time -------------------------------------------------------


def test_the_pace_starts_at_fifty_calls_a_second_unless_told_otherwise():
    """What docs/hook.md promises for ``call_many`` also holds for a ``BulkRun`` given no pace of its own."""
    assert AdaptivePace().rate == 50


def test_a_start_rate_below_one_call_a_second_spaces_the_calls_out():
    """A platform that allows a call every two seconds is paced so from the start: any rate above 0 is taken."""
    clock = Clock()
    p = pace(clock, start_rate=0.5)

    async def three() -> list[float]:
        return [await p.slot() for _ in range(3)]

    assert asyncio.run(three()) == pytest.approx([1000.0, 1002.0, 1004.0])


@pytest.mark.parametrize("start_rate", [0, -5])
def test_a_start_rate_of_nothing_is_refused_saying_what_it_must_be(start_rate):
    with pytest.raises(ValueError) as caught:
        AdaptivePace(start_rate=start_rate)
    assert str(caught.value) == "start_rate must be above 0"


def test_the_first_calls_of_a_run_go_out_one_at_a_time():
    """No burst before anything is known of the platform: the second call waits its interval, as every later one."""
    clock = Clock()
    p = pace(clock, start_rate=40)  # a burst of up to 4 calls would be allowed after a quiet spell

    async def three() -> list[float]:
        return [await p.slot() for _ in range(3)]

    assert asyncio.run(three()) == pytest.approx([1000.0, 1000.025, 1000.05])


def test_a_call_waits_only_what_is_left_of_its_interval():
    clock = Clock()
    p = pace(clock, start_rate=10)

    async def two() -> list[float]:
        first = await p.slot()
        clock.now += 0.05  # half the interval went by before the next call asked
        return [first, await p.slot()]

    assert asyncio.run(two()) == pytest.approx([1000.0, 1000.1])


# -- "the last second": successes counted with both its ends ---------------------------------------------------------


def test_calls_that_succeed_once_a_second_grow_the_rate_to_twice_that_plus_the_start_rate():
    """Each last second holds two successes (the one now, the one a second ago): the rate stops at 2 * 2 + 1."""
    clock = Clock()
    p = pace(clock, start_rate=1)
    for _ in range(10):
        p.succeeded()
        clock.now += 1.0
    assert p.rate == 5


def test_a_429_cuts_to_what_succeeded_in_the_last_second_its_ends_included():
    clock = Clock()
    p = pace(clock, start_rate=400)
    p.succeeded()  # the run's first answer, long before: the last second is a whole second
    clock.now = 1005.0
    for _ in range(8):  # a success every quarter second, the last at 1006.75
        p.succeeded()
        clock.now += 0.25
    p.limited(clock.now)  # at 1007.0: the successes at 1006.0, 1006.25, 1006.5 and 1006.75 came in the last second
    assert p.rate == pytest.approx(CUT_TO * 4)


def test_a_429_a_second_after_the_cut_cuts_again_and_each_cut_is_counted():
    """Cuts count once a second, so one a whole second later counts (even for a call sent the moment of the cut)."""
    clock = Clock()
    p = pace(clock, start_rate=100)
    p.limited(clock.now)
    assert p.rate == pytest.approx(CUT_TO * 100)
    sent = clock.now  # a call sent the moment the rate was cut, at the cut rate
    clock.now += 1.0
    p.limited(sent)
    assert p.rate == pytest.approx(CUT_TO * CUT_TO * 100)
    assert (p.cuts, p.slow_start) == (2, False)


def test_after_a_cut_the_calls_go_out_one_at_a_time_at_the_cut_rate():
    """A burst saved up in a quiet spell is spent no more once the platform has said 429."""
    clock = Clock()
    p = pace(clock, start_rate=400)

    async def after_cut() -> list[float]:
        await p.slot()
        clock.now += 1.0  # a quiet spell: a burst of 40 calls saved up
        p.limited(await p.slot())
        return [await p.slot() for _ in range(3)]

    sent = asyncio.run(after_cut())
    cut = CUT_TO * 400
    assert [s - sent[0] for s in sent] == pytest.approx([0.0, 1 / cut, 2 / cut])
