"""
A wait on an action with several schedules ends in success only when every schedule has succeeded: one schedule
Completed while another is still Pending keeps the wait going, and the other one failing afterwards fails it.
Checked on both loops, the worker's (``wait_until_done``) and the triggerer's, against a voice call with two
schedules on the emulator.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
from messaging_platform_provider.waiting.deadline import deadline_after
from messaging_platform_provider.waiting.decision import WaitRules, Watch
from messaging_platform_provider.waiting.sync_loop import wait_until_done
from tests.support.waiting import ONE_TIME, PARKED, Lifecycle, first_event, gets

NOW = {"pending_seconds": 0, "processing_seconds": 0}
log = logging.getLogger(__name__)


def two_schedule_call(life: Lifecycle, first: dict[str, Any], second: dict[str, Any]) -> tuple[int, int, int]:
    """A voice call with two schedules behaving as given: (action id, first schedule id, second schedule id)."""
    action = MessagingPlatformHook().create_push_voice_call(
        ["+15125550100"], targets=["+15555550123"], message="Two schedules.", schedules=[ONE_TIME, ONE_TIME]
    )
    first_id, second_id = (s["Id"] for s in action["Schedules"])
    life.control.set_one_schedule_behaviour(first_id, **first)
    life.control.set_one_schedule_behaviour(second_id, **second)
    return action["Id"], first_id, second_id


def statuses(result: dict[str, Any]) -> dict[str, str]:
    return {k: v["ProcessStatus"] for k, v in result["schedules"].items()}


def sync_wait(action_id: int, schedule_ids: list[int], deadline: str, sleep: Any = None) -> dict[str, Any]:
    watch = Watch(WaitRules(), action_id, schedule_ids)
    extra = {"sleep": sleep} if sleep is not None else {}
    step = wait_until_done(
        MessagingPlatformHook(), watch, account_id=None, poll_interval=0.05, deadline=deadline, log=log, **extra
    )
    return watch.payload(step)


def trigger(action_id: int, schedule_ids: list[int], deadline: str) -> MessagingPlatformScheduleTrigger:
    return MessagingPlatformScheduleTrigger(
        conn_id="messaging_platform_default",
        action_id=action_id,
        schedule_ids=schedule_ids,
        poll_interval=0.05,
        deadline=deadline,
    )


@pytest.mark.parametrize("path", ["worker", "trigger"])
def test_one_completed_and_one_pending_keeps_waiting(platform, path):
    life = Lifecycle(platform)
    action_id, done, waiting = two_schedule_call(life, {**NOW, "outcome": "Completed"}, PARKED)
    deadline = deadline_after(-1)  # one poll of each, then the deadline speaks
    if path == "worker":
        result = sync_wait(action_id, [done, waiting], deadline)
    else:
        result = asyncio.run(first_event(trigger(action_id, [done, waiting], deadline)))
    assert result["outcome"] == "timeout"
    assert statuses(result) == {str(done): "Completed", str(waiting): "Pending"}


@pytest.mark.parametrize("path", ["worker", "trigger"])
def test_one_completed_and_one_failed_fails(platform, path):
    life = Lifecycle(platform)
    action_id, done, failed = two_schedule_call(life, {**NOW, "outcome": "Completed"}, {**NOW, "outcome": "Failed"})
    deadline = deadline_after(30)
    if path == "worker":
        result = sync_wait(action_id, [done, failed], deadline)
    else:
        result = asyncio.run(first_event(trigger(action_id, [done, failed], deadline)))
    assert result["outcome"] == "failure"
    assert result["ended_status"] == "Failed"
    assert result["message"] == f"schedule {failed} of action {action_id} ended Failed"


def test_the_worker_keeps_waiting_after_one_completes_and_fails_when_the_other_then_fails(platform):
    life = Lifecycle(platform)
    action_id, done, later = two_schedule_call(life, {**NOW, "outcome": "Completed"}, PARKED)
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        """Between the first and second round, the second schedule fails."""
        pauses.append(seconds)
        if len(pauses) == 1:
            life.control.set_one_schedule_behaviour(later, **NOW, outcome="Failed")

    result = sync_wait(action_id, [done, later], deadline_after(30), sleep=sleep)
    assert result["outcome"] == "failure" and result["ended_status"] == "Failed"
    assert statuses(result) == {str(done): "Completed", str(later): "Failed"}
    assert len(pauses) == 1
    assert len(gets(platform, action_id, done)) == 1  # a schedule that succeeded is not read again
    assert len(gets(platform, action_id, later)) == 2


def test_the_trigger_keeps_waiting_after_one_completes_until_the_other_ends(platform):
    life = Lifecycle(platform)
    action_id, done, later = two_schedule_call(life, {**NOW, "outcome": "Completed"}, PARKED)

    async def scenario() -> dict[str, Any]:
        waiting = asyncio.ensure_future(first_event(trigger(action_id, [done, later], deadline_after(30))))
        # Let the trigger read the second schedule Pending twice with the first one already Completed.
        for _ in range(3000):
            if len(await asyncio.to_thread(gets, platform, action_id, later)) >= 2 or waiting.done():
                break
            await asyncio.sleep(0.01)
        assert not waiting.done(), waiting.result()
        await asyncio.to_thread(life.control.set_one_schedule_behaviour, later, **NOW, outcome="Completed")
        return await asyncio.wait_for(waiting, 30)

    result = asyncio.run(scenario())
    assert result["outcome"] == "success"
    assert statuses(result) == {str(done): "Completed", str(later): "Completed"}
    assert len(gets(platform, action_id, done)) == 1
