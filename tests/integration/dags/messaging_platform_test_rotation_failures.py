"""
Test DAG (not an example): one task per failure point of the API key rotation (``docs/rotation.md``).

Each task gives the database connection ``messaging_platform_rotated`` a fresh key, injects one failure (an emulator
fault for platform calls; a wrapper around the real ``AirflowConnectionTarget`` for what the Airflow API server or
the worker's connection read cannot be made to do on demand; a simulated kill between steps), runs the rotation,
then checks what the connection holds the way workers read it, with a real platform call. It then runs the rotation
again with the same run token and task state store, as Airflow's retry of the task would, and checks again.

Each task returns one row (no secret): the failure point, the error, whether the credential works, the keys left.
``tests/rotation/test_rotation_failures.py`` and ``scripts/rotation_failure_table.py`` run it and read the rows.
Needs ``messaging_platform_default`` (the emulator), ``airflow_api_default`` (an API server on the same database).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from airflow.sdk import DAG, task

MANAGER_CONN_ID = "messaging_platform_default"
TARGET_CONN_ID = "messaging_platform_rotated"
AIRFLOW_API_CONN_ID = "airflow_api_default"
SHADOW_VAR = f"AIRFLOW_CONN_{TARGET_CONN_ID.upper()}"

# name -> what is injected. faults: emulator rules; reads/writes: the n-th call of the target fails ("fail") or,
# for writes, lands and then fails ("land_then_fail"); other_rotation_before_read: before the n-th read, another
# rotation stores its own key; kill: the worker dies right after that checkpoint; shadow: an AIRFLOW_CONN_ variable
# with the old credential hides the database connection from workers.
SCENARIOS: dict[str, dict[str, Any]] = {
    "read_target": {"what": "reading the target fails", "reads": {1: "fail"}},
    "find_old_key": {
        "what": "listing the keys fails (HTTP 500)",
        "faults": [{"kind": "status", "status": 500, "method": "GET", "path": "/api-key$"}],
    },
    "create_answer_lost": {
        "what": "create committed, answer lost",
        "faults": [{"kind": "commit_then_drop", "method": "POST", "path": "/api-key$"}],
    },
    "create_failed": {
        "what": "create fails twice (HTTP 503)",
        "faults": [{"kind": "status", "status": 503, "method": "POST", "path": "/api-key$", "count": 2}],
    },
    "create_lost_reread_failed": {
        "what": "create answer lost, re-reading the key fails (HTTP 500)",
        "faults": [
            {"kind": "commit_then_drop", "method": "POST", "path": "/api-key$"},
            {"kind": "status", "status": 500, "method": "GET", "path": "/api-key/[0-9]+$"},
        ],
    },
    "verify_new_key": {
        "what": "new key fails its first call (HTTP 401)",
        "faults": [{"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"}],
    },
    "concurrent_rotation": {
        "what": "another rotation stores its key first",
        "other_rotation_before_read": 2,
    },
    "store_failed": {"what": "writing the connection fails (API server 503)", "writes": {1: "fail"}},
    "store_answer_lost": {"what": "write lands, its answer is lost", "writes": {1: "land_then_fail"}},
    "store_unknown": {
        "what": "write answer lost and the read-back fails",
        "writes": {1: "land_then_fail"},
        "reads": {3: "fail"},
    },
    "read_back_failed": {"what": "reading back after the store fails", "reads": {3: "fail"}},
    "shadowed_connection": {
        "what": "workers see an AIRFLOW_CONN_ variable, not the database",
        "shadow": True,
    },
    "verify_stored": {
        "what": "stored credential fails its call (HTTP 401)",
        "faults": [
            {"kind": "delay", "delay": 0, "method": "GET", "path": "/campaign$"},
            {"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},
        ],
    },
    "roll_back_failed": {
        "what": "stored credential fails its call, then writing the old one back fails",
        "faults": [
            {"kind": "delay", "delay": 0, "method": "GET", "path": "/campaign$"},
            {"kind": "status", "status": 401, "method": "GET", "path": "/campaign$"},
        ],
        "writes": {2: "fail"},
    },
    "revoke_old_key": {
        "what": "revoking the old key fails (HTTP 500)",
        "faults": [{"kind": "status", "status": 500, "method": "DELETE", "path": "/api-key/[0-9]+$"}],
    },
    "killed_after_old_key_recorded": {"what": "worker killed after recording the old key", "kill": "old_key_recorded"},
    "killed_after_new_key_created": {"what": "worker killed after creating the new key", "kill": "new_key_created"},
    "killed_after_new_key_verified": {"what": "worker killed after verifying the new key", "kill": "new_key_verified"},
    "killed_after_stored": {"what": "worker killed after storing the new key", "kill": "stored"},
    "killed_after_stored_verified": {"what": "worker killed after the read-back check", "kill": "stored_verified"},
    "killed_after_old_key_revoked": {"what": "worker killed after revoking the old key", "kill": "old_key_revoked"},
}


class Killed(BaseException):
    """A worker dying between two steps: nothing of the rotation catches it, so no cleanup runs."""


class ScriptedTarget:
    """The real target, with the n-th read or write failing as the scenario says (counted from 1)."""

    def __init__(self, inner: Any, spec: dict[str, Any], other_rotation: Callable[[], None]) -> None:
        self.inner = inner
        self.spec = spec
        self.other_rotation = other_rotation
        self.reads = 0
        self.writes = 0

    @property
    def name(self) -> str:
        return str(self.inner.name)

    def read(self) -> Any:
        self.reads += 1
        if self.spec.get("other_rotation_before_read") == self.reads:
            self.other_rotation()
        if self.spec.get("reads", {}).get(self.reads) == "fail":
            raise RuntimeError("the execution API did not answer")
        return self.inner.read()

    def write(self, credential: Any) -> None:
        from messaging_platform_provider.rotation.airflow_api import AirflowApiError

        self.writes += 1
        action = self.spec.get("writes", {}).get(self.writes)
        path = f"/api/v2/connections/{TARGET_CONN_ID}"
        if action == "fail":
            raise AirflowApiError("PATCH", path, 503, "Service Unavailable")
        self.inner.write(credential)
        if action == "land_then_fail":
            raise AirflowApiError("PATCH", path, None, "ReadTimeout")


def _put_target(api: Any, manager: Any, key: dict[str, Any]) -> None:
    """Give the database connection ``key`` (created if missing), through the REST API."""
    from messaging_platform_provider.rotation.airflow_api import AirflowApiError

    fields = {
        "login": key["Key"],
        "password": key["Secret"],
        "extra": json.dumps({"base_url": manager.client.base_url, "account_id": manager.client.account_id}),
    }
    try:
        api.update_connection(TARGET_CONN_ID, fields, conn_type="messagingplatform")
    except AirflowApiError as exc:
        if exc.status != 404:
            raise
        api.create_connection({"connection_id": TARGET_CONN_ID, "conn_type": "messagingplatform", **fields})


def _works(manager: Any, credential: Any) -> bool:
    from messaging_platform_provider.client.client import MessagingPlatformClient
    from messaging_platform_provider.client.errors import MessagingPlatformApiError

    if credential is None:
        return False
    base = manager.client
    with MessagingPlatformClient(base.base_url, credential.key, credential.secret, account_id=base.account_id) as c:
        try:
            c.list_campaigns(only_mine=True)
        except MessagingPlatformApiError:
            return False
    return True


def _state(name: str, manager: Any, target: Any, old_key_id: int) -> dict[str, Any]:
    """Which keys of this scenario are left, which one the connection holds, and whether it works."""
    names = {f"Workload {name}": "old", f"Other {name}": "other"}
    keys = {}
    for key in manager.list_api_keys():
        label = str(key["Label"])
        who = names.get(label) or ("new" if label.startswith(f"Rotated {name} [af:") else None)
        if who:
            keys[key["Key"]] = who
    credential = target.read()
    works = _works(manager, credential)
    return {
        "works": works,
        "lockout": not works,
        "holds": keys.get(credential.key, "unknown") if credential else "nothing",
        "keys_left": sorted(keys.values(), key=["old", "new", "other"].index),
        "old_key_id": old_key_id,
    }


def run_scenario(name: str, context: Any) -> dict[str, Any]:
    from messaging_platform_emulator.control_client import EmulatorControl
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.rotation.airflow_api import AirflowRestApi
    from messaging_platform_provider.rotation.airflow_target import AirflowConnectionTarget
    from messaging_platform_provider.rotation.results import RotationError
    from messaging_platform_provider.rotation.rotate import ApiKeyRotation
    from messaging_platform_provider.tasks.state import once_for_task

    spec = SCENARIOS[name]
    manager = MessagingPlatformHook(MANAGER_CONN_ID)
    control = EmulatorControl(manager.client.base_url.removesuffix("/api/v2.1"))
    api = AirflowRestApi.from_connection(AIRFLOW_API_CONN_ID)
    control.clear_faults()
    old = manager.create_api_key(f"Workload {name}")
    _put_target(api, manager, old)
    target = AirflowConnectionTarget(TARGET_CONN_ID, AIRFLOW_API_CONN_ID)

    def other_rotation() -> None:
        _put_target(api, manager, manager.create_api_key(f"Other {name}"))

    def kill_at(step: str) -> None:
        if step == spec.get("kill"):
            raise Killed(step)

    once = once_for_task(context)
    row: dict[str, Any] = {"point": name, "order": list(SCENARIOS).index(name), "injected": spec["what"]}
    if spec.get("shadow"):
        os.environ[SHADOW_VAR] = json.dumps(
            {"conn_type": "messagingplatform", "login": old["Key"], "password": old["Secret"]}
            | {"extra": {"base_url": manager.client.base_url, "account_id": manager.client.account_id}}
        )
    for rule in spec.get("faults", []):
        control.add_fault(**rule)
    try:
        rotation = ApiKeyRotation(
            manager,
            ScriptedTarget(target, spec, other_rotation),
            once=once,
            key_label=f"Rotated {name}",
            on_step=kill_at,
        )
        result = rotation.run()
        row.update(error="", step="", rolled_back=False, message="; ".join(result.notes))
    except RotationError as exc:
        row.update(error="RotationError", step=exc.step, rolled_back=exc.rolled_back, message=str(exc))
    except Killed as exc:
        row.update(error="(worker killed)", step=str(exc), rolled_back=False, message="")
    finally:
        control.clear_faults()
        control.close()
        os.environ.pop(SHADOW_VAR, None)
    row.update(_state(name, manager, target, int(old["Id"])))

    # Airflow's retry of the task: a new try, the same run token and task state store, no fault.
    retry = ApiKeyRotation(MessagingPlatformHook(MANAGER_CONN_ID), target, once=once, key_label=f"Rotated {name}")
    try:
        outcome = retry.run()
        row["retry"] = "resumed" if outcome.resumed else "rotated"
    except RotationError as exc:
        row["retry"] = f"failed: {exc}"
    after = _state(name, manager, target, int(old["Id"]))
    row["retry_works"] = after["works"]
    row["retry_holds"] = after["holds"]
    row["retry_keys_left"] = after["keys_left"]
    return row


with DAG(
    dag_id="messaging_platform_test_rotation_failures",
    schedule=None,
    start_date=datetime(2026, 1, 1, tzinfo=timezone.utc),
    max_active_runs=1,
    tags=["test"],
):
    for scenario_name in SCENARIOS:

        @task(task_id=scenario_name)
        def scenario(name: str = scenario_name, **context: Any) -> dict[str, Any]:
            return run_scenario(name, context)

        scenario()
