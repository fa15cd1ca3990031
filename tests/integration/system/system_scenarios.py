"""
The system test's scenarios, run against one deployment in the order they are defined here. A scenario is a
function taking the ``Deployment`` and returning its figures (one short line for the table); it fails by raising.
``@scenario("N title")`` is its whole registration (N: its number, also the pytest id). Scenarios 9, 10 and 11
(``system_scenarios_logs.py``) look at everything that ran before them: keep them last. A scenario that changes
the emulator's behaviour (faults, schedule behaviour) puts it back in a ``finally``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tests.integration.system.system_deployment import EXAMPLE_DAG_IDS, Deployment
from tests.integration.system.system_processes import wait_for
from tests.integration.system.system_user_setup import WELCOME_LONG_CODE
from tests.support.airflow_api_harness import wire_secrets

KEYWORD_DAG = "messaging_platform_keyword_callbacks"
LAUNCH_DAG = "messaging_platform_campaign_launch"
KEYWORD_CONSUMER = "messaging_platform_keyword_callbacks"
VOICE_DAG = "messaging_platform_voice_call_push"
FINISHED = {"success", "failed"}
CALL_TO = "+15550100000"  # the emulator's first seeded contact


@dataclass(frozen=True)
class Scenario:
    name: str
    run: Callable[[Deployment], str]


SCENARIOS: list[Scenario] = []


def in_order() -> list[Scenario]:
    """Every registered scenario (import ``system_scenarios_platform`` too), by the number its name starts with."""
    return sorted(SCENARIOS, key=lambda s: int(s.name.split(" ", 1)[0]))


def scenario(name: str) -> Callable[[Callable[[Deployment], str]], Callable[[Deployment], str]]:
    def register(func: Callable[[Deployment], str]) -> Callable[[Deployment], str]:
        SCENARIOS.append(Scenario(name, func))
        return func

    return register


# -- helpers ---------------------------------------------------------------------------------------------------


def example_params(d: Deployment) -> dict[str, dict[str, Any]]:
    """Each example DAG's params as scripts/demo.py passes them; the callback URL is the deployment's receiver (the
    API server's, or the load balancer in front of the CeleryExecutor deployment's two)."""
    seed = d.seed
    return {
        "messaging_platform_campaign_launch": {
            "channel": seed["channel_id"],
            "keyword_id": seed["keyword_id"],
            "callback_url": d.receiver_url,
        },
        "messaging_platform_contacts_export": {"destination": (d.run_dir / "exports").as_uri()},
        "messaging_platform_hook_walkthrough": {"from_long_code": WELCOME_LONG_CODE, "call_to": CALL_TO},
        "messaging_platform_schedule_reconcile": {"action_id": seed["action_id"]},
        VOICE_DAG: {"contact_list_id": seed["contact_list_id"], "from_long_code": WELCOME_LONG_CODE},
    }


def run_finished(d: Deployment, dag_id: str, run_id: str) -> dict[str, Any] | None:
    run = d.rest.dag_run(dag_id, run_id)
    return run if run["state"] in FINISHED else None


def failed_tasks(d: Deployment, dag_id: str, run_id: str) -> str:
    """The task instances of a run that did not succeed, with the first error their log shows (secrets masked)."""
    notes = []
    for ti in d.rest.task_instances(dag_id, run_id):
        if ti["state"] not in ("success", "skipped"):
            notes.append(f"{ti['task_id']}={ti['state']}{first_error(d, dag_id, run_id, ti['task_id'])}")
    return ", ".join(notes) or "no failed task"


def first_error(d: Deployment, dag_id: str, run_id: str, task_id: str) -> str:
    folders = [home / "logs" / f"dag_id={dag_id}" / f"run_id={run_id}" / f"task_id={task_id}" for home in d.homes]
    for log in sorted(log for folder in folders for log in folder.rglob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            if '"level":"error"' in line.replace(" ", "") or "Error:" in line:
                return f" [{redact(d, error_summary(line))[:240]}]"
    return ""


def error_summary(line: str) -> str:
    """A JSON log line's event and exception (type and message); any other line as it is."""
    try:
        record = json.loads(line)
    except ValueError:
        return line
    if not isinstance(record, dict):
        return line
    details = [e for e in record.get("error_detail") or [] if isinstance(e, dict)]
    exception = f": {details[0].get('exc_type')}: {details[0].get('exc_value')}" if details else ""
    return f"{record.get('event')}{exception}"


def retry_cause(d: Deployment, dag_id: str, run_id: str, task_id: str) -> str:
    """
    Why a task needed another try: the first error its logs show, or the scheduler's audit record when it failed
    the task itself (a "state mismatch", as apache/airflow#72716 makes of a deferred task that resumed quickly).
    """
    cause = first_error(d, dag_id, run_id, task_id)
    records = d.rest.get("/api/v2/eventLogs", dag_id=dag_id, run_id=run_id, task_id=task_id, event="state mismatch")
    for record in records.get("event_logs", [])[:1]:
        cause += f" [scheduler: state mismatch: {redact(d, str(record.get('extra')))[:200]}]"
    return cause


def redact(d: Deployment, text: str) -> str:
    for secret in known_secrets(d):
        text = text.replace(secret, "***")
    return text


def known_secrets(d: Deployment) -> set[str]:
    """The seeded API secret, the callback token, and every secret that went over the wire (rotations' keys)."""
    found = {d.seed.get("api_secret", ""), d.seed.get("callback_token", ""), *d.extra_secrets}
    if d.control is not None:
        try:
            found |= wire_secrets(d.control)
        except Exception:  # noqa: BLE001 - an emulator that is gone leaves the seeded secrets
            pass
    return {s for s in found if s}


def wait_runs(d: Deployment, runs: dict[str, str], timeout: float) -> dict[str, dict[str, Any]]:
    """Wait until every run (dag id -> run id) has finished; their final records by dag id."""
    return wait_runs_by_key(d, {dag_id: (dag_id, run_id) for dag_id, run_id in runs.items()}, timeout)


def wait_runs_by_key(d: Deployment, runs: dict[str, tuple[str, str]], timeout: float) -> dict[str, dict[str, Any]]:
    """Wait until every run (key -> (dag id, run id)) has finished; their final records by key."""
    done: dict[str, dict[str, Any]] = {}

    def all_done() -> bool:
        for key, (dag_id, run_id) in runs.items():
            if key not in done and (run := run_finished(d, dag_id, run_id)) is not None:
                done[key] = run
        return len(done) == len(runs)

    wait_for(f"runs of {sorted(set(runs) - set(done))}", all_done, timeout=timeout, interval=2)
    return done


def seconds(run: dict[str, Any]) -> float:
    start, end = run.get("start_date"), run.get("end_date")
    if not start or not end:
        return 0.0
    return (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()


# -- scenarios -------------------------------------------------------------------------------------------------


@scenario("1 every example DAG succeeds (REST trigger; keyword DAG by a texted keyword)")
def every_example_succeeds(d: Deployment) -> str:
    params = example_params(d)
    for dag_id in EXAMPLE_DAG_IDS:
        d.rest.unpause(dag_id)
    # Airflow registers an asset's watcher triggers only when it parses the file of an unpaused DAG using it:
    # have the keyword DAG's file parsed now rather than at the next periodic parse.
    d.rest.reparse(KEYWORD_DAG)
    manual = [dag_id for dag_id in EXAMPLE_DAG_IDS if dag_id != KEYWORD_DAG]
    runs = {dag_id: d.rest.trigger(dag_id, params.get(dag_id, {})) for dag_id in manual}
    started = time.monotonic()

    # The keyword DAG: once the launch registered the receiver as the Keyword callback record and the watcher's
    # consumer exists (it starts at the newest callback), text the keyword through the emulator.
    launch = wait_runs(d, {LAUNCH_DAG: runs[LAUNCH_DAG]}, timeout=300)[LAUNCH_DAG]
    assert launch["state"] == "success", "campaign launch: " + failed_tasks(d, LAUNCH_DAG, runs[LAUNCH_DAG])
    wait_for(
        "the keyword watcher's consumer in the callback store",
        lambda: d.store_rows("SELECT position FROM mp_callback_consumer WHERE name = :n", n=KEYWORD_CONSUMER),
        timeout=120,
    )
    watcher_after = time.monotonic() - started
    assert d.control is not None
    event = d.control.keyword_event("JOIN", wait=True)
    states = [delivery.get("state") for delivery in event.get("deliveries", [])]
    assert states == ["delivered"], f"keyword callback deliveries: {states}"
    asset_run = wait_for(
        "an asset-triggered run of the keyword DAG",
        lambda: next((r for r in d.rest.dag_runs(KEYWORD_DAG) if r["run_type"] == "asset_triggered"), None),
        timeout=120,
        interval=1,
    )
    runs[KEYWORD_DAG] = asset_run["dag_run_id"]

    finished = wait_runs(d, runs, timeout=420 - (time.monotonic() - started))
    failed = {k: failed_tasks(d, k, runs[k]) for k, r in finished.items() if r["state"] != "success"}
    welcome = [ti for ti in d.rest.task_instances(KEYWORD_DAG, runs[KEYWORD_DAG]) if ti["task_id"] == "welcome_call"]
    # Unpausing a time-scheduled example (catchup=False) also makes a run of its latest interval: they must
    # succeed too, and finish before the next scenario.
    scheduled = {f"{r['dag_id']} {r['dag_run_id']}": (r["dag_id"], r["dag_run_id"]) for r in scheduled_runs(d)}
    scheduled_done = wait_runs_by_key(d, scheduled, timeout=420 - (time.monotonic() - started))
    failed |= {k: failed_tasks(d, *scheduled[k]) for k, r in scheduled_done.items() if r["state"] != "success"}
    slowest = max(finished, key=lambda k: seconds(finished[k]))
    figures = (
        f"{len(finished) - len(failed)}/{len(finished)} triggered runs success; watcher up after {watcher_after:.0f} s;"
        f" keyword run: {len(welcome)} welcome call(s); "
        f"slowest {slowest.removeprefix('messaging_platform_')} {seconds(finished[slowest]):.0f} s; "
        f"runs the unpause scheduled: {len(scheduled)}, "
        f"{sum(r['state'] == 'success' for r in scheduled_done.values())} success"
    )
    assert not failed, f"{figures}; failed: " + "; ".join(f"{k}: {v}" for k, v in failed.items())
    assert [ti["state"] for ti in welcome] == ["success"], f"welcome calls: {[ti['state'] for ti in welcome]}"
    # The deployment retries failed tasks (as production does): without faults, none may have needed it.
    retried = [
        f"{dag_id}.{ti['task_id']}{retry_cause(d, dag_id, run_id, ti['task_id'])}"
        for dag_id, run_id in runs.items()
        for ti in d.rest.task_instances(dag_id, run_id)
        if (ti.get("try_number") or 1) > 1
    ]
    assert not retried, f"{figures}; tasks that needed another try: {retried}"
    return figures + "; no task retried"


@contextmanager
def schedules_pending(d: Deployment, seconds: float) -> Iterator[None]:
    """Schedules made inside stay Pending ``seconds`` (the emulator's default behaviour); restored after."""
    assert d.control is not None
    defaults = d.control.schedule_behaviour()
    d.control.set_schedule_behaviour(pending_seconds=seconds)
    try:
        yield
    finally:
        d.control.set_schedule_behaviour(**{k: v for k, v in defaults.items() if v is not None})


def scheduled_runs(d: Deployment) -> list[dict[str, Any]]:
    return [run for dag_id in EXAMPLE_DAG_IDS for run in d.rest.dag_runs(dag_id) if run["run_type"] == "scheduled"]


@scenario("2 a deferred wait survives SIGKILL of the triggerer")
def deferred_wait_survives_triggerer_kill(d: Deployment) -> str:
    with schedules_pending(d, 600):  # the voice call's schedule stays Pending until released
        started = time.monotonic()
        run_id = d.rest.trigger(VOICE_DAG, example_params(d)[VOICE_DAG])
        try:
            return kill_the_triggerer_of_the_wait(d, run_id, started)
        except BaseException:
            # Left deferred, its wait would hold a triggerer's slot in the scenarios after this one (scenario 3
            # asserts that none is left): a failure here stays this scenario's.
            d.rest.fail_run(VOICE_DAG, run_id)
            raise


def kill_the_triggerer_of_the_wait(d: Deployment, run_id: str, started: float) -> str:
    """Scenario 2 once its run is triggered: SIGKILL the triggerer running the wait, then release the call."""
    assert d.control is not None

    def triggerer_of_the_wait() -> int | None:
        """The job id of the triggerer running wait_for_calls's trigger; ``None`` until it runs on one."""
        tis = {ti["task_id"]: ti for ti in d.rest.task_instances(VOICE_DAG, run_id)}
        ti = tis.get("wait_for_calls") or {"state": None}
        assert ti["state"] not in ("failed", "upstream_failed"), failed_tasks(d, VOICE_DAG, run_id)
        owner: int | None = (ti.get("trigger") or {}).get("triggerer_id")
        return owner if ti["state"] == "deferred" else None

    old = wait_for("wait_for_calls deferred, its trigger on a triggerer", triggerer_of_the_wait, timeout=180)
    deferred_after = time.monotonic() - started
    holder = d.component_of_job(old)
    killed = time.monotonic()
    d.kill_component(holder)
    d.start_component(holder)
    wait_for("a new triggerer to take over the trigger", lambda: triggerer_of_the_wait() not in (None, old), 120)
    takeover = time.monotonic() - killed
    schedule = d.rest.xcom(VOICE_DAG, run_id, "schedule_once")
    d.control.set_one_schedule_behaviour(schedule["Id"], pending_seconds=0)  # now it runs and ends
    run = wait_for("the voice call run to finish", lambda: run_finished(d, VOICE_DAG, run_id), timeout=180)
    assert run["state"] == "success", f"run {run['state']}: {failed_tasks(d, VOICE_DAG, run_id)}"
    return (
        f"deferred after {deferred_after:.0f} s; killed {holder}; a new triggerer took the trigger {takeover:.0f} s "
        f"after the kill; run success in {seconds(run):.0f} s"
    )
