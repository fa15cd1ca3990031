"""
End to end: a customer texts JOIN into the emulator → the emulator POSTs a Keyword callback → the receiver stores
it → the example DAG's AssetWatcher trigger fires → Airflow records an asset event → the scheduler creates exactly
one run of ``messaging_platform_keyword_callbacks`` → its tasks run against the emulator and call that customer.

What runs for real: Airflow's DAG parsing and its registration of the watcher's trigger (the trigger is built from
its stored row, as the triggerer builds it), Airflow's ``SharedStreamManager`` in ack mode, the supervisor's
``Trigger.submit_event`` (asset event + run queue), the scheduler's ``_create_dagruns_for_dags``, and the tasks run
the way ``dag.test()`` runs them. What is stood in for: the triggerer's process loop (``TriggererHarness`` calls
the same manager methods in the same order) and the scheduler's loop (one call of the method that creates runs).
Starting the real triggerer and scheduler processes would take most of this suite's time budget on two cores.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import requests

from messaging_platform_emulator.control_client import EmulatorControl
from tests.support.airflow_versions import needs_shared_streams
from tests.support.callback_helpers import TriggererHarness, add_callback_record
from tests.support.paths import EXAMPLE_DAGS

DAG_ID = "messaging_platform_keyword_callbacks"
ASSET = "messaging_platform_keyword_join"


def sync_dag_with_watcher() -> tuple[Any, Any]:
    """Parse the example DAG as the DAG processor does, unpaused so its watcher is registered; (dag, trigger row)."""
    from airflow.dag_processing.bundles.manager import DagBundlesManager
    from airflow.dag_processing.dagbag import BundleDagBag, sync_bag_to_db
    from airflow.models.asset import AssetModel
    from airflow.models.dag import DagModel
    from airflow.serialization.definitions.dag import SerializedDAG
    from airflow.utils.session import create_session

    DagBundlesManager().sync_bundles_to_db()
    bag = BundleDagBag(dag_folder=str(EXAMPLE_DAGS / f"{DAG_ID}.py"), bundle_path=EXAMPLE_DAGS, bundle_name="examples")
    assert bag.import_errors == {}
    sync_bag_to_db(bag, "examples", None)
    with create_session() as session:
        session.get(DagModel, DAG_ID).is_paused = False
    SerializedDAG.bulk_write_to_db("examples", None, [bag.dags[DAG_ID]])  # now active: the watcher is added
    with create_session() as session:
        asset = session.query(AssetModel).filter(AssetModel.name == ASSET).one()
        [row] = asset.triggers
        session.expunge(row)
    return bag.dags[DAG_ID], row


def build_trigger(row: Any) -> Any:
    """As ``TriggerRunner.create_triggers`` does: import the class, decrypt and decode the kwargs."""
    from airflow._shared.module_loading import import_string
    from airflow.models.trigger import Trigger
    from airflow.serialization.decoders import smart_decode_trigger_kwargs

    kwargs = Trigger._decrypt_kwargs(row.encrypted_kwargs)
    trigger = import_string(row.classpath)(**{k: smart_decode_trigger_kwargs(v) for k, v in kwargs.items()})
    trigger.trigger_id = row.id
    return trigger


def submit(trigger_id: int):
    def persist(event: Any) -> None:
        from airflow.models.trigger import Trigger

        Trigger.submit_event(trigger_id=trigger_id, event=event)  # what the triggerer's supervisor does

    return persist


def create_runs() -> list[Any]:
    """One scheduler pass that creates DAG runs; the DAG's runs afterwards, each with ``.events``: the callbacks
    (asset event payloads) that triggered it."""
    from airflow.jobs.job import Job
    from airflow.jobs.scheduler_job_runner import SchedulerJobRunner
    from airflow.models.dagrun import DagRun
    from airflow.utils.session import create_session
    from airflow.utils.sqlalchemy import prohibit_commit

    runner = SchedulerJobRunner(job=Job(), executors=[])
    with create_session() as session:
        with prohibit_commit(session) as guard:
            runner._create_dagruns_for_dags(guard, session)
    with create_session() as session:
        runs = session.query(DagRun).filter(DagRun.dag_id == DAG_ID).order_by(DagRun.id).all()
        for run in runs:
            run.events = [e.extra["payload"] for e in run.consumed_asset_events]
            session.expunge(run)
    return runs


def run_tasks(dag: Any, run_id: str) -> dict[str, str]:
    """Run the run's tasks in process, the way ``dag.test()`` does; task id (map index) -> state."""
    from airflow.models.dagrun import DagRun
    from airflow.sdk.definitions.dag import _run_task
    from airflow.utils.session import create_session
    from airflow.utils.state import DagRunState, TaskInstanceState

    with create_session() as session:
        run = session.query(DagRun).filter(DagRun.run_id == run_id, DagRun.dag_id == DAG_ID).one()
        run.state = DagRunState.RUNNING
        session.commit()
        from airflow.models.dagbag import DBDagBag

        run.dag = DBDagBag().get_dag_for_run(run, session=session)
        for _ in range(20):
            if run.state != DagRunState.RUNNING:
                break
            session.expire_all()
            schedulable, _ = run.update_state(session=session)
            for ti in schedulable:
                ti.try_number += 1
                ti.state = TaskInstanceState.SCHEDULED
            session.commit()
            for ti in [t for t in run.get_task_instances(session=session) if t.state == TaskInstanceState.SCHEDULED]:
                _run_task(ti=ti, task=dag.task_dict[ti.task_id])
        session.expire_all()
        return {f"{t.task_id}[{t.map_index}]": t.state for t in run.get_task_instances(session=session)}


def text_join(platform: Any, phone: str) -> dict[str, Any]:
    with EmulatorControl(platform.server.url, timeout=30) as control:  # it answers once the callback is delivered
        fired = control.keyword_event("JOIN", phone_number=phone, wait=True)
    assert [d["state"] for d in fired["deliveries"]] == ["delivered"]
    return fired


def voice_calls(platform: Any) -> list[dict[str, Any]]:
    session = requests.Session()
    session.auth = (platform.seed.api_key, platform.seed.api_secret)
    response = session.get(f"{platform.base_url}/account/{platform.seed.account_id}/action-pushvoicecall", timeout=10)
    return [] if response.status_code == 204 else list(response.json())


@pytest.mark.usefixtures("dag_runs")
@pytest.mark.xdist_group("dag_runs")
@needs_shared_streams
def test_each_keyword_text_runs_the_example_dag_exactly_once(platform, receiver_for, store, monkeypatch):
    # Setup as in messaging_platform_campaign_launch: a campaign on JOIN, the receiver as Keyword callback record.
    session = requests.Session()
    session.auth = (platform.seed.api_key, platform.seed.api_secret)
    account = f"{platform.base_url}/account/{platform.seed.account_id}"
    campaign = session.post(f"{account}/campaign", json={"Name": "Join", "CampaignTypeId": 1}, timeout=10).json()
    session.post(f"{account}/channel/22/keyword/JOIN/campaign", json=campaign["Id"], timeout=10).raise_for_status()
    add_callback_record(platform, 1, receiver_for.url)
    # The account's long code the welcome calls are placed from (the emulator's account gets it here), as a user
    # sets it: an Airflow Variable.
    platform.control.add_channel("+15125550177")
    monkeypatch.setenv("AIRFLOW_VAR_MESSAGING_PLATFORM_WELCOME_LONG_CODE", "+15125550177")
    platform.control.set_delivery_policy(backoff_seconds=0.05)

    dag, row = sync_dag_with_watcher()
    before = {r.run_id for r in create_runs()}  # earlier tests may have run the DAG by hand

    async def triggerer_life(texts: list[str], flaky_first: bool = False) -> list[Any]:
        harness = TriggererHarness(build_trigger(row), trigger_id=row.id, persist=submit(row.id))
        await harness.start()
        await harness.wait_open()  # its position is open: what is stored from now on reaches it
        for phone in texts:
            await asyncio.to_thread(text_join, platform, phone)
        await harness.wait_for(len(texts))
        await harness.persist_pending()  # returns once the position is committed past the persisted events
        await harness.crash()  # the triggerer stops; its position is committed in the store
        return harness.yielded

    # A receiver failure on the first try: the emulator redelivers the same TransactionId; stored once.
    real = receiver_for.receiver.store.add_many
    failures = []

    def fail_once(items: Any) -> Any:
        if not failures:
            failures.append(1)
            raise RuntimeError("disk full")
        return real(items)

    monkeypatch.setattr(receiver_for.receiver.store, "add_many", fail_once)
    first = asyncio.run(triggerer_life(["+15550100011"]))
    assert len(first) == 1 and failures == [1]
    [delivery] = platform.control.deliveries()
    assert [a["status"] for a in delivery["attempts"]] == [503, 200]  # redelivered with the same TransactionId
    runs = [r for r in create_runs() if r.run_id not in before]
    assert len(runs) == 1 and runs[0].run_type == "asset_triggered"
    [event] = runs[0].events
    assert event["transaction_id"] == delivery["transaction_id"] and event["payload"]["Keyword"] == "JOIN"
    states = run_tasks(dag, runs[0].run_id)
    assert states == {
        "check_callback_record[-1]": "success",
        "new_subscribers[-1]": "success",
        "welcome_call[0]": "success",
    }
    calls = voice_calls(platform)
    assert [(c["Channels"], c["Targets"]) for c in calls] == [(["+15125550177"], ["+15550100011"])]

    # The triggerer restarts; a second text arrives: one more run, the first event is not repeated.
    second = asyncio.run(triggerer_life(["+15550100012"]))
    assert [e.payload["payload"]["PhoneNumber"] for e in second] == ["+15550100012"]
    runs = [r for r in create_runs() if r.run_id not in before]
    assert len(runs) == 2 and [len(r.events) for r in runs] == [1, 1]
    assert run_tasks(dag, runs[1].run_id)["welcome_call[0]"] == "success"
    assert sorted(c["Targets"][0] for c in voice_calls(platform)) == ["+15550100011", "+15550100012"]
    assert store.count() == 2
