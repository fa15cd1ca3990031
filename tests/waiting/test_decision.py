"""
One decision for every waiting path: the sync sensor's poke and the trigger's poll, row by row over every
ProcessStatus and every error class, against the emulator; and the shared ``Watch`` for what the emulator cannot
produce (a ProcessStatus outside the five it knows).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from airflow.sdk import PokeReturnValue

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor
from messaging_platform_provider.triggers.schedule import MessagingPlatformScheduleTrigger
from messaging_platform_provider.version_compat import AirflowException, AirflowFailException
from messaging_platform_provider.waiting.deadline import deadline_after
from messaging_platform_provider.waiting.decision import ErrorClass, Outcome, WaitRules, Watch, classify_error, decide
from messaging_platform_provider.waiting.defaults import PROCESS_STATUSES
from messaging_platform_provider.waiting.outcome import conclude
from messaging_platform_provider.waiting.sync_loop import poll_round
from tests.support.waiting import PARKED, Lifecycle, gets

#: how the task ends: NO_RETRY fails it without retries (AirflowFailException), RETRIED as an ordinary failure
SUCCESS, NO_RETRY, RETRIED, WAIT = "success", "fails without retries", "fails, retried", "wait"

#: error rows: the emulator fault that produces each
ERRORS: dict[str, dict[str, Any]] = {
    **{str(code): {"kind": "status", "status": code} for code in (400, 401, 403, 404, 500, 502, 503, 504)},
    "429": {"kind": "retry_after", "retry_after": 0},
    "dropped connection": {"kind": "drop"},
}
FATAL = {"400", "401", "403", "404"}
LIMITS = {"max_transient_errors=0": 0, "max_transient_errors=100": 100}


def expected(row: str, limit: int) -> str:
    if row == "Completed":
        return SUCCESS
    if row in ("Failed", "Aborted"):
        return NO_RETRY  # a retry would find the same ended run
    if row in ("Pending", "Processing"):
        return WAIT
    if row in FATAL or row == "deleted action":
        return NO_RETRY  # a retry would get the same answer
    return RETRIED if limit == 0 else WAIT  # transient: the first one is already over a limit of 0


def task_ending(conclude_it: Any) -> tuple[str, Any]:
    """How Airflow ends the task when the verdict is concluded (a poke, or ``conclude`` on the trigger's event)."""
    try:
        result = conclude_it()
    except AirflowFailException:
        return NO_RETRY, None
    except AirflowException:
        return RETRIED, None
    return SUCCESS, result


def sensor_verdict(op: MessagingPlatformScheduleSensor) -> tuple[str, Any]:
    """One poke, read the way Airflow reads it."""
    ending, result = task_ending(lambda: op.poke({}))
    if ending != SUCCESS:
        return ending, None
    if isinstance(result, PokeReturnValue) and result.is_done:
        return SUCCESS, result.xcom_value
    assert result is False, result
    return WAIT, None


def trigger_verdict(t: MessagingPlatformScheduleTrigger) -> tuple[str, Any]:
    """One poll (the deadline has passed), read the way ``waiting.outcome.conclude`` reads the event."""

    async def first() -> dict[str, Any]:
        events = t.run()
        try:
            payload: dict[str, Any] = (await anext(events)).payload
        finally:
            await events.aclose()
        return payload

    event = asyncio.run(first())
    if event["outcome"] == "timeout":
        return WAIT, None  # it would have kept waiting
    ending, schedules = task_ending(lambda: conclude(event, sensor=True))
    return ending, schedules and schedules[t.schedule_ids[0]]


def test_the_trigger_and_the_sync_sensor_give_the_same_outcome_for_every_status_and_error_class(platform):
    life = Lifecycle(platform)
    schedules: dict[str, tuple[int, int]] = {}  # row -> (action id, schedule id)
    for status in ("Completed", "Failed"):
        schedules[status] = (5001, life.new_schedule(pending_seconds=0, processing_seconds=0, outcome=status)["Id"])
    aborted = life.new_schedule(**PARKED)["Id"]
    life.control.abort_schedule(aborted)
    schedules["Aborted"] = (5001, aborted)
    schedules["Pending"] = (5001, life.new_schedule(**PARKED)["Id"])
    schedules["Processing"] = (5001, life.new_schedule(pending_seconds=0, processing_seconds=3600)["Id"])
    action_id, schedule_id = life.new_voice_call(**PARKED)
    MessagingPlatformHook().delete_push_voice_call(action_id)
    schedules["deleted action"] = (action_id, schedule_id)
    parked = life.new_schedule(**PARKED)["Id"]  # error rows: a waiting schedule, the fault decides
    assert [life.status(5001, schedules[s][1]) for s in PROCESS_STATUSES] == list(PROCESS_STATUSES)

    rows = [*PROCESS_STATUSES, "deleted action", *ERRORS]
    observed: dict[tuple[str, str], tuple[str, str, int, int]] = {}
    wanted: dict[tuple[str, str], tuple[str, str, int, int]] = {}
    for limit_name, limit in LIMITS.items():
        for row in rows:
            action, schedule = schedules.get(row, (5001, parked))
            reads = len(gets(platform, action, schedule))
            if row in ERRORS:
                platform.control.add_fault(**ERRORS[row], count=1, method="GET", path=f"/schedule/{schedule}$")
            op = MessagingPlatformScheduleSensor(
                task_id="row", action_id=action, schedule_id=schedule, max_transient_errors=limit
            )
            by_sensor, sensor_xcom = sensor_verdict(op)
            sensor_reads = len(gets(platform, action, schedule)) - reads
            if row in ERRORS:
                platform.control.add_fault(**ERRORS[row], count=1, method="GET", path=f"/schedule/{schedule}$")
            t = MessagingPlatformScheduleTrigger(
                conn_id="messaging_platform_default",
                action_id=action,
                schedule_ids=[schedule],
                max_transient_errors=limit,
                poll_interval=0.05,
                deadline=deadline_after(-1),  # polls once, then reports timeout if it would keep waiting
            )
            by_trigger, trigger_xcom = trigger_verdict(t)
            trigger_reads = len(gets(platform, action, schedule)) - reads - sensor_reads
            observed[row, limit_name] = (by_sensor, by_trigger, sensor_reads, trigger_reads)
            wanted[row, limit_name] = (expected(row, limit), expected(row, limit), 1, 1)
            if by_sensor == by_trigger == SUCCESS:
                assert sensor_xcom == trigger_xcom and sensor_xcom["Id"] == schedule, row  # the same schedule
    assert observed == wanted


# -- a ProcessStatus outside the five: the emulator cannot produce one, so Watch and decide are run directly -------


class _Log:
    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warning(self, event: Any, *args: Any, **kw: Any) -> None:
        self.warnings.append(str(event) % args if args else str(event))


def test_an_unknown_status_keeps_waiting_and_is_logged_once_per_schedule():
    watch = Watch(WaitRules(), 5001, [7001, 7002])
    first = watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Queued"})
    assert first is not None and "unknown ProcessStatus 'Queued'" in first and "7001" in first
    assert watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Queued"}) is None  # not again
    assert watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Rerouting"}) is None  # once per schedule
    assert watch.steps["7001"].outcome is Outcome.WAIT and watch.steps["7001"].unknown_status
    other = watch.record("7002", schedule={"Id": 7002, "ProcessStatus": "Queued"})
    assert other is not None and "7002" in other
    assert watch.verdict() is None  # still waiting on both
    watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Completed"})
    watch.record("7002", schedule={"Id": 7002, "ProcessStatus": "Completed"})
    final = watch.verdict()
    assert final is not None and final.outcome is Outcome.SUCCESS
    assert watch.payload(final)["schedules"]["7001"]["ProcessStatus"] == "Completed"


def test_the_sensors_poll_round_logs_an_unknown_status_once_across_pokes():
    """``poll_round`` is what each poke runs; the API is a stand-in here only because no emulator answer has an
    unknown ProcessStatus."""

    class UnknownThenCompleted:
        def __init__(self) -> None:
            self.answers = ["Queued", "Queued", "Queued", "Completed"]

        def get_schedule(self, action_id: Any, schedule_id: Any, *, account_id: Any = None) -> dict[str, Any]:
            return {"Id": int(schedule_id), "ActionId": int(action_id), "ProcessStatus": self.answers.pop(0)}

    api, log = UnknownThenCompleted(), _Log()
    watch = Watch(WaitRules(), 5001, [7001])
    verdicts = [poll_round(api, watch, None, log) for _ in range(4)]  # type: ignore[arg-type]
    assert verdicts[:3] == [None, None, None]
    assert verdicts[3] is not None and verdicts[3].outcome is Outcome.SUCCESS
    assert len(log.warnings) == 1 and "'Queued'" in log.warnings[0]


@pytest.mark.parametrize(
    ("status", "klass"),
    [(None, ErrorClass.TRANSIENT), (408, ErrorClass.TRANSIENT), (429, ErrorClass.TRANSIENT)]
    + [
        (500, ErrorClass.TRANSIENT),
        (599, ErrorClass.TRANSIENT),
        (400, ErrorClass.FATAL),
        (401, ErrorClass.FATAL),
        (403, ErrorClass.FATAL),
    ]
    + [(404, ErrorClass.FATAL), (409, ErrorClass.FATAL), (422, ErrorClass.FATAL)],
)
def test_error_classes(status, klass):
    assert classify_error(status) is klass


def test_transient_errors_are_counted_in_a_row_and_reset_by_an_answer():
    rules = WaitRules(max_transient_errors=2)
    watch = Watch(rules, 5001, [7001])
    for count in (1, 2):
        watch.record("7001", error_status=503, error_text="busy")
        assert watch.steps["7001"].outcome is Outcome.WAIT and watch.errors["7001"] == count
        assert watch.steps["7001"].retry_in is not None
    watch.record("7001", schedule={"Id": 7001, "ProcessStatus": "Pending"})
    assert watch.errors["7001"] == 0  # an answer ends the run of errors
    for _ in range(3):
        watch.record("7001", error_status=None, error_text="dropped")
    final = watch.verdict()
    assert final is not None and final.outcome is Outcome.FAILURE and watch.payload(final)["ended_status"] is None
    assert "3 transient errors in a row (limit 2)" in final.message


def test_decide_on_custom_statuses():
    rules = WaitRules.build(success=["Processing"], failure=["Aborted"])
    assert decide(rules, schedule={"ProcessStatus": "Processing"}).outcome is Outcome.SUCCESS
    assert decide(rules, schedule={"ProcessStatus": "Failed"}).outcome is Outcome.WAIT  # not a failure here
    assert decide(rules, schedule={"ProcessStatus": "Aborted"}).status == "Aborted"
