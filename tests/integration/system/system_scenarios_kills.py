"""
Scenario 7 of the system test: a user marks two create-and-wait tasks failed, one deferred (its trigger's
``on_kill`` in the triggerer) and one waiting in the worker (the operator's ``on_kill``, after the supervisor
kills the task); each deletes the push voice call it created, and the call of a third task of the same run,
never killed, keeps going. Before the kill, the deferred task already links to its call in the web app.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

from messaging_platform_provider.client.client import MessagingPlatformClient
from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_processes import wait_for
from tests.integration.system.system_scenarios import failed_tasks, run_finished, scenario, schedules_pending
from tests.integration.system.system_user_setup import VOICE_CALL_PAGE

KILLED_DAG = "messaging_platform_system_killed_waits"
#: task id -> the number its call dials (the DAG's CALLS)
NUMBERS = {"deferred_call": "+15550400001", "running_call": "+15550400002", "kept_call": "+15550400003"}
KILLED = ("deferred_call", "running_call")


def platform_calls(d: Deployment) -> list[dict[str, Any]]:
    """Every push voice call action on the platform now."""
    seed = d.seed
    client = MessagingPlatformClient(
        seed["base_url"], seed["api_key"], seed["api_secret"], account_id=seed["account_id"]
    )
    try:
        return client.list_push_voice_calls()
    finally:
        client.close()


def calls_by_task(d: Deployment, run_marker: str) -> dict[str, dict[str, Any]]:
    """The run's push voice call actions on the platform now, by the task that made them (its number)."""
    found = {}
    for action in platform_calls(d):
        if run_marker not in str(action.get("Message") or ""):
            continue
        for task_id, number in NUMBERS.items():
            if number in (action.get("Targets") or []):
                found[task_id] = action
    return found


def task_states(d: Deployment, run_id: str) -> dict[str, str]:
    return {ti["task_id"]: ti["state"] for ti in d.rest.task_instances(KILLED_DAG, run_id)}


def schedule_reads(d: Deployment, action: dict[str, Any]) -> int:
    """How often the action's schedule was read: once by the worker before it deferred, then by the trigger."""
    assert d.control is not None
    path = f"/action/{action['Id']}/schedule/"
    return sum(1 for r in d.control.requests() if r["method"] == "GET" and path in r["path"])


@scenario("7 marking create-and-wait tasks failed stops their calls, deferred and in the worker, and no other")
def killed_tasks_stop_their_calls(d: Deployment) -> str:
    assert d.control is not None
    with schedules_pending(d, 600):  # every call's schedule stays Pending: the waits go on until killed
        d.rest.unpause(KILLED_DAG)
        run_id = d.rest.trigger(KILLED_DAG)

        def waiting() -> dict[str, dict[str, Any]] | None:
            states = task_states(d, run_id)
            assert "failed" not in states.values(), failed_tasks(d, KILLED_DAG, run_id)
            calls = calls_by_task(d, run_id)
            ready = states.get("deferred_call") == states.get("kept_call") == "deferred"
            ready = ready and states.get("running_call") == "running" and len(calls) == 3
            # A trigger row deleted before a triggerer runs it gets no on_kill: kill only once each trigger polls.
            polling = ready and all(schedule_reads(d, calls[t]) >= 2 for t in ("deferred_call", "kept_call"))
            return calls if polling else None

        calls = wait_for("two triggers polling, one wait running, three calls made", waiting, timeout=180, interval=1)
        deferred = calls["deferred_call"]
        path = f"/api/v2/dags/{KILLED_DAG}/dagRuns/{quote(run_id, safe='')}/taskInstances/deferred_call/links"
        link = d.rest.get(path)["extra_links"].get("Push voice call in web app")
        assert link == VOICE_CALL_PAGE.format(account_id=d.seed["account_id"], action_id=deferred["Id"]), link
        killed_at = time.monotonic()
        for task_id in KILLED:
            path = f"/api/v2/dags/{KILLED_DAG}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}"
            d.rest.patch(path, {"new_state": "failed"})

        took: dict[str, float] = {}  # task id -> seconds from the kill until its call was gone

        def both_stopped() -> bool:
            left = calls_by_task(d, run_id)
            for task_id in KILLED:
                if task_id not in left and task_id not in took:
                    took[task_id] = time.monotonic() - killed_at
            return len(took) == len(KILLED)

        wait_for("both killed tasks to delete their calls", both_stopped, timeout=120, interval=1)
        assert "kept_call" in calls_by_task(d, run_id), "the call of the task nobody killed was stopped"
        kept_schedule = calls["kept_call"]["Schedules"][0]["Id"]
        d.control.set_one_schedule_behaviour(kept_schedule, pending_seconds=0)  # the third call runs and ends
        run = wait_for("the run to finish", lambda: run_finished(d, KILLED_DAG, run_id), timeout=180)
        states = task_states(d, run_id)
        assert states == {"deferred_call": "failed", "running_call": "failed", "kept_call": "success"}, states
    return (
        f"deferred task's call deleted {took['deferred_call']:.0f} s after the kill, running task's "
        f"{took['running_call']:.0f} s; the third call kept and ended; run {run['state']}; the deferred task "
        "linked to its call while it waited"
    )
