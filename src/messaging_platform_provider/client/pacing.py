"""
How fast many calls go out: a token bucket on the client whose rate follows the platform's 429 answers.

The platform states no rate limit, so the pace is learnt. It starts at ``start_rate`` calls a second and, until
the first 429, grows by one call a second with every success (doubling each second while calls keep up); it never
runs ahead of twice what succeeded in the last second plus ``start_rate``, so calls held back by something else (too
few in flight, a slow answer) do not build a rate that was never tried.

A 429 cuts it to nine tenths of the rate at which calls succeeded in the last second, which is what the platform let
through (when answers have come for less than a second, the successes so far over that time; to nine tenths of the
rate itself when none succeeded: another client emptied the bucket). Cuts count once
per second, as the 429s of calls sent before the cut say nothing new. After that it probes back up by the same
number of calls a second each second (``PROBE_STEP`` of the start rate: 4 at the default 50), so a limit that was
raised is found again and one that was lowered is met by the next 429.

Several processes that share one account's limit (Airflow workers running bulk tasks for one account) pace
themselves each on its own 429s, knowing nothing of the others. When the account's bucket runs empty, each of them
is refused and cut to nine tenths: the gaps between their rates shrink by a tenth with every cut. Between cuts each
grows by the same step, which leaves the gaps as they are, so the rates move toward equal shares of the limit (an
additive increase with a multiplicative decrease). A growth in proportion to each one's own rate would keep
whatever gap chance made at the start, and a pace that fell behind would stay behind.

The refused call itself waits its ``Retry-After`` before it is sent again (``retry.RetryPolicy``); the other calls go
on at the cut rate instead of all stopping, which would waste the time the platform refills in.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import Awaitable, Callable

#: calls on the wire at once unless the caller says otherwise (``hook.call_many``, the bulk operators)
DEFAULT_MAX_IN_FLIGHT = 16
#: the least rate a cut leaves (calls a second): a platform that refuses everything is still asked now and then
MIN_RATE = 1.0
#: the share of last second's successes a 429 cuts the rate to
CUT_TO = 0.9
#: the rate's growth a second after the first 429, in calls a second, as a share of ``start_rate``: the same step
#: for every pace that started alike, however much of the limit it holds
PROBE_STEP = 0.08
#: calls that may go out at once after a quiet spell, in seconds of the current rate
BURST_SECONDS = 0.1


class AdaptivePace:
    """
    ``await pace.slot()`` before each call; ``pace.succeeded()`` or ``pace.limited(sent_at)`` after its answer.
    Coroutines of one event loop share it; ``clock`` and ``sleep`` are injectable for tests.
    """

    def __init__(
        self,
        *,
        start_rate: float = 50.0,
        max_rate: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if start_rate <= 0:
            raise ValueError("start_rate must be above 0")
        self.max_rate = math.inf if max_rate is None else max_rate
        self.start_rate = start_rate
        self.step = PROBE_STEP * start_rate  # calls a second added each second once the first 429 has come
        self.rate = min(start_rate, self.max_rate)
        self.slow_start = True
        self.cuts = 0
        self._clock = clock
        self._sleep = sleep
        self._tokens = 1.0
        self._at = clock()
        self._last_cut = -math.inf
        self._first_answer: float | None = None  # successes are counted as answers come: from the first one on
        self._successes: deque[float] = deque()
        self._turn: asyncio.Lock | None = None  # made in the event loop that uses it

    async def slot(self) -> float:
        """Wait until the pace allows the next call; returns the time it may be sent (for ``limited``)."""
        if self._turn is None:
            self._turn = asyncio.Lock()
        async with self._turn:  # callers wait in line; only the first one sleeps until the next token
            while (wait := self.next_slot_in()) > 0:
                await self._sleep(wait)
            return self._clock()

    def next_slot_in(self) -> float:
        """Take the next call's token if it is there (``0.0``); else the seconds until it will be (nothing taken)."""
        now = self._clock()
        self._tokens = min(max(1.0, self.rate * BURST_SECONDS), self._tokens + (now - self._at) * self.rate)
        self._at = now
        if self._tokens >= 1:
            self._tokens -= 1
            return 0.0
        return (1 - self._tokens) / self.rate

    def succeeded(self) -> None:
        now = self._clock()
        if self._first_answer is None:
            self._first_answer = now
        self._successes.append(now)
        while self._successes and self._successes[0] < now - 1.0:
            self._successes.popleft()
        # A second at the full rate brings ``rate`` successes: +1 each doubles the rate (slow start), +step / rate
        # each adds the step. It grows only while the calls use it: at most twice what succeeded in the last second.
        grown = self.rate + (1.0 if self.slow_start else self.step / self.rate)
        self.rate = min(self.max_rate, max(self.rate, min(grown, 2.0 * len(self._successes) + self.start_rate)))

    def limited(self, sent_at: float) -> None:
        """A call sent at ``sent_at`` was answered 429: cut the rate, unless a cut came after it was sent."""
        now = self._clock()
        if self._first_answer is None:
            self._first_answer = now
        if sent_at < self._last_cut or now - self._last_cut < 1.0:
            return
        while self._successes and self._successes[0] < now - 1.0:
            self._successes.popleft()
        # Answers that came for less than a second (a young run): count the successes at the rate they came, over
        # the time since the first answer (not the first call: a round trip passes before any success can come).
        # Nothing succeeded (another client emptied the account's bucket): that says nothing of the limit, so the
        # cut is of the rate alone.
        window = min(1.0, max(now - self._first_answer, 0.01))
        let_through = len(self._successes) / window or self.rate
        self.rate = max(MIN_RATE, CUT_TO * min(self.rate, let_through))
        self._tokens = min(self._tokens, 1.0)
        self.slow_start = False
        self._last_cut = now
        self.cuts += 1
