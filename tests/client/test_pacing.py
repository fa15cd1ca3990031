"""
``AdaptivePace`` on a fake clock: calls spaced at the rate, slow start bounded by use, one cut a second, the same
growth step for every pace, and paces of several processes sharing one account's limit fairly.
"""

from __future__ import annotations

import asyncio
import heapq

import pytest

from messaging_platform_emulator.conditions import Conditions, NetworkConditions, retry_after_header
from messaging_platform_provider.client.pacing import CUT_TO, MIN_RATE, PROBE_STEP, AdaptivePace


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
    assert p.rate == pytest.approx(before + PROBE_STEP * 400 / before)
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


# -- after the first 429: the same step for every pace, and several paces sharing one account ----------------------


def test_after_a_cut_every_pace_grows_by_the_same_calls_a_second_whatever_its_rate():
    """A second of successes at its own rate adds the step (8 % of the start rate) to a pace at 180 as to one at 18."""
    clock = Clock()
    for let_through in (200, 20):
        p = pace(clock, start_rate=50)
        p.succeeded()
        clock.now += 5
        for _ in range(let_through):  # a second of successes at ``let_through`` a second, then the first 429
            clock.now += 1 / let_through
            p.succeeded()
        p.limited(clock.now)
        before = p.rate
        assert before == pytest.approx(CUT_TO * let_through)
        for _ in range(round(before)):  # a second at the cut rate
            clock.now += 1 / before
            p.succeeded()
        # each success adds the step over the rate of the moment: a little less than the step where the rate is low
        assert p.rate - before == pytest.approx(PROBE_STEP * 50, rel=0.1)


class SharedAccount:
    """
    Paces of processes that share one account's limit (the emulator's token bucket), on one fake clock. Each pace
    always has calls to send, up to ``in_flight`` on the wire, each answered a round trip later; a refused call holds
    its place on the wire for its ``Retry-After`` and is sent again.
    """

    def __init__(self, limit: float, starts: list[float], *, in_flight: int = 16, latency: float = 0.05) -> None:
        self.clock = Clock()
        self.clock.now = 0.0
        self.bucket = NetworkConditions(Conditions(rate_limit=limit), clock=self.clock)
        self.paces = [pace(self.clock) for _ in starts]
        self.latency = latency
        self.free = [in_flight] * len(starts)
        self.send_due = [True] * len(starts)
        self.successes: list[list[float]] = [[] for _ in starts]
        self.calls = self.refused = 0
        self._events: list[tuple[float, int, str, int, float]] = []
        for index, start in enumerate(starts):
            self._add(start, "send", index)

    def _add(self, at: float, kind: str, index: int, sent_at: float = 0.0) -> None:
        heapq.heappush(self._events, (at, len(self._events) + self.calls, kind, index, sent_at))

    def run_until(self, end: float) -> None:
        while self._events and self._events[0][0] < end:
            self.clock.now, _, kind, index, sent_at = heapq.heappop(self._events)
            if kind == "send":
                self.send_due[index] = False
            elif kind == "ok":
                self.paces[index].succeeded()
                self.successes[index].append(self.clock.now)
                self.free[index] += 1
            elif kind == "refused":
                self.paces[index].limited(sent_at)
            else:  # "resend": a refused call's Retry-After is over
                self.free[index] += 1
            self._send(index)

    def _send(self, index: int) -> None:
        now = self.clock.now
        while self.free[index] and not self.send_due[index]:
            wait = self.paces[index].next_slot_in()
            if wait > 0:
                self.send_due[index] = True
                self._add(now + max(wait, 1e-6), "send", index)
                return
            self.free[index] -= 1
            self.calls += 1
            refused_for = self.bucket.admit("/api/v2.1/account/1001/external-couponlist/1/code/A")
            if refused_for is None:
                self._add(now + self.latency, "ok", index)
            else:
                self.refused += 1
                self._add(now + self.latency, "refused", index, now)
                self._add(now + self.latency + float(retry_after_header(refused_for)), "resend", index)

    def rates_between(self, start: float, end: float) -> list[float]:
        return [sum(start <= t < end for t in times) / (end - start) for times in self.successes]


def jain(rates: list[float]) -> float:
    return sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates))


@pytest.mark.parametrize("workers", [2, 4])
def test_paces_that_share_a_limit_take_it_in_equal_shares_and_rarely_hear_429(workers):
    account = SharedAccount(200, [0.0] * workers)
    account.run_until(60)
    rates = account.rates_between(20, 60)
    assert sum(rates) >= 0.9 * 200
    assert jain(rates) >= 0.98
    assert account.refused / account.calls < 0.05


def test_a_process_that_starts_on_a_busy_account_leaves_all_four_with_equal_shares():
    """
    Three paces hold the whole limit, in shares that chance made unequal, when a fourth starts and is refused at
    once. All four grow by the same step and each shared cut takes a tenth off each, so the gaps close: within half a
    minute the four hold about a quarter each. (Grown in proportion to their own rates, the gaps stayed: after two
    minutes the four still held 72, 56, 35 and 36 calls a second.)
    """
    account = SharedAccount(200, [0.0, 0.0, 0.0, 20.0])
    account.run_until(70)
    rates = account.rates_between(50, 70)
    assert sum(rates) >= 0.9 * 200
    assert jain(rates) >= 0.98
    assert min(rates) >= 0.8 * max(rates)
