"""
The waiting decisions written out in full: each ``Step`` that ``decide`` and ``Watch`` give (outcome, message,
error count, status), the rules' own checks and defaults, and what the wait's result carries. Pure functions, so
every field is compared with a literal.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError
from messaging_platform_provider.waiting.decision import Outcome, Step, WaitRules, Watch, decide

RULES = WaitRules(max_transient_errors=2)


def without_retry_in(step: Step) -> Step:
    """The step with its jittered backoff left out (checked separately, against bounds)."""
    return dataclasses.replace(step, retry_in=None)


@pytest.mark.parametrize(
    ("poll", "expected"),
    [
        (
            {"schedule": {"ProcessStatus": "Completed"}},
            Step(Outcome.SUCCESS, "schedule ended Completed", status="Completed"),
        ),
        ({"schedule": {"ProcessStatus": "Failed"}}, Step(Outcome.FAILURE, "schedule ended Failed", status="Failed")),
        ({"schedule": {"ProcessStatus": "Pending"}}, Step(Outcome.WAIT, "schedule is Pending", status="Pending")),
        (
            {"schedule": {"ProcessStatus": "Queued"}},
            Step(Outcome.WAIT, "schedule is Queued", status="Queued", unknown_status=True),
        ),
        ({"error_status": 404}, Step(Outcome.FAILURE, "schedule: HTTP 404; waiting cannot help", fatal=True)),
        (
            {"error_status": 404, "error_text": "Schedule 7001 not found", "label": "schedule 7001"},
            Step(Outcome.FAILURE, "schedule 7001: Schedule 7001 not found; waiting cannot help", fatal=True),
        ),
        ({"error_status": None}, Step(Outcome.WAIT, "schedule: transient error 1: ", errors=1)),
        (
            {"error_status": 503, "error_text": "HTTP 503", "errors": 1},
            Step(Outcome.WAIT, "schedule: transient error 2: HTTP 503", errors=2),
        ),
        (
            {"error_status": 503, "error_text": "HTTP 503", "errors": 2},
            Step(Outcome.FAILURE, "schedule: 3 transient errors in a row (limit 2): HTTP 503", errors=3),
        ),
    ],
    ids=["completed", "failed", "pending", "unknown", "404", "404-text", "no-answer", "503-second", "503-too-many"],
)
def test_each_decision_in_full(poll: dict[str, Any], expected: Step):
    step = decide(RULES, **poll)
    assert without_retry_in(step) == expected
    if step.outcome is Outcome.WAIT and step.errors:
        ceiling = 2.0 ** (step.errors - 1)  # the backoff of the rules' policy: base 1 s, doubling, half jittered
        assert step.retry_in is not None and ceiling / 2 <= step.retry_in <= ceiling
    else:
        assert step.retry_in is None


def test_after_a_transient_error_the_next_poll_comes_after_the_backoff_not_the_poll_interval():
    watch = Watch(RULES, 5001, [7001])
    watch.record("7001", error_status=503, error_text="HTTP 503")
    assert 0.5 <= watch.pause(600) <= 1.0
    watch.record("7001", schedule={"ProcessStatus": "Pending"})  # an answer: back to the poll interval
    assert watch.pause(600) == 600


def test_an_error_reaches_the_verdict_with_its_text_and_the_schedule_named():
    watch = Watch(RULES, 5001, [7001])
    watch.record("7001", error_status=404, error_text="404 Not Found: Schedule")
    assert watch.verdict() == Step(
        Outcome.FAILURE, "schedule 7001 of action 5001: 404 Not Found: Schedule; waiting cannot help", fatal=True
    )
    no_text = Watch(RULES, 5001, [7002])
    no_text.record("7002", error_status=None)
    assert without_retry_in(no_text.steps["7002"]) == Step(
        Outcome.WAIT, "schedule 7002 of action 5001: transient error 1: ", errors=1
    )


@pytest.mark.parametrize(
    ("rules", "answers", "status"),
    [
        (WaitRules(), {"7001": "Completed", "7002": "Completed"}, "Completed"),
        (WaitRules(success=("Completed", "Processing")), {"7001": "Completed", "7002": "Processing"}, None),
    ],
    ids=["same-status", "mixed-statuses"],
)
def test_success_names_every_schedule_and_the_status_only_when_all_share_it(rules, answers, status):
    watch = Watch(rules, 5001, list(answers))
    for schedule_id, process_status in answers.items():
        watch.record(schedule_id, schedule={"Id": int(schedule_id), "ProcessStatus": process_status})
    message = "; ".join(f"schedule {s} of action 5001 ended {p}" for s, p in answers.items())
    assert watch.verdict() == Step(Outcome.SUCCESS, message, status=status)


def test_the_result_carries_the_action_its_status_and_every_schedules_last_answer():
    watch = Watch(WaitRules(), 5001, [7001])
    watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Failed"})
    final = watch.verdict()
    assert final is not None
    assert watch.payload(final) == {
        "outcome": "failure",
        "message": "schedule 7001 of action 5001 ended Failed",
        "schedules": {"7001": {"Id": 7001, "ProcessStatus": "Failed"}},
        "ended_status": "Failed",
        "fatal": False,
        "action_id": 5001,
    }


def test_the_rules_defaults_and_their_checks():
    assert WaitRules.build(None, None) == WaitRules(("Completed",), ("Failed", "Aborted"), 5)
    with pytest.raises(MessagingPlatformValidationError) as caught:
        WaitRules.build(["Completed", "Aborted"], None)
    assert str(caught.value) == "success_statuses: ['Aborted'] cannot also be failure statuses"
    with pytest.raises(MessagingPlatformValidationError, match="max_transient_errors: must be at least 0"):
        WaitRules.build(None, None, -1)
