"""What the example DAGs promise beyond running: idempotent second runs, the export file, cleanup on failure."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

import requests

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

DAGS = Path(__file__).resolve().parents[2] / "dags"
WRITES = ("POST", "PUT", "DELETE")


def run_dag(dag_id: str, **conf):
    from airflow.dag_processing.dagbag import DagBag

    return DagBag(dag_folder=str(DAGS)).get_dag(dag_id).test(run_conf=conf or None)


def xcom(run, task_id: str):
    (ti,) = [ti for ti in run.get_task_instances() if ti.task_id == task_id]
    return ti.xcom_pull(task_ids=task_id)


def test_schedule_reconcile_converges_and_a_second_run_changes_nothing(platform, airflow_db):
    hook = MessagingPlatformHook()
    stale = hook.create_schedule(5001, "Weekly", "07:00:00", "2026-12-01T00:00:00", week_day="SUN")
    drifted = hook.create_schedule(5001, "Monthly", "23:00:00", "2026-12-01T00:00:00", month_day=[1, 15])
    one_time = hook.create_schedule(5001, "OneTime", "12:00:00", "2026-12-05T00:00:00")
    first = run_dag("messaging_platform_schedule_reconcile")
    assert first.state == "success"
    assert xcom(first, "reconcile") == {"created": 2, "updated": 1, "deleted": 1, "unchanged": 0}
    schedules = {s["Id"]: s for s in hook.list_schedules(5001)}
    assert stale["Id"] not in schedules and one_time["Id"] in schedules  # runs are not declarations
    assert schedules[drifted["Id"]]["RunAt"] == "08:00:00"
    before = len(platform.requests())
    second = run_dag("messaging_platform_schedule_reconcile")
    assert second.state == "success"
    assert xcom(second, "reconcile") == {"created": 0, "updated": 0, "deleted": 0, "unchanged": 3}
    assert [r["method"] for r in platform.requests()[before:]] == ["GET"]


def test_coupon_sync_sends_only_the_difference_and_then_nothing(platform, airflow_db):
    hook = MessagingPlatformHook()
    existing = hook.create_external_coupon_list(
        "Synced coupon codes", coupon_codes=["SPRING-0001", "SPRING-0002", "OLD-9999"]
    )
    first = run_dag("messaging_platform_coupon_sync")
    assert first.state == "success"
    assert xcom(first, "sync") == {"list_id": existing["Id"], "added": 6, "removed": 1}
    writes = [r for r in platform.requests() if r["method"] in WRITES]
    assert [(r["method"], r["path"].rsplit("/", 1)[-1]) for r in writes][-2:] == [
        ("PUT", str(existing["Id"])),
        ("DELETE", "OLD-9999"),
    ]
    put = [r for r in writes if r["method"] == "PUT"][0]
    assert sorted(put["json"]["CouponCodes"]) == [f"SPRING-000{i}" for i in range(3, 9)]  # only the new ones
    codes = sorted(c["CouponCode"] for c in hook.list_external_coupon_codes(existing["Id"]))
    assert codes == [f"SPRING-000{i}" for i in range(1, 9)]
    before = len(platform.requests())
    second = run_dag("messaging_platform_coupon_sync")
    assert xcom(second, "sync") == {"list_id": existing["Id"], "added": 0, "removed": 0}
    assert {r["method"] for r in platform.requests()[before:]} == {"GET"}


def test_contacts_export_writes_every_contact_in_pages(platform, airflow_db, tmp_path):
    requests.post(f"{platform.control}/contacts", json={"count": 1175}, timeout=10).raise_for_status()
    run = run_dag("messaging_platform_contacts_export", destination=tmp_path.as_uri(), page_size=500)
    assert run.state == "success"
    result = xcom(run, "export")
    assert result["rows"] == 1200  # 25 seeded + 1,175 added
    lines = Path(result["path"].removeprefix("file://")).read_text().splitlines()
    assert len(lines) == 1200 and json.loads(lines[0])["Id"] == 6001
    pages = [unquote(r["query"]) for r in platform.requests() if r["path"].endswith("/contact")]
    assert pages == ["$top=500&$skip=0", "$top=500&$skip=500", "$top=500&$skip=1000"]


def test_voice_call_push_cleans_up_when_the_wait_fails(platform, airflow_db):
    requests.post(f"{platform.control}/schedule-behaviour", json={"outcome": "Failed"}, timeout=10).raise_for_status()
    run = run_dag("messaging_platform_voice_call_push")
    assert run.state == "failed"
    states = {ti.task_id: ti.state for ti in run.get_task_instances()}
    assert states["wait_for_calls"] == "failed" and states["delete_call_on_failure"] == "success"
    assert MessagingPlatformHook().list_push_voice_calls() == []  # the action was stopped and deleted
