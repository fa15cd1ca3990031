"""
The wait tests' helpers (``tests/support/waiting.py``) and the emulator's schedule lifecycle controls behave as
the wait tests assume.
"""

from __future__ import annotations

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.waiting import (
    PARKED,
    SOON,
    Lifecycle,
    WhenPolled,
    frozen_clock,
    gets,
    parked_by_default,
    schedule_path,
    wait_until,
)


def test_a_one_time_schedule_goes_pending_processing_then_its_outcome(platform):
    life = Lifecycle(platform)
    # On a clock that only the test moves, every status is seen, however slowly the machine answers.
    with frozen_clock(life):
        schedule = life.new_schedule(pending_seconds=0.15, processing_seconds=0.15, outcome="Failed")
        seen = [life.status(5001, schedule["Id"])]
        for seconds in (0.1, 0.1, 0.2):  # 0.1 s: still Pending; 0.2 s: Processing; 0.4 s: ended
            life.control.set_clock(advance_seconds=seconds)
            seen.append(life.status(5001, schedule["Id"]))
    assert seen == ["Pending", "Pending", "Processing", "Failed"]
    # On the running clock (as the wait tests use it) the run moves on by itself, through the same statuses.
    order = ["Pending", "Processing", "Failed"]
    schedule = life.new_schedule(pending_seconds=0.05, processing_seconds=0.05, outcome="Failed")
    seen = [schedule["ProcessStatus"]]

    def ended() -> bool:
        seen.append(life.status(5001, schedule["Id"]))
        return seen[-1] == "Failed"

    wait_until(ended, "the schedule's run ended Failed on the running clock")
    assert seen[0] == "Pending" and set(seen) <= set(order) and seen == sorted(seen, key=order.index), seen


def test_a_parked_schedule_stays_pending_until_moved_on_or_aborted(platform):
    life = Lifecycle(platform)
    with frozen_clock(life):
        with parked_by_default(life):
            first = life.new_schedule()
            second = life.new_schedule()
        defaults = life.control.schedule_behaviour()
        assert defaults["pending_seconds"] != PARKED["pending_seconds"]  # the defaults came back
        # 50 emulator minutes: the defaults would have ended a run in a second
        life.control.set_clock(advance_seconds=3000)
        assert life.status(5001, first["Id"]) == life.status(5001, second["Id"]) == "Pending"
        now = {"pending_seconds": 0, "processing_seconds": 0}
        life.control.set_one_schedule_behaviour(first["Id"], **now, outcome="Completed")
        assert life.control.abort_schedule(second["Id"])["ProcessStatus"] == "Aborted"
        assert life.status(5001, first["Id"]) == "Completed"
        assert life.status(5001, second["Id"]) == "Aborted"


def test_deleting_a_voice_call_makes_its_schedule_routes_answer_404(platform):
    from messaging_platform_provider.client import MessagingPlatformApiError

    life = Lifecycle(platform)
    action_id, schedule_id = life.new_voice_call(**PARKED)
    assert life.status(action_id, schedule_id) == "Pending"
    MessagingPlatformHook().delete_push_voice_call(action_id)
    try:
        life.status(action_id, schedule_id)
    except MessagingPlatformApiError as exc:
        assert exc.status == 404
    else:
        raise AssertionError("the schedule of a deleted action is still readable")


def test_when_polled_fires_each_move_once_after_the_first_answered_read(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    calls: list[int] = []

    def move() -> None:
        calls.append(life.control.set_one_schedule_behaviour(schedule["Id"], **SOON)["Id"])

    # The mover thread may be slow to run on a loaded machine: every wait on it is a minute long.
    with WhenPolled(platform, {path: move}) as mover:
        wait_until(lambda: mover.rounds >= 1 or mover.errors, "the mover scanned the request record", 60)
        assert calls == []  # it has seen every request made so far, and nobody read the schedule yet
        assert life.status(5001, schedule["Id"]) == "Pending"  # the first read
        wait_until(lambda: calls or mover.errors, "the mover fired after the first read", 60)
        life.status(5001, schedule["Id"])  # a second read, which must not fire the move again
        second = gets(platform, 5001, schedule["Id"])[-1]["seq"]
        wait_until(lambda: not mover.watching or mover.since >= second, "the mover saw the second read", 60)
    assert calls == [schedule["Id"]] and list(mover.fired) == [path]
    wait_until(lambda: life.status(5001, schedule["Id"]) == "Completed", "the moved schedule ended Completed")
