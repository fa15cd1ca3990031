"""The README's main job, `scripts/demo.py`, end to end: every DAG succeeds and the secret stays hidden."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.support.paths import EXAMPLE_DAGS, SCRIPTS

SECRET = "demo-secret-that-must-not-leak-4f1c9a"


@pytest.mark.slow
def test_demo_runs_every_dag_to_success_without_showing_the_secret():
    env = {**os.environ, "MESSAGING_PLATFORM_EMULATOR_API_SECRET": SECRET}
    env.pop("AIRFLOW_HOME")  # the demo makes its own
    out = subprocess.run(
        [sys.executable, str(SCRIPTS / "demo.py")], env=env, capture_output=True, text=True, timeout=600
    )
    text = out.stdout + out.stderr
    assert out.returncode == 0, text[-4000:]
    dag_ids = sorted(p.stem for p in EXAMPLE_DAGS.glob("messaging_platform_*.py"))
    rows = {line.split()[0]: line for line in text.splitlines() if line.split()[1:2] == ["success"]}
    for dag_id in dag_ids:
        assert dag_id in rows, text[-4000:]
    # The account's ids reach the DAGs as params, from the emulator's seed (docs/emulator.md), as a user gives them.
    assert rows["messaging_platform_schedule_reconcile"].endswith('{"action_id": 5001}')
    assert '"contact_list_id": 4001' in rows["messaging_platform_voice_call_push"]
    assert '"channel": 22, "keyword_id": 8001' in rows["messaging_platform_campaign_launch"]
    assert "(DAG output, task logs, metadata database): clean" in text
    assert SECRET not in text


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
