"""
``MessagingPlatformScheduleSensor`` in each mode against the emulator's schedule lifecycle.

Poke mode runs the sensor as the task runner calls it (``sensor.execute(context)``). Reschedule mode and
deferrable run through real Airflow: the test DAG ``messaging_platform_test_wait_sensor`` under ``dag.test()``,
which honours reschedules and runs triggers in-process. Each schedule is parked in Pending and moved on (to
Completed, Failed, Aborted, or its action deleted) only after the sensor has read it waiting.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.sensors import MessagingPlatformScheduleSensor
from messaging_platform_provider.version_compat import (
    AirflowException,
    AirflowFailException,
    AirflowSensorTimeout,
    TaskDeferred,
)
from messaging_platform_provider.waiting.deadline import DEFERRAL_BACKSTOP
from tests.support.airflow_versions import needs_reschedule_under_dag_test
from tests.support.operator_context import task_context
from tests.support.platform import module_platform
from tests.support.waiting import (
    PARKED,
    SOON,
    Lifecycle,
    WhenPolled,
    gets,
    parked_by_default,
    run_dag,
    schedule_path,
)

DAG_ID = "messaging_platform_test_wait_sensor"
MODES = ("reschedule", "deferrable")
#: The modes as the dag.test() tests take them; reschedule needs a dag.test() that can reschedule twice.
MODE_PARAMS = [pytest.param("reschedule", marks=needs_reschedule_under_dag_test), "deferrable"]
CASES = ("completed", "failed", "aborted", "deleted", "timeout", "transient")


def sensor(action_id: Any, schedule_id: Any, **kwargs: Any) -> MessagingPlatformScheduleSensor:
    values: dict[str, Any] = {"poke_interval": 0.05, "timeout": 30, "deferrable": False}
    values.update(kwargs)
    return MessagingPlatformScheduleSensor(task_id="wait", action_id=action_id, schedule_id=schedule_id, **values)


def poke_run(op: MessagingPlatformScheduleSensor) -> Any:
    return op.execute(task_context(op))


# -- poke mode ------------------------------------------------------------------------------------


def test_poke_mode_succeeds_on_completed_and_returns_the_schedule(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    # Completed only once the sensor has read it Pending: however slow the machine, it pokes at least twice.
    finish = {"pending_seconds": 0, "processing_seconds": 0, "outcome": "Completed"}
    with WhenPolled(platform, {path: lambda: life.control.set_one_schedule_behaviour(schedule["Id"], **finish)}):
        result = poke_run(sensor(5001, schedule["Id"]))
    assert result["Id"] == schedule["Id"] and result["ActionId"] == 5001
    assert result["ProcessStatus"] == "Completed"
    reads = gets(platform, 5001, schedule["Id"])
    assert len(reads) >= 2  # Pending was read before Completed
    assert {r["status"] for r in reads} == {200}


def test_poke_mode_polls_through_the_connection_it_names(platform, monkeypatch, closed_port):
    """The sensor's own ``messaging_platform_conn_id``, not the default one (here a port where nobody listens)."""
    schedule = Lifecycle(platform).new_schedule(**SOON, outcome="Completed")
    monkeypatch.setenv("AIRFLOW_CONN_MP_OTHER", platform.connection_json())
    monkeypatch.setenv(
        "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT",
        platform.connection_json(extra={"base_url": f"http://127.0.0.1:{closed_port}/api/v2.1"}),
    )
    result = poke_run(sensor(5001, schedule["Id"], messaging_platform_conn_id="mp_other"))
    assert (result["Id"], result["ProcessStatus"]) == (schedule["Id"], "Completed")


@pytest.mark.parametrize("ending", ["Failed", "Aborted"])
def test_poke_mode_fails_without_retry_on_a_failure_status(platform, ending):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    move = (
        (lambda: life.control.abort_schedule(schedule["Id"]))
        if ending == "Aborted"
        else (lambda: life.control.set_one_schedule_behaviour(schedule["Id"], outcome="Failed", **SOON))
    )
    with WhenPolled(platform, {path: move}), pytest.raises(AirflowFailException, match=f"ended {ending}"):
        poke_run(sensor(5001, schedule["Id"]))
    assert life.status(5001, schedule["Id"]) == ending


def test_poke_mode_fails_at_once_when_the_action_is_deleted(platform):
    life = Lifecycle(platform)
    action_id, schedule_id = life.new_voice_call(**PARKED)
    path = schedule_path(action_id, schedule_id)
    move = {path: lambda: MessagingPlatformHook().delete_push_voice_call(action_id)}
    with WhenPolled(platform, move), pytest.raises(AirflowFailException, match="404"):
        poke_run(sensor(action_id, schedule_id, max_transient_errors=5))  # a retry would get the same 404
    statuses = [r["status"] for r in gets(platform, action_id, schedule_id)]
    assert statuses[0] == 200 and statuses[-1] == 404
    assert statuses.count(404) == 1  # the first 404 ended the wait: no more polling


def test_poke_mode_times_out_with_a_sensor_timeout(platform):
    life = Lifecycle(platform)
    # The run ends after a minute: a sensor that did not keep its timeout would succeed then, not time out.
    schedule = life.new_schedule(pending_seconds=60, processing_seconds=0.05)
    started = time.monotonic()
    with pytest.raises(AirflowSensorTimeout):
        poke_run(sensor(5001, schedule["Id"], timeout=0.4))
    assert time.monotonic() - started >= 0.4  # not before the timeout (a busy machine can only make it later)
    assert len(gets(platform, 5001, schedule["Id"])) >= 2


def test_poke_mode_survives_a_burst_of_transient_errors(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.control.add_fault(kind="status", status=503, count=3, method="GET", path=f"{path}$")
    moves = {path: lambda: platform.control.set_one_schedule_behaviour(schedule["Id"], outcome="Completed", **SOON)}
    with WhenPolled(platform, moves):
        result = poke_run(sensor(5001, schedule["Id"], max_transient_errors=5))
    assert result["ProcessStatus"] == "Completed"
    statuses = [r["status"] for r in gets(platform, 5001, schedule["Id"])]
    assert statuses[:3] == [503, 503, 503] and set(statuses[3:]) == {200}


def test_poke_mode_fails_after_more_transient_errors_than_allowed(platform):
    life = Lifecycle(platform)
    schedule = life.new_schedule(**PARKED)
    path = schedule_path(5001, schedule["Id"])
    platform.control.add_fault(kind="status", status=503, count=10, method="GET", path=f"{path}$")
    with pytest.raises(AirflowException, match="6 transient errors in a row") as raised:
        poke_run(sensor(5001, schedule["Id"], max_transient_errors=5))
    assert not isinstance(raised.value, AirflowFailException)
    assert [r["status"] for r in gets(platform, 5001, schedule["Id"])] == [503] * 6


# -- deferrable: one poke in the worker before deferring ---------------------------------------------------


def test_deferrable_returns_an_already_completed_schedule_without_deferring(platform):
    """
    A wait that has already ended ends in the worker: no trigger, so none that fires at its first poll, which
    Airflow's scheduler can fail as a "state mismatch" while the task resumes (apache/airflow#72716).
    """
    schedule = Lifecycle(platform).new_schedule(pending_seconds=0, processing_seconds=0, outcome="Completed")
    result = poke_run(sensor(5001, schedule["Id"], deferrable=True))  # a TaskDeferred would fail the test
    assert (result["Id"], result["ProcessStatus"]) == (schedule["Id"], "Completed")
    assert [r["status"] for r in gets(platform, 5001, schedule["Id"])] == [200]


def test_deferrable_fails_on_an_already_failed_schedule_without_deferring_or_retry(platform):
    schedule = Lifecycle(platform).new_schedule(pending_seconds=0, processing_seconds=0, outcome="Failed")
    with pytest.raises(AirflowFailException, match="ended Failed"):
        poke_run(sensor(5001, schedule["Id"], deferrable=True))


def test_deferrable_defers_after_its_poke_read_the_schedule_waiting(platform):
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    op = sensor(5001, schedule["Id"], deferrable=True)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(task_context(op))
    assert deferred.value.trigger.schedule_ids == [str(schedule["Id"])]
    assert [r["status"] for r in gets(platform, 5001, schedule["Id"])] == [200]  # the worker's one read


def test_deferrable_times_out_with_a_sensor_timeout_when_resumed_from_the_trigger_event(platform):
    """The deferred half of the deadline, resumed as the triggerer resumes it: ``next_kwargs`` plus ``event``."""
    schedule = Lifecycle(platform).new_schedule(**PARKED)
    op = sensor(5001, schedule["Id"], deferrable=True, timeout=0.4)
    context = task_context(op)
    before = datetime.now(timezone.utc)
    with pytest.raises(TaskDeferred) as deferred:
        op.execute(context)
    after = datetime.now(timezone.utc)
    timeout = deferred.value.timeout  # Airflow's: the backstop after the trigger's own deadline
    assert (
        timeout is not None
        and timedelta(0) + DEFERRAL_BACKSTOP <= timeout <= timedelta(seconds=0.4) + DEFERRAL_BACKSTOP
    )
    # An absolute instant, fixed when the wait started: the timeout from a moment during execute() (to the
    # microsecond the float arithmetic of a timestamp may round by).
    started = datetime.fromisoformat(deferred.value.trigger.deadline) - timedelta(seconds=0.4)
    assert before - timedelta(microseconds=2) <= started <= after + timedelta(microseconds=2)

    async def first() -> dict[str, Any]:
        events = deferred.value.trigger.run()
        try:
            payload: dict[str, Any] = (await anext(events)).payload
        finally:
            await events.aclose()
        return payload

    event = asyncio.run(first())
    assert event["outcome"] == "timeout" and event["try_number"] == 1
    with pytest.raises(AirflowSensorTimeout):
        op.resume_execution(deferred.value.method_name, {**(deferred.value.kwargs or {}), "event": event}, context)

    # Airflow 3.0 resumes the retry (try 2) with try 1's event (apache/airflow#56704): the sensor waits afresh.
    retry = {**context, "ti": SimpleNamespace(**{**vars(context["ti"]), "try_number": 2})}
    with pytest.raises(TaskDeferred) as again:
        op.resume_execution(deferred.value.method_name, {**(deferred.value.kwargs or {}), "event": event}, retry)
    assert again.value.trigger.try_number == 2 and again.value.trigger.deadline != deferred.value.trigger.deadline


# -- reschedule mode and deferrable, through dag.test() ----------------------------------------------------


@pytest.fixture(scope="module")
def sensor_dag(emulator_server, dag_runs) -> SimpleNamespace:
    """Run the sensor DAG once: one schedule per task, each moved on after its sensor read it waiting."""
    with module_platform(emulator_server) as platform:
        life = Lifecycle(platform)
        conf: dict[str, dict[str, int]] = {}
        with parked_by_default(life):
            for mode in MODES:
                for case in CASES:
                    if case == "deleted":
                        action_id, schedule_id = life.new_voice_call()
                    else:
                        action_id, schedule_id = 5001, life.new_schedule()["Id"]
                    conf[f"{mode}_{case}"] = {"action": action_id, "schedule": schedule_id}
        moves = {}
        control = platform.control
        for task_id, ids in conf.items():
            case, schedule_id = task_id.split("_", 1)[1], ids["schedule"]
            path = schedule_path(ids["action"], schedule_id)
            if case in ("completed", "transient"):
                moves[path] = lambda s=schedule_id: control.set_one_schedule_behaviour(s, outcome="Completed", **SOON)
            elif case == "failed":
                moves[path] = lambda s=schedule_id: control.set_one_schedule_behaviour(s, outcome="Failed", **SOON)
            elif case == "aborted":
                moves[path] = lambda s=schedule_id: control.abort_schedule(s)
            elif case == "deleted":
                moves[path] = lambda a=ids["action"]: MessagingPlatformHook().delete_push_voice_call(a)
            if case == "transient":
                platform.control.add_fault(kind="status", status=503, count=3, method="GET", path=f"{path}$")
        # A deferrable task reads once in the worker before it defers: its move waits for the trigger's first read.
        deferred_reads = {
            schedule_path(ids["action"], ids["schedule"]): 2
            for task_id, ids in conf.items()
            if task_id.startswith("deferrable_")
        }
        with WhenPolled(platform, moves, reads=deferred_reads) as mover:
            outcome = run_dag(DAG_ID, conf)
        records = platform.control.requests()

    def statuses(task_id: str) -> list[int]:
        return [r["status"] for r in records if r["method"] == "GET" and r["path"] == path(task_id)]

    def path(task_id: str) -> str:
        return schedule_path(conf[task_id]["action"], conf[task_id]["schedule"])

    return SimpleNamespace(outcome=outcome, conf=conf, mover=mover, statuses=statuses, path=path)


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_the_sensor_dag_ran_every_task(sensor_dag):
    assert set(sensor_dag.outcome.tries) == {f"{m}_{c}" for m in MODES for c in CASES}


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("mode", MODE_PARAMS)
def test_completed_succeeds_with_the_schedule_as_xcom(sensor_dag, mode):
    task_id = f"{mode}_completed"
    assert sensor_dag.outcome.tries[task_id] == ("success", 1)
    xcom = sensor_dag.outcome.xcoms[task_id]
    assert xcom["Id"] == sensor_dag.conf[task_id]["schedule"] and xcom["ProcessStatus"] == "Completed"
    assert sensor_dag.statuses(task_id)[0] == 200 and len(sensor_dag.statuses(task_id)) >= 2  # it waited


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("mode", MODE_PARAMS)
@pytest.mark.parametrize("case", ["failed", "aborted"])
def test_failed_and_aborted_fail_the_task_without_a_retry(sensor_dag, mode, case):
    task_id = f"{mode}_{case}"
    assert sensor_dag.outcome.tries[task_id] == ("failed", 1)  # retries=1, yet one try: AirflowFailException
    assert task_id not in sensor_dag.outcome.xcoms
    assert sensor_dag.path(task_id) in sensor_dag.mover.fired  # it was seen waiting before it ended
    assert set(sensor_dag.statuses(task_id)) == {200}  # every read answered: the status ended it, not an error


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("mode", MODE_PARAMS)
def test_a_deleted_action_fails_the_task_at_its_first_404_without_a_retry(sensor_dag, mode):
    task_id = f"{mode}_deleted"
    # retries=1, yet one try: a retry would read the same 404 (AirflowFailException).
    assert sensor_dag.outcome.tries[task_id] == ("failed", 1)
    statuses = sensor_dag.statuses(task_id)
    assert statuses[0] == 200 and statuses.count(404) == 1 and statuses[-1] == 404


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("mode", MODE_PARAMS)
def test_the_deadline_fails_the_task_with_a_sensor_timeout(sensor_dag, mode):
    task_id = f"{mode}_timeout"
    assert sensor_dag.outcome.tries[task_id] == ("failed", 1)  # AirflowSensorTimeout is not retried
    statuses = sensor_dag.statuses(task_id)
    assert len(statuses) >= 2 and set(statuses) == {200}  # it kept reading Pending until the deadline


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize("mode", MODE_PARAMS)
def test_a_burst_of_transient_errors_is_survived(sensor_dag, mode):
    task_id = f"{mode}_transient"
    assert sensor_dag.outcome.tries[task_id] == ("success", 1)
    assert sensor_dag.outcome.xcoms[task_id]["ProcessStatus"] == "Completed"
    statuses = sensor_dag.statuses(task_id)
    assert statuses[:3] == [503, 503, 503] and set(statuses[3:]) == {200}


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@needs_reschedule_under_dag_test
def test_reschedule_mode_gave_the_slot_back_between_pokes(sensor_dag):
    """Every reschedule task read Pending first, so it was rescheduled before it ended."""
    reschedules = sensor_dag.outcome.reschedules
    for case in CASES:
        assert reschedules[f"reschedule_{case}"] >= 1, case
        assert reschedules[f"deferrable_{case}"] == 0, case


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_deferrable_tasks_waited_in_the_trigger(sensor_dag):
    """While a deferrable task's schedule was read waiting, a pooled trigger client was open in this process."""
    for case in ("completed", "failed", "aborted", "deleted", "transient"):
        assert sensor_dag.mover.clients_open_at_fire[sensor_dag.path(f"deferrable_{case}")] == 1, case
