"""Schedule lifecycle on the emulator clock: Pending, Processing, then the outcome."""

from __future__ import annotations

import time
from datetime import datetime, timezone


def wait_until(condition, what, timeout=30.0):
    """Poll ``condition`` every 20 ms until it is true (returned); fail naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"still not the case after {timeout:g} s: {what}"
        time.sleep(0.02)
    return value


def freeze(emu):
    emu.ok("POST", "/clock", json={"scale": 0})


def advance(emu, seconds):
    emu.ok("POST", "/clock", json={"advance_seconds": seconds})


def status(emu, schedule):
    return emu.api("GET", f"{emu.schedules}/{schedule['Id']}").json()


def test_one_time_run_goes_pending_processing_completed(emu):
    freeze(emu)
    created = emu.create_schedule()
    assert (created["ProcessStatus"], created["Logs"]) == ("Pending", None)
    advance(emu, 0.1)
    assert status(emu, created)["ProcessStatus"] == "Pending"
    advance(emu, 0.15)
    now = status(emu, created)
    assert now["ProcessStatus"] == "Processing"
    assert [log["Message"] for log in now["Logs"]] == ["Run started."]
    advance(emu, 0.3)
    done = status(emu, created)
    assert done["ProcessStatus"] == "Completed"
    assert [log["Message"] for log in done["Logs"]] == ["Run started.", "Run completed."]
    assert all(set(log) == {"Message", "LogDate"} for log in done["Logs"])


def test_recurring_schedules_stay_pending(emu):
    freeze(emu)
    daily = emu.create_schedule(ScheduleTypeId=6)
    advance(emu, 3 * 86400)
    assert (status(emu, daily)["ProcessStatus"], status(emu, daily)["Logs"]) == ("Pending", None)


def test_default_behaviour_applies_to_later_schedules(emu):
    freeze(emu)
    before = emu.create_schedule()
    assert emu.ok("POST", "/schedule-behaviour", json={"outcome": "Failed", "processing_seconds": 1.0}) == {
        "pending_seconds": 0.2,
        "processing_seconds": 1.0,
        "outcome": "Failed",
    }
    failing = emu.create_schedule()
    advance(emu, 0.5)
    assert status(emu, failing)["ProcessStatus"] == "Processing"
    assert status(emu, before)["ProcessStatus"] == "Completed"
    advance(emu, 1.0)
    assert status(emu, failing)["ProcessStatus"] == "Failed"
    assert status(emu, failing)["Logs"][-1]["Message"] == "Run failed."

    emu.ok("POST", "/schedule-behaviour", json={"outcome": "Aborted"})
    aborted = emu.create_schedule()
    advance(emu, 2)
    assert status(emu, aborted)["ProcessStatus"] == "Aborted"


def test_one_schedule_can_take_about_a_second(emu):
    freeze(emu)
    created = emu.create_schedule()
    advance(emu, 5)
    assert status(emu, created)["ProcessStatus"] == "Completed"
    body = emu.ok(
        "POST", f"/schedules/{created['Id']}/behaviour", json={"pending_seconds": 0, "processing_seconds": 1.0}
    )
    assert body["ProcessStatus"] == "Processing"
    advance(emu, 0.9)
    assert status(emu, created)["ProcessStatus"] == "Processing"
    advance(emu, 0.2)
    assert status(emu, created)["ProcessStatus"] == "Completed"


def test_abort_now(emu):
    freeze(emu)
    created = emu.create_schedule()
    aborted = emu.ok("POST", f"/schedules/{created['Id']}/abort")
    assert aborted["ProcessStatus"] == "Aborted"
    advance(emu, 10)
    assert status(emu, created)["ProcessStatus"] == "Aborted"
    assert [log["Message"] for log in status(emu, created)["Logs"]] == ["Run aborted by user."]
    assert emu.control("POST", f"/schedules/{created['Id']}/abort").status_code == 409
    assert emu.control("POST", "/schedules/999999/abort").status_code == 404
    assert emu.control("POST", "/schedules/999999/behaviour", json={}).status_code == 404


def test_behaviour_input_is_checked(emu):
    assert emu.control("POST", "/schedule-behaviour", json={"outcome": "Exploded"}).status_code == 422
    assert emu.control("POST", "/schedule-behaviour", json={"pending_seconds": -1}).status_code == 422


def test_clock_scale_advance_and_reset(emu):
    clock = emu.ok("GET", "/clock")
    assert clock["scale"] == 1.0
    start = datetime.fromisoformat(clock["now"])
    moved = emu.ok("POST", "/clock", json={"scale": 0, "advance_seconds": 3600})
    assert moved["scale"] == 0
    assert (datetime.fromisoformat(moved["now"]) - start).total_seconds() >= 3600
    emu.ok("POST", "/clock", json={"scale": 2000})

    def ran_90_seconds() -> bool:
        later = datetime.fromisoformat(emu.ok("GET", "/clock")["now"])
        return (later - datetime.fromisoformat(moved["now"])).total_seconds() >= 90

    # 45 ms at scale 2000; at scale 1 (the scale not applied) 90 s, past the deadline.
    wait_until(ran_90_seconds, "the clock at scale 2000 ran 90 emulator seconds")
    before = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)  # the clock reads to the second
    emu.ok("POST", "/reset")
    clock = emu.ok("GET", "/clock")
    after = datetime.now(timezone.utc).replace(tzinfo=None)
    assert clock["scale"] == 1.0
    assert before <= datetime.fromisoformat(clock["now"]) <= after  # back to the real time
    assert emu.control("POST", "/clock", json={"scale": -1}).status_code == 422


def test_reset_restores_default_behaviour(emu):
    emu.ok("POST", "/schedule-behaviour", json={"outcome": "Failed"})
    emu.ok("POST", "/reset")
    assert emu.ok("GET", "/schedule-behaviour")["outcome"] == "Completed"
