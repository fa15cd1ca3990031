"""
The worker's waiting loop (``wait_until_done``): what it sleeps between rounds, how it ends at the deadline, which
account it reads and where its warnings go. Against the emulator, with the loop's ``sleep`` recorded.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.waiting.deadline import deadline_after
from messaging_platform_provider.waiting.decision import Outcome, WaitRules, Watch
from messaging_platform_provider.waiting.sync_loop import wait_until_done
from tests.support.waiting import PARKED, Lifecycle

COMPLETED = {"pending_seconds": 0, "processing_seconds": 0, "outcome": "Completed"}


class Enough(Exception):
    """Ends a wait that has no deadline, once the test has seen enough rounds."""


class Recorded:
    """The loop's ``sleep``: records each pause, sleeps at most ``cap`` of it, and stops the wait after ``rounds``."""

    def __init__(self, rounds: int | None = None, cap: float = 0.0) -> None:
        self.pauses: list[float] = []
        self.rounds = rounds
        self.cap = cap

    def __call__(self, seconds: float) -> None:
        self.pauses.append(seconds)
        if self.rounds is not None and len(self.pauses) >= self.rounds:
            raise Enough
        time.sleep(min(seconds, self.cap))


class Warnings:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def warning(self, event: Any, *args: Any, **kw: Any) -> None:
        self.lines.append(str(event) % args if args else str(event))


def parked_schedule(platform: Any) -> tuple[int, int]:
    """A schedule that stays Pending: (action id, schedule id)."""
    schedule = Lifecycle(platform).new_schedule(platform.seed.action_id, **PARKED)
    return platform.seed.action_id, schedule["Id"]


def test_without_a_deadline_each_round_sleeps_the_poll_interval(platform):
    action_id, schedule_id = parked_schedule(platform)
    sleep = Recorded(rounds=3)
    with pytest.raises(Enough):
        wait_until_done(
            MessagingPlatformHook(),
            Watch(WaitRules(), action_id, [schedule_id]),
            account_id=None,
            poll_interval=0.25,
            deadline=None,
            log=Warnings(),
            sleep=sleep,
        )
    assert sleep.pauses == [0.25, 0.25, 0.25]


def test_a_deadline_nearer_than_the_poll_interval_cuts_the_sleep_and_ends_the_wait(platform):
    action_id, schedule_id = parked_schedule(platform)
    sleep = Recorded(cap=2.0)
    deadline = deadline_after(3.0)
    step = wait_until_done(
        MessagingPlatformHook(),
        Watch(WaitRules(), action_id, [schedule_id]),
        account_id=None,
        poll_interval=600,
        deadline=deadline,
        log=Warnings(),
        sleep=sleep,
    )
    assert (step.outcome, step.message) == (Outcome.TIMEOUT, f"deadline {deadline} passed while waiting")
    # each pause ends by the deadline (none at all when a loaded machine took the 3 s over the first read)
    assert all(0 <= p <= 3.0 for p in sleep.pauses)


def test_a_wait_on_a_schedule_that_never_ends_gives_up_at_its_deadline(platform):
    """
    Pending for an hour: only the deadline (1.5 s away) ends the wait. The sleep stops a wait after 100 rounds of
    at most 50 ms (far past the deadline), so a loop that ignored the deadline fails here rather than hanging.
    """
    action_id, schedule_id = parked_schedule(platform)
    deadline = deadline_after(1.5)
    sleep = Recorded(rounds=100, cap=0.05)
    step = wait_until_done(
        MessagingPlatformHook(),
        Watch(WaitRules(), action_id, [schedule_id]),
        account_id=None,
        poll_interval=0.05,
        deadline=deadline,
        log=Warnings(),
        sleep=sleep,
    )
    assert (step.outcome, step.message) == (Outcome.TIMEOUT, f"deadline {deadline} passed while waiting")
    assert sleep.pauses and all(p <= 0.05 for p in sleep.pauses)
    reads = [r for r in platform.control.requests() if r["method"] == "GET" and r["path"].endswith(f"/{schedule_id}")]
    assert len(reads) == len(sleep.pauses) + 1 and {r["status"] for r in reads} == {200}  # a read each round


def test_the_schedules_are_read_in_the_account_the_wait_names(platform):
    """Not the connection's (where the schedule has completed): an account that does not exist answers 404."""
    action_id = platform.seed.action_id
    schedule_id = Lifecycle(platform).new_schedule(action_id, **COMPLETED)["Id"]
    other = platform.seed.account_id + 7
    before = len(platform.control.requests())
    step = wait_until_done(
        MessagingPlatformHook(),
        Watch(WaitRules(), action_id, [schedule_id]),
        account_id=other,
        poll_interval=0.05,
        deadline=deadline_after(30),
        log=Warnings(),
        sleep=Recorded(),
    )
    assert (step.outcome, step.message) == (
        Outcome.FAILURE,
        f"schedule {schedule_id} of action {action_id}: GET /account/{other}/action/{action_id}/schedule/{schedule_id} "
        f"failed with HTTP 404: Account: Account {other} was not found. (code 404); waiting cannot help",
    )
    assert [r["path"] for r in platform.control.requests()[before:]] == [
        f"/api/v2.1/account/{other}/action/{action_id}/schedule/{schedule_id}"
    ]


def test_an_unknown_status_is_logged_to_the_log_given_once():
    """The emulator never answers a ProcessStatus outside the five, so the API here is a stand-in."""

    class QueuedThenCompleted:
        def __init__(self) -> None:
            self.answers = ["Queued", "Queued", "Completed"]

        def get_schedule(self, action_id: Any, schedule_id: Any, *, account_id: Any = None) -> dict[str, Any]:
            return {"Id": int(schedule_id), "ActionId": int(action_id), "ProcessStatus": self.answers.pop(0)}

    log = Warnings()
    step = wait_until_done(
        QueuedThenCompleted(),  # type: ignore[arg-type]
        Watch(WaitRules(), 5001, [7001]),
        account_id=None,
        poll_interval=0.01,
        deadline=None,
        log=log,
        sleep=Recorded(),
    )
    assert step.outcome is Outcome.SUCCESS
    assert log.lines == ["schedule 7001 of action 5001 has an unknown ProcessStatus 'Queued'; still waiting"]
