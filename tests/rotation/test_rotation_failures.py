"""
A failure injected at every step of the rotation leaves a working credential in the connection and a clear error,
and a retry of the task (same run token and task state store) finishes the rotation: exactly one new key, the old
one revoked. The scenarios live in ``tests/integration/dags/messaging_platform_test_rotation_failures.py``; each
task reads the connection the way a worker does and checks it with a real platform call.
"""

from __future__ import annotations

from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.rotation.results import STEPS
from tests.support.airflow_api_harness import (
    wire_secrets,
    xcom_value,
)
from tests.support.airflow_versions import airflow_logs_at_level, dag_bag
from tests.support.paths import TEST_DAGS

#: The fixtures (one API server per session) come from the fixture module, registered as a plugin.

DAG_ID = "messaging_platform_test_rotation_failures"

# failure point -> (step of the RotationError, or "" when the rotation recovered; what the connection holds;
# the keys of the scenario left on the platform)
EXPECTED: dict[str, tuple[str, str, list[str]]] = {
    "read_target": ("read_target", "old", ["old"]),
    "find_old_key": ("find_old_key", "old", ["old"]),
    "create_answer_lost": ("", "new", ["new"]),
    "create_failed": ("create_new_key", "old", ["old"]),
    "create_lost_reread_failed": ("create_new_key", "old", ["old"]),
    "verify_new_key": ("verify_new_key", "old", ["old"]),
    "concurrent_rotation": ("check_target", "other", ["old", "other"]),
    "store_failed": ("store", "old", ["old"]),
    "store_answer_lost": ("", "new", ["new"]),
    "store_unknown": ("store", "new", ["old", "new"]),
    "read_back_failed": ("read_back", "new", ["old", "new"]),
    "shadowed_connection": ("verify_stored", "old", ["old"]),
    "verify_stored": ("verify_stored", "old", ["old"]),
    "roll_back_failed": ("roll_back", "new", ["old", "new"]),
    "revoke_old_key": ("revoke_old_key", "new", ["old", "new"]),
    "killed_after_old_key_recorded": ("old_key_recorded", "old", ["old"]),
    "killed_after_new_key_created": ("new_key_created", "old", ["old", "new"]),
    "killed_after_new_key_verified": ("new_key_verified", "old", ["old", "new"]),
    "killed_after_stored": ("stored", "new", ["old", "new"]),
    "killed_after_stored_verified": ("stored_verified", "new", ["old", "new"]),
    "killed_after_old_key_revoked": ("old_key_revoked", "new", ["new"]),
}


def run_failure_dag(api: Any) -> dict[str, dict[str, Any]]:
    dag = dag_bag(str(TEST_DAGS)).get_dag(DAG_ID)
    with airflow_logs_at_level():
        run = dag.test()
    assert run.state == "success"
    return {ti.task_id: xcom_value(api, DAG_ID, run.run_id, ti.task_id) for ti in run.get_task_instances()}


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_every_failure_point_leaves_a_working_credential_and_a_retry_finishes(
    home_scan, platform, dag_runs, airflow_api, capfd
):
    rows = run_failure_dag(airflow_api.api())
    assert set(rows) == set(EXPECTED)
    for point, (step, holds, keys_left) in EXPECTED.items():
        row = rows[point]
        assert row["works"] is True and row["lockout"] is False, row
        assert (row["step"], row["holds"], row["keys_left"]) == (step, holds, keys_left), row
        if row["error"] == "RotationError":
            assert step in STEPS and f"at step {step!r}" in row["message"] and "The target holds" in row["message"]
        else:
            assert row["error"] in ("", "(worker killed)"), row
        assert row["retry_works"] is True, row
        if point == "concurrent_rotation":  # the other rotation owns the connection: the retry leaves it alone
            assert row["retry"].startswith("failed") and "another rotation" in row["retry"]
            assert (row["retry_holds"], row["retry_keys_left"]) == ("other", ["old", "other"])
        else:
            assert row["retry"] in ("rotated", "resumed") and row["retry_holds"] == "new", row
            assert row["retry_keys_left"] == ["new"], row  # exactly one new key, the old one revoked
    rolled_back = {p for p, r in rows.items() if r["rolled_back"]}
    assert rolled_back == {"shadowed_connection", "verify_stored"}

    # No secret in the captured output, the task logs, the API server's output or the metadata database (XCom,
    # task state store, rendered fields; connection passwords there are encrypted).
    hook = MessagingPlatformHook()
    alive = {hook.get_api_key(k["Id"])["Secret"] for k in hook.list_api_keys()}
    secrets = wire_secrets(platform.control) | alive
    assert len(secrets) > len(EXPECTED)
    captured = capfd.readouterr()
    assert not [s for s in secrets if s in captured.out + captured.err]
    assert home_scan.leaks(secrets) == []
