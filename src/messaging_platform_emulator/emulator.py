"""One emulator instance: platform state, clock, fault rules and request record together."""

from __future__ import annotations

from .clock import ScaledClock
from .faults import FaultBook
from .recorder import Recorder
from .state import PlatformState, Seed


class Emulator:
    def __init__(self, api_key: str | None = None, api_secret: str | None = None) -> None:
        self.clock = ScaledClock()
        self.state = PlatformState(self.clock, api_key=api_key, api_secret=api_secret)
        self.faults = FaultBook()
        self.recorder = Recorder()

    @property
    def seed(self) -> Seed:
        return self.state.seed

    def reset(self) -> None:
        """Seeded state again (same seed credentials); no faults, records, clock changes or behaviours."""
        self.faults.clear()
        self.recorder.clear()
        self.clock.reset()
        self.state.reset()
