"""
Scenarios 3, 4 and 5 of the system test: a key rotation under deferred waits, a burst of keyword texts, and the
examples under injected faults. Registered with ``system_scenarios.scenario`` like the others; the test runs every
scenario in the order of its number.
"""

from __future__ import annotations

import base64
import json
import re
import string
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

from messaging_platform_provider.client.operations import OPERATIONS
from tests.integration.system.system_balancer import Forwarded
from tests.integration.system.system_deployment import EXAMPLE_DAG_IDS, Deployment
from tests.integration.system.system_processes import wait_for
from tests.integration.system.system_scenarios import (
    KEYWORD_CONSUMER,
    KEYWORD_DAG,
    example_params,
    failed_tasks,
    retry_cause,
    run_finished,
    scenario,
    schedules_pending,
    seconds,
    wait_runs,
)
from tests.integration.system.system_user_setup import ROTATED_CONN_ID

ROTATION_DAG = "messaging_platform_api_key_rotation"
WAITS_DAG = "messaging_platform_system_rotated_waits"
SCHEDULE_GET = re.compile(r"/action/(\d+)/schedule/(\d+)$")
VOICE_CALLS = re.compile(r"/account/\d+/action-pushvoicecall$")
CAPACITY = "AIRFLOW__TRIGGERER__CAPACITY"


def key_of(record: dict[str, Any]) -> str | None:
    """The API key a recorded platform request was sent with (HTTP Basic user name)."""
    scheme, _, value = (record.get("headers") or {}).get("authorization", "").partition(" ")
    if scheme != "Basic":
        return None
    return base64.b64decode(value).decode(errors="replace").partition(":")[0]


def records_since(d: Deployment, seq: int) -> list[dict[str, Any]]:
    assert d.control is not None
    records: list[dict[str, Any]] = d.control.requests(since=seq)
    return records


def last_seq(d: Deployment) -> int:
    records = records_since(d, 0)
    return int(records[-1]["seq"]) if records else 0


def polled(d: Deployment, since: int, key: str) -> Counter[str]:
    """How often each schedule's status was read (200) with ``key`` since ``since``."""
    return Counter(
        match.group(2)
        for record in records_since(d, since)
        if record["method"] == "GET"
        and record["status"] == 200
        and key_of(record) == key
        and (match := SCHEDULE_GET.search(record["path"]))
    )


def deferred_tasks(d: Deployment, dag_id: str, run_id: str, count: int) -> bool:
    tis = d.rest.task_instances(dag_id, run_id)
    bad = [ti["task_id"] for ti in tis if ti["state"] in ("failed", "upstream_failed")]
    assert not bad, failed_tasks(d, dag_id, run_id)
    return sum(ti["state"] == "deferred" for ti in tis) == count


def asset_runs(d: Deployment) -> dict[str, dict[str, Any]]:
    return {r["dag_run_id"]: r for r in d.rest.dag_runs(KEYWORD_DAG) if r["run_type"] == "asset_triggered"}


def claimed(d: Deployment) -> set[str]:
    rows = d.store_rows("SELECT transaction_id FROM mp_callback_claim WHERE consumer = :c", c=KEYWORD_CONSUMER)
    return {row[0] for row in rows}


@contextmanager
def triggerers_of_capacity(d: Deployment, capacity: int) -> Iterator[None]:
    """
    With two triggerers or more (the CeleryExecutor deployment): each restarted to run at most ``capacity``
    triggers (``[triggerer] capacity``), and restarted as before at the end, each time until every one beats again.
    With one: nothing changes.
    """
    names = [name for name in d.components if name.startswith("triggerer-")]
    if len(names) < 2:
        yield
        return
    try:
        restart_triggerers(d, names, capacity)
        yield
    finally:
        restart_triggerers(d, names, None)


def restart_triggerers(d: Deployment, names: list[str], capacity: int | None) -> None:
    """Restart each triggerer with ``capacity`` (``None``: Airflow's default); back once each new job beats."""
    restarted = datetime.now(timezone.utc)
    for name in names:
        d.components[name].env.pop(CAPACITY, None)
        if capacity is not None:
            d.components[name].env[CAPACITY] = str(capacity)
        d.restart_component(name)
    wait_for(
        "every restarted triggerer beating",
        lambda: len(triggerer_jobs_alive_since(d, restarted)) == len(names),
        timeout=120,
        interval=1,
    )


def triggerer_jobs_alive_since(d: Deployment, since: datetime) -> list[dict[str, Any]]:
    jobs = d.rest.get("/api/v2/jobs", job_type="TriggererJob", is_alive="true")["jobs"]
    return [job for job in jobs if datetime.fromisoformat(job["start_date"]) >= since]


def triggerers_holding(d: Deployment, run_id: str) -> Counter[str]:
    """How many of the waits' triggers each triggerer (by component name) runs now."""
    tis = d.rest.task_instances(WAITS_DAG, run_id)
    jobs = [owner for ti in tis if (owner := (ti.get("trigger") or {}).get("triggerer_id")) is not None]
    return Counter(d.component_of_job(job_id) for job_id in jobs)


@scenario("3 a key rotation while deferred waits use the rotated connection (Celery: waits on both triggerers)")
def rotation_during_deferred_waits(d: Deployment) -> str:
    assert d.control is not None
    # Two triggers at most per triggerer: the three waits cannot all run on one of the CeleryExecutor's two (the
    # fourth slot is the keyword watcher's). A wait an earlier scenario left would hold a slot: none may be left.
    left = d.rest.get("/api/v2/dags/~/dagRuns/~/taskInstances", state="deferred")["task_instances"]
    assert not left, f"deferred tasks left by earlier scenarios: {[(t['dag_id'], t['task_id']) for t in left]}"
    with triggerers_of_capacity(d, 2), schedules_pending(d, 600):  # the waits stay in flight until released
        for dag_id in (WAITS_DAG, ROTATION_DAG):
            d.rest.unpause(dag_id)  # a new DAG is paused: its runs would wait queued
        old_key = d.rest.get(f"/api/v2/connections/{ROTATED_CONN_ID}")["login"]
        since = last_seq(d)
        waits = d.rest.trigger(WAITS_DAG)
        wait_for("the waits to be deferred", lambda: deferred_tasks(d, WAITS_DAG, waits, 3), timeout=180, interval=1)
        # Each task read its schedule once in the worker before it deferred; a second read is its trigger's.
        wait_for(
            "every trigger polling on the old key",
            lambda: len([n for n in polled(d, since, old_key).values() if n >= 2]) == 3,
            timeout=120,
        )

        def all_on_triggerers() -> Counter[str] | None:
            held = triggerers_holding(d, waits)
            return held if held.total() == 3 else None

        holding = wait_for("every wait's trigger on a triggerer", all_on_triggerers, timeout=60, interval=1)
        assert len(holding) == len(d.triggerers()), f"the waits' triggers by triggerer: {dict(holding)}"
        rotation = d.rest.trigger(ROTATION_DAG)
        rotated = wait_runs(d, {ROTATION_DAG: rotation}, timeout=240)[ROTATION_DAG]
        assert rotated["state"] == "success", "rotation: " + failed_tasks(d, ROTATION_DAG, rotation)
        outcome = d.rest.xcom(ROTATION_DAG, rotation, "rotate_api_key")
        assert outcome["outcome"] == "rotated" and outcome["old_key_revoked"], outcome
        new_key = d.rest.get(f"/api/v2/connections/{ROTATED_CONN_ID}")["login"]
        assert new_key != old_key

        def every_wait_on_the_new_key() -> dict[str, list[str]] | None:
            polls: dict[str, list[tuple[int, str | None]]] = {}
            for record in records_since(d, since):
                match = SCHEDULE_GET.search(record["path"])
                if record["method"] == "GET" and match and key_of(record) in (old_key, new_key):
                    polls.setdefault(match.group(2), []).append((record["status"], key_of(record)))
            refused = {sid for sid, seen in polls.items() if (401, old_key) in seen}
            moved = {sid for sid, seen in polls.items() if (200, new_key) in seen}
            return {"refused": sorted(refused), "moved": sorted(moved)} if len(moved) == 3 and refused else None

        seen = wait_for("every wait polling on the new key", every_wait_on_the_new_key, timeout=120, interval=1)
        for schedule_id in seen["moved"]:
            d.control.set_one_schedule_behaviour(int(schedule_id), pending_seconds=0)  # now they run and end
        done = wait_for("the waits to finish", lambda: run_finished(d, WAITS_DAG, waits), timeout=180, interval=1)
        assert done["state"] == "success", "waits: " + failed_tasks(d, WAITS_DAG, waits)

        d.control.set_schedule_behaviour(pending_seconds=1)
        after = last_seq(d)
        again = d.rest.trigger(WAITS_DAG)
        second = wait_for("a run after the rotation", lambda: run_finished(d, WAITS_DAG, again), timeout=180)
        assert second["state"] == "success", "after rotation: " + failed_tasks(d, WAITS_DAG, again)
        keys_after = Counter(key_of(r) for r in records_since(d, after) if key_of(r) in (old_key, new_key))
        assert keys_after and set(keys_after) == {new_key}, f"keys used after the rotation: {len(keys_after)}"
    return (
        f"3 waits polling on the old key ({', '.join(f'{n} on {name}' for name, n in sorted(holding.items()))}); "
        f"rotation {seconds(rotated):.0f} s, old key revoked; {len(seen['refused'])} "
        f"wait(s) got 401, the connection was re-read, all 3 went on with the new key and succeeded; "
        f"the run after it: {sum(keys_after.values())} calls, new key only"
    )


@scenario("4 20 keyword texts in one second (Celery: over both API servers, every third to both): each handled once")
def keyword_burst(d: Deployment) -> str:
    assert d.control is not None
    phones = [f"+155504000{n:02d}" for n in range(20)]
    since = last_seq(d)
    runs_before = set(asset_runs(d))
    balancer = d.celery.balancer if d.celery is not None else None
    if balancer is not None:
        balancer.duplicate_every = 3  # every third callback reaches both receivers at once (each in turn first)
        forwarded_before = len(balancer.forwarded)
    try:
        started = time.monotonic()
        events = [d.control.keyword_event("JOIN", phone_number=phone) for phone in phones]
        spread = time.monotonic() - started  # a figure: how close together the texts came on this machine
        deliveries = [delivery for event in events for delivery in event["deliveries"]]
        tids = {delivery["transaction_id"] for delivery in deliveries}
        assert len(tids) == 20

        def delivered() -> bool:
            states = [d.control.delivery(x["id"])["state"] for x in deliveries]  # type: ignore[union-attr]
            assert "failed" not in states, Counter(states)
            return states.count("delivered") == 20

        wait_for("the 20 callbacks delivered to the receiver", delivered, timeout=60, interval=0.5)
    finally:
        if balancer is not None:
            balancer.duplicate_every = 0
    spread_note = ""
    if balancer is not None:
        spread_note = " " + both_api_servers(balancer.forwarded[forwarded_before:])
    # None left waiting: without any later text, every callback gets claimed by a run.
    wait_for("every callback claimed by a run", lambda: tids <= claimed(d), timeout=240, interval=1)
    claimed_after = time.monotonic() - started

    def quiet() -> list[dict[str, Any]] | None:
        runs = [r for run_id, r in asset_runs(d).items() if run_id not in runs_before]
        return runs if all(r["state"] in ("success", "failed") for r in runs) else None

    runs = wait_for("the keyword runs to finish", quiet, timeout=240, interval=1)
    failed = [r["dag_run_id"] for r in runs if r["state"] != "success"]
    assert not failed, "; ".join(f"{run}: {failed_tasks(d, KEYWORD_DAG, run)}" for run in failed)
    calls: Counter[str] = Counter()
    for record in records_since(d, since):
        if record["method"] == "POST" and VOICE_CALLS.search(record["path"]) and record["status"] == 201:
            calls.update(t for t in (record.get("json") or {}).get("Targets", []) if t in phones)
    assert calls == Counter(phones), f"welcome calls per phone: {sorted(calls.values())}"
    return (
        f"20 texts sent in {spread * 1000:.0f} ms;{spread_note} all claimed {claimed_after:.0f} s after the first; "
        f"{len(runs)} asset-triggered run(s); 20 welcome calls, one per phone"
    )


def both_api_servers(forwarded: list[Forwarded]) -> str:
    """Check the burst's answers through the load balancer: each API server's receiver stored callbacks, and of
    each callback sent to both at once one receiver stored it and the other answered it as a duplicate. Answers the
    figures."""
    assert forwarded and all(f.status == 200 for f in forwarded), Counter((f.server, f.status) for f in forwarded)
    by_number: dict[int, list[Forwarded]] = {}
    for answer in forwarded:
        by_number.setdefault(answer.number, []).append(answer)
    doubled = [answers for answers in by_number.values() if len(answers) == 2]
    assert len(doubled) >= 6, f"{len(doubled)} of {len(by_number)} callbacks went to both API servers"
    for answers in doubled:
        assert sorted(a.outcome for a in answers) == ["duplicate", "stored"], answers
    stored = Counter(f.server for f in forwarded if f.outcome == "stored")
    assert set(stored) == {0, 1}, f"callbacks stored by each API server's receiver: {dict(stored)}"
    return (
        f"{len(by_number)} deliveries over the two API servers in turn, {len(doubled)} of them to both at once (one "
        f"stored, the other answered 'duplicate', each time); stored by each: {stored[0]} and {stored[1]};"
    )


FAULTS: list[dict[str, Any]] = [  # in order; the first that fires applies: about 20% of platform requests in all
    # Two creates that cannot be sent again by the client itself, so that the task's retry must handle them:
    # a campaign created but its answer lost (the retry adopts it), a voice call refused with 503 (made anew).
    {"kind": "commit_then_drop", "method": "POST", "path": "/campaign$", "count": 1},
    {"kind": "status", "status": 503, "method": "POST", "path": "/action-pushvoicecall$", "count": 1},
    # Random 503s only on the calls the client sends again itself. A POST answered 503 is sent again only by the
    # task's next try, and its tries follow one another at the same pace: in the CeleryExecutor run the seeded draws
    # (hits at draws 9, 13, 19, 20, 26 for seed 1) once met all five tries of one create. The rule above covers it.
    *({"kind": "status", "status": 503, "method": m, "probability": 0.08, "seed": 1} for m in ("GET", "PUT", "DELETE")),
    {"kind": "retry_after", "retry_after": 1, "probability": 0.08, "seed": 2},
    {"kind": "commit_then_drop", "probability": 0.05, "seed": 3},
]


def path_pattern(path: str) -> re.Pattern[str]:
    """A request path (the base URL's prefix before it) that fills an operation's path template."""
    parts = string.Formatter().parse(path)
    return re.compile("".join(re.escape(text) + ("[^/]+" if name else "") for text, name, _, _ in parts) + "$")


#: POSTs that create nothing: a resend leaves the same state (attaching a campaign to a keyword).
RESEND_SAFE_POSTS = [path_pattern(op.path) for op in OPERATIONS.values() if op.method == "POST" and op.idempotent]


def committed_creates(records: list[dict[str, Any]]) -> Counter[str]:
    """Creates (POSTs but the resend-safe ones) the platform carried out (answered 2xx, or done and then the answer
    lost), by path and body."""
    done: Counter[str] = Counter()
    for record in records:
        ok = record["fault"] is None and 200 <= (record["status"] or 0) < 300
        if record["method"] != "POST" or any(p.search(record["path"]) for p in RESEND_SAFE_POSTS):
            continue
        if ok or record["fault"] == "commit_then_drop":
            done[record["path"] + " " + json.dumps(record.get("json"), sort_keys=True)] += 1
    return done


def still_valid(d: Deployment, create: str, committed: int) -> int:
    """
    How many of the ``committed`` creates of ``create`` (path and body) count as resources. API keys are those still
    listed: a rotation whose stored key failed its check under the faults rolls back and revokes that unused key, and
    the task's retry makes another under the same run marker (docs/rotation.md). Anything else counts as made.
    """
    path, _, body = create.partition(" ")
    if not path.endswith("/api-key"):
        return committed
    from tests.support.airflow_api_harness import manager_from_uri

    with manager_from_uri(d.emulator_uri) as manager:
        return sum(key.get("Label") == json.loads(body)["Label"] for key in manager.list_api_keys())


@scenario("5 every example DAG under 20% injected transient faults")
def examples_under_faults(d: Deployment) -> str:
    assert d.control is not None
    params = example_params(d)
    since = last_seq(d)
    for rule in FAULTS:
        d.control.add_fault(**{"count": 1_000_000, **rule})
    try:
        manual = [dag_id for dag_id in EXAMPLE_DAG_IDS if dag_id != KEYWORD_DAG]
        runs = {dag_id: d.rest.trigger(dag_id, params.get(dag_id, {})) for dag_id in manual}
        before = set(asset_runs(d))
        d.control.keyword_event("JOIN", phone_number="+15550500000", wait=True)
        runs[KEYWORD_DAG] = wait_for(
            "an asset-triggered run for the text",
            lambda: next((run_id for run_id in asset_runs(d) if run_id not in before), None),
            timeout=120,
            interval=1,
        )
        finished = wait_runs(d, runs, timeout=420)
    finally:
        d.control.clear_faults()
    records = records_since(d, since)
    faulted = Counter(r["fault"] for r in records if r["fault"])
    failed = {k: failed_tasks(d, k, runs[k]) for k, r in finished.items() if r["state"] != "success"}
    tries = [ti.get("try_number", 1) for dag_id, run in runs.items() for ti in d.rest.task_instances(dag_id, run)]
    causes = [
        retry_cause(d, dag_id, run, ti["task_id"])
        for dag_id, run in runs.items()
        for ti in d.rest.task_instances(dag_id, run)
        if (ti.get("try_number") or 1) > 1
    ]
    duplicates = {key: n for key, n in committed_creates(records).items() if n > 1 and still_valid(d, key, n) > 1}
    figures = (
        f"{len(records)} platform calls, {sum(faulted.values())} faulted "
        f"({100 * sum(faulted.values()) / max(len(records), 1):.0f}%: {dict(faulted)}); "
        f"{len(finished) - len(failed)}/{len(finished)} runs success, {sum(t > 1 for t in tries)} task(s) retried "
        f"({sum('state mismatch' in c for c in causes)} of them failed by the scheduler as a state mismatch, "
        f"{sum('MessagingPlatformApiError' in c for c in causes)} after a platform error in their log); "
        f"{len(duplicates)} duplicate create(s)"
    )
    assert not failed, f"{figures}; failed: " + "; ".join(f"{k}: {v}" for k, v in failed.items())
    assert not duplicates, f"{figures}: {sorted(duplicates)[:3]}"
    assert sum(faulted.values()) >= 0.1 * len(records), figures  # the faults really were there
    assert sum(t > 1 for t in tries) >= 2, figures  # the two creates above were finished by a retry
    return figures
