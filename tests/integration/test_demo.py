"""The README's main job, `scripts/demo.py`, end to end: every DAG succeeds and the secret stays hidden."""

from __future__ import annotations

import sys

import pytest

from tests.integration.conftest import DEMO_SECRET as SECRET, DemoRun
from tests.support.paths import EXAMPLE_DAGS, SCRIPTS


@pytest.mark.slow
@pytest.mark.xdist_group("demo")
def test_demo_runs_every_dag_to_success_without_showing_the_secret(demo_run: DemoRun):
    assert demo_run.returncode == 0, demo_run.tail
    dag_ids = sorted(p.stem for p in EXAMPLE_DAGS.glob("messaging_platform_*.py"))
    assert sorted(demo_run.rows) == dag_ids, demo_run.tail
    assert all(row.state == "success" for row in demo_run.rows.values()), demo_run.tail
    # The account's ids reach the DAGs as params, from the emulator's seed (docs/emulator.md), as a user gives them.
    rows = {dag_id: row.line for dag_id, row in demo_run.rows.items()}
    assert rows["messaging_platform_schedule_reconcile"].endswith('{"action_id": 5001}')
    assert '"contact_list_id": 4001' in rows["messaging_platform_voice_call_push"]
    assert '"channel": 22, "keyword_id": 8001' in rows["messaging_platform_campaign_launch"]
    assert demo_run.scan_clean, demo_run.tail
    assert SECRET not in demo_run.text


def test_the_demo_secret_scan_finds_a_leak(tmp_path):
    sys.path.insert(0, str(SCRIPTS))
    try:
        from demo import leaked_files
    finally:
        sys.path.pop(0)
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "task.log").write_text(f"token={SECRET}\n")
    (tmp_path / "conn.uri").write_text(SECRET)  # the private connection file is where the secret belongs
    assert leaked_files(SECRET, [tmp_path]) == [tmp_path / "logs" / "task.log"]
