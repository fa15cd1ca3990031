"""
Scenario 6 of the system test: what a holder of the callback token can send. A real ``airflow triggerer`` on a
PostgreSQL metadata database runs the keyword example's AssetWatcher and a deferrable callback sensor
(``dags/messaging_platform_system_callback_answer.py``); the receiver in the API server is sent callbacks that once
stopped that triggerer (an integer beyond 64 bits, a NUL, a name Airflow's XCom serializer owns, a timestamp of
year 1), and the callback store is given two such callbacks directly, as a store written by an older version may
hold. The triggerer must keep running, and the good callbacks sent after them must be handled.
"""

from __future__ import annotations

import time
from typing import Any

import requests

from messaging_platform_provider.callbacks.models import parse_callback
from messaging_platform_provider.callbacks.store import CallbackStore, NewCallback
from tests.integration.system.system_deployment import Deployment
from tests.integration.system.system_processes import wait_for
from tests.integration.system.system_scenarios import (
    KEYWORD_DAG,
    failed_tasks,
    run_finished,
    scenario,
)
from tests.integration.system.system_scenarios_platform import asset_runs, claimed
from tests.support.callback_helpers import callback

ANSWER_DAG = "messaging_platform_system_callback_answer"
ANSWER_PHONE = "+15550177777"  # the sensor's phone number (the DAG's ANSWER_PHONE)
RUNNER_DIED = "Trigger runner process has died"


def body(d: Deployment, callback_type: int, **fields: Any) -> dict[str, Any]:
    """A callback of the deployment's account, with its token."""
    return callback(callback_type, token=d.seed["callback_token"], AccountId=d.seed["account_id"], **fields)


@scenario("6 hostile callbacks: refused 422, older poison rows skipped; the triggerer lives and handles the good")
def hostile_callbacks(d: Deployment) -> str:
    triggerers = d.triggerers()  # one, or two in the CeleryExecutor deployment
    before = {t.name: (t.starts, t.log.stat().st_size) for t in triggerers}
    d.rest.unpause(ANSWER_DAG)
    run_id = d.rest.trigger(ANSWER_DAG, {})

    def deferred() -> bool:
        tis = {ti["task_id"]: ti for ti in d.rest.task_instances(ANSWER_DAG, run_id)}
        ti = tis.get("wait_for_answer")
        assert ti is None or ti["state"] not in ("failed", "upstream_failed"), failed_tasks(d, ANSWER_DAG, run_id)
        return ti is not None and ti["state"] == "deferred"

    wait_for("the callback sensor to be deferred", deferred, timeout=180, interval=1)

    hostile = {
        "ContactId 2^64 (the triggerer's messages)": body(d, 1, Keyword="JOIN", ContactId=2**64),
        "NUL in Message (PostgreSQL JSONB)": body(d, 11, PhoneNumber=ANSWER_PHONE, Message="yes\x00"),
        "NUL in PhoneNumber": body(d, 1, Keyword="JOIN", PhoneNumber=ANSWER_PHONE + "\x00"),
        "__classname__ (XCom)": body(d, 11, PhoneNumber=ANSWER_PHONE, Extra={"__classname__": "builtins.print"}),
        "CallbackTimestamp of year 1": body(d, 1, Keyword="JOIN", CallbackTimestamp="0001-01-01T00:00:00"),
    }
    answers = {name: requests.post(d.receiver_url, json=b, timeout=60).status_code for name, b in hostile.items()}
    assert set(answers.values()) == {422}, f"answers to hostile callbacks: {answers}"

    # What an older receiver may have stored: straight into the store, for the watcher and for the sensor.
    poison = [
        body(d, 1, Keyword="JOIN", PhoneNumber="+15550170001", ContactId=2**64),
        body(d, 11, PhoneNumber=ANSWER_PHONE, Message="yes\x00"),
    ]
    store = CallbackStore(d.store_url)
    try:
        store.add_many([NewCallback.from_model(parse_callback(b)) for b in poison])
    finally:
        store.close()
    time.sleep(3)  # a few polls of the watcher and the sensor's trigger over the poison rows

    runs_before = set(asset_runs(d))
    good_keyword = body(d, 1, Keyword="JOIN", PhoneNumber="+15550170002")
    good_answer = body(d, 11, PhoneNumber=ANSWER_PHONE, Message="yes")
    for good in (good_keyword, good_answer):
        response = requests.post(d.receiver_url, json=good, timeout=60)
        assert response.status_code == 200, response.text[:300]

    run = wait_for("the sensor's run to finish", lambda: run_finished(d, ANSWER_DAG, run_id), timeout=180)
    assert run["state"] == "success", f"sensor run {run['state']}: {failed_tasks(d, ANSWER_DAG, run_id)}"
    taken = d.rest.xcom(ANSWER_DAG, run_id, "read_answer")
    assert taken == good_answer["TransactionId"], f"the sensor took {taken}, not the good answer"
    wait_for(
        "the good keyword callback claimed by a run",
        lambda: good_keyword["TransactionId"] in claimed(d),
        timeout=180,
        interval=1,
    )

    def keyword_runs_done() -> list[dict[str, Any]] | None:
        runs = [r for run_id_, r in asset_runs(d).items() if run_id_ not in runs_before]
        return runs if runs and all(r["state"] in ("success", "failed") for r in runs) else None

    runs = wait_for("the keyword run to finish", keyword_runs_done, timeout=180, interval=1)
    failed = [r["dag_run_id"] for r in runs if r["state"] != "success"]
    assert not failed, "; ".join(f"{r}: {failed_tasks(d, KEYWORD_DAG, r)}" for r in failed)
    assert poison[0]["TransactionId"] not in claimed(d), "the poison keyword callback reached a DAG run"
    died = []
    for triggerer in triggerers:
        with triggerer.log.open("rb") as log:
            log.seek(before[triggerer.name][1])
            died += [line for line in log.read().decode(errors="replace").splitlines() if RUNNER_DIED in line]
    lived = all(t.running() and t.starts == before[t.name][0] for t in triggerers)
    assert lived and not died, f"a triggerer stopped: {died[:1]}"
    return (
        f"{len(hostile)} hostile callbacks answered 422; 2 poison rows skipped; the sensor took the good answer; "
        f"{len(runs)} keyword run(s) success; triggerer(s) not restarted, no '{RUNNER_DIED}'"
    )
