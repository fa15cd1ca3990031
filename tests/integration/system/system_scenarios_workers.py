"""
Scenario 8 of the system test, for the CeleryExecutor deployment only: the machine of the Celery worker running a
push voice call create dies (``kill -9`` of the worker and everything under it) while the platform holds the
create's answer. The platform carries the create out; the scheduler finds the try's heartbeat gone
(``[scheduler] task_instance_heartbeat_timeout``, ``system_celery.HEARTBEAT_TIMEOUT``), and the task's next try,
on whichever worker takes it, finds that call and makes none: one call on the platform.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import psutil

from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_processes import Component, wait_for
from tests.integration.system.system_scenarios import failed_tasks, run_finished, scenario
from tests.integration.system.system_scenarios_kills import platform_calls
from tests.integration.system.system_scenarios_platform import last_seq, records_since

WORKER_KILLED_DAG = "messaging_platform_system_worker_killed_create"
NUMBER = "+15550800001"  # the DAG's NUMBER
VOICE_CALL_CREATE = re.compile(r"/account/\d+/action-pushvoicecall$")
#: How long the platform holds the create before carrying it out: the kill comes well within it, and the platform
#: has carried it out before the scheduler gives up on the killed try (``system_celery.HEARTBEAT_TIMEOUT``).
HELD_SECONDS = 45.0


def creates_of_the_run(d: Deployment, since: int) -> list[dict[str, Any]]:
    """The recorded voice call creates for the DAG's number since ``since`` (a held one has no status yet)."""
    return [
        record
        for record in records_since(d, since)
        if record["method"] == "POST"
        and VOICE_CALL_CREATE.search(record["path"])
        and NUMBER in ((record.get("json") or {}).get("Targets") or [])
    ]


def worker_running(d: Deployment, pid: int) -> str | None:
    """The name of the worker component whose process tree holds ``pid``."""
    try:
        ancestors = {parent.pid for parent in psutil.Process(pid).parents()}
    except psutil.NoSuchProcess:
        return None
    workers: dict[str, Component] = {n: c for n, c in d.components.items() if n.startswith("worker-")}
    return next((name for name, worker in workers.items() if worker.pid in ancestors), None)


def the_task(d: Deployment, run_id: str) -> dict[str, Any]:
    return next(ti for ti in d.rest.task_instances(WORKER_KILLED_DAG, run_id) if ti["task_id"] == "create_call")


@scenario("8 kill -9 of the Celery worker during a create: the task's retry makes no duplicate")
def worker_killed_during_create(d: Deployment) -> str:
    assert d.control is not None and d.celery is not None
    d.rest.unpause(WORKER_KILLED_DAG)
    since = last_seq(d)
    victim: str | None = None
    d.control.add_fault("delay", delay=HELD_SECONDS, method="POST", path="/action-pushvoicecall$", count=1)
    try:
        run_id = d.rest.trigger(WORKER_KILLED_DAG)
        held = wait_for(
            "the create held by the platform",
            lambda: next((r for r in creates_of_the_run(d, since) if r["status"] is None), None),
            timeout=180,
            interval=0.2,
        )
        task = the_task(d, run_id)
        assert task["state"] == "running" and task["pid"], task
        victim = worker_running(d, int(task["pid"]))
        assert victim is not None, f"no worker runs the task's process {task['pid']}"
        d.components[victim].crash()
        killed_at = time.monotonic()
        answered = next(r["status"] for r in creates_of_the_run(d, since) if r["seq"] == held["seq"])
        assert answered is None, f"the platform answered the create ({answered}) before the worker was killed"
        d.control.clear_faults()
        run = wait_for("the run to finish", lambda: run_finished(d, WORKER_KILLED_DAG, run_id), timeout=420, interval=2)
        recovered = time.monotonic() - killed_at
        assert run["state"] == "success", failed_tasks(d, WORKER_KILLED_DAG, run_id)
    finally:
        d.control.clear_faults()
        if victim is not None:
            d.start_component(victim)  # the later scenarios run on both workers again
            wait_for("both Celery workers", d.celery.ready, timeout=120)
    task = the_task(d, run_id)
    assert task["try_number"] >= 2, task
    calls = [c for c in platform_calls(d) if run_id in str(c.get("Message") or "") and NUMBER in c.get("Targets", [])]
    creates = creates_of_the_run(d, since)
    assert len(calls) == 1, f"{len(calls)} calls on the platform for the run; creates sent: {len(creates)}"
    assert len(creates) == 1, [json.dumps({k: r[k] for k in ("seq", "status", "fault")}) for r in creates]
    return (
        f"{victim} killed while the platform held the create ({HELD_SECONDS:.0f} s); the scheduler retried the task "
        f"(try {task['try_number']}, on {worker_logging(d, run_id, task['try_number'])}), which found the call and "
        f"sent no create; run success {recovered:.0f} s after the kill; 1 call on the platform"
    )


def worker_logging(d: Deployment, run_id: str, try_number: int) -> str:
    """The worker whose AIRFLOW_HOME holds the log of the task's try ``try_number``."""
    assert d.celery is not None
    pattern = f"logs/dag_id={WORKER_KILLED_DAG}/run_id={run_id}/task_id=create_call/attempt={try_number}.log"
    found = [home.name for home in d.celery.worker_homes if (home / pattern).is_file()]
    return " and ".join(found) or "no worker's log"
