"""
Inject a failure at every failure point of the API key rotation and print what each one left behind.

Starts the emulator and an Airflow API server (simple auth manager, all-admins) on loopback with a throwaway
AIRFLOW_HOME, then runs ``airflow dags test messaging_platform_test_rotation_failures`` (tests/integration/dags):
one task per failure point, each giving the database connection ``messaging_platform_rotated`` a fresh key,
injecting the failure, running the rotation, and checking the connection as workers read it with a real platform
call; then the same again as a retry of the task. Prints a markdown table (failure point, error raised, whether the
credential in the target works, lockout, keys left, what a retry does), the full error messages, a run of the
example DAG ``messaging_platform_api_key_rotation`` under ``airflow dags test``, and a scan of every file left for
any secret.

    .venv/bin/python scripts/rotation_failure_table.py

Exits non-zero on any lockout, failed run or leaked secret. Output is pasted into docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TEST_DAGS = REPO / "tests" / "integration" / "dags"

sys.path.insert(0, str(REPO))  # the Airflow API-server harness is a test helper (tests/support)
from messaging_platform_emulator.control_client import EmulatorControl  # noqa: E402
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator  # noqa: E402
from tests.support.airflow_api_harness import (  # noqa: E402
    AirflowApiServer,
    files_containing,
    manager_from_uri,
    prepare_rotated_connection,
    wire_secrets,
    xcom_value,
)

FAILURE_DAG = "messaging_platform_test_rotation_failures"
EXAMPLE_DAG = "messaging_platform_api_key_rotation"


def airflow(args: list[str], env: dict[str, str], log: Path) -> tuple[int, float]:
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call([str(BIN / "airflow"), *args], env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    return code, time.monotonic() - started


def last_run_id(server: AirflowApiServer, dag_id: str) -> str:
    runs = server.api().get(f"/api/v2/dags/{dag_id}/dagRuns", params={"order_by": "-run_after", "limit": 1})
    return str(runs["dag_runs"][0]["dag_run_id"])


def error_cell(row: dict[str, Any]) -> str:
    if row["error"] == "RotationError":
        return f"RotationError at `{row['step']}`" + (", rolled back" if row["rolled_back"] else "")
    if row["error"]:
        return f"(worker killed after `{row['step']}`)"
    return "none: recovered" if row["message"] else "none"


def retry_cell(row: dict[str, Any]) -> str:
    if row["retry"].startswith("failed"):
        what = "stops: another rotation owns the target"
    else:
        what = row["retry"]
    works = "works" if row["retry_works"] else "BROKEN"
    return f"{what}; holds {row['retry_holds']} ({works}); keys left: {', '.join(row['retry_keys_left'])}"


def table(rows: list[dict[str, Any]]) -> str:
    head = [
        "failure point",
        "injected",
        "error raised",
        "credential in target works",
        "lockout",
        "target holds",
        "keys left",
        "a retry of the task",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [
            f"`{row['point']}`",
            row["injected"],
            error_cell(row),
            "yes" if row["works"] else "**NO**",
            "**YES**" if row["lockout"] else "no",
            row["holds"],
            ", ".join(row["keys_left"]),
            retry_cell(row),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="messaging-platform-rotation-"))
    bundles = [
        {"name": name, "classpath": "airflow.dag_processing.bundles.local.LocalDagBundle", "kwargs": {"path": str(p)}}
        for name, p in (("examples", REPO / "dags"), ("tests", TEST_DAGS))
    ]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW_CONN_", "AIRFLOW__"))},
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "AIRFLOW_HOME": str(home),
        "AIRFLOW__CORE__DAGS_FOLDER": str(REPO / "dags"),
        "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
        "AIRFLOW__DAG_PROCESSOR__DAG_BUNDLE_CONFIG_LIST": json.dumps(bundles),
    }
    os.environ["AIRFLOW_HOME"] = str(home)  # Airflow code this process loads (the masker) stays in the home too
    print(f"Throwaway AIRFLOW_HOME: {home}")
    code, took = airflow(["db", "migrate"], env, home / "db-migrate.log")
    if code != 0:
        print((home / "db-migrate.log").read_text()[-3000:])
        return 1
    print(f"Metadata database ready in {took:.1f} s")
    emulator, uri = spawn_emulator(home, env=env)  # a failed start stops the emulator itself
    server: AirflowApiServer | None = None
    ok = True
    try:  # from here on, whatever fails stops the emulator and the API server
        server = AirflowApiServer(home, env=env).start()  # a failed start stops the server itself
        print(f"Emulator and Airflow API server ({server.url}) up")
        env["AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT"] = uri
        env["AIRFLOW_CONN_AIRFLOW_API_DEFAULT"] = server.connection_uri
        manager = manager_from_uri(uri)
        control = EmulatorControl(manager.base_url.removesuffix("/api/v2.1"))

        code, took = airflow(["dags", "test", FAILURE_DAG], env, home / f"{FAILURE_DAG}.log")
        print(f"`airflow dags test {FAILURE_DAG}`: {'success' if code == 0 else 'FAILED'} in {took:.1f} s")
        if code != 0:
            print("\n".join((home / f"{FAILURE_DAG}.log").read_text().splitlines()[-60:]))
            return 1
        run_id = last_run_id(server, FAILURE_DAG)
        api = server.api()
        tasks = [t["task_id"] for t in api.get(f"/api/v2/dags/{FAILURE_DAG}/tasks")["tasks"]]
        ordered = sorted((xcom_value(api, FAILURE_DAG, run_id, t) for t in tasks), key=lambda r: r["order"])
        lockouts = sum(bool(r["lockout"]) or not r["retry_works"] for r in ordered)
        ok = ok and lockouts == 0

        prepare_rotated_connection(server, manager)
        code, took = airflow(["dags", "test", EXAMPLE_DAG], env, home / f"{EXAMPLE_DAG}.log")
        example_run = last_run_id(server, EXAMPLE_DAG)
        example = xcom_value(api, EXAMPLE_DAG, example_run, "rotate_api_key") if code == 0 else {}
        ok = ok and code == 0

        alive = {manager.get_api_key(k["Id"])["Secret"] for k in manager.list_api_keys()}
        secrets = wire_secrets(control) | alive
        server.stop()
        # The emulator's connection file (mode 0600) is the one place the seeded secret is meant to be.
        leaks = [p for p in files_containing(home, secrets) if not p.endswith("emulator-connection.uri")]
        ok = ok and not leaks

        print(f"\nDate: {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
        print("Command: .venv/bin/python scripts/rotation_failure_table.py\n")
        print(table(ordered))
        print(
            f"\n**{len(ordered)} failure points, {lockouts} lockouts.** Every retry ends with the target on a "
            "working key; keys left after it: the new key only (or, when another rotation took over, that "
            "rotation's key and the old one it is about to revoke)."
        )
        print("\nError messages, as raised (no secret; key ids only):\n")
        for row in ordered:
            if row["error"] == "RotationError":
                text = row["message"]
            elif row["error"]:
                text = "(the worker died there: nothing raised, nothing cleaned up)"
            else:
                text = f"(nothing raised) recovered: {row['message']}" if row["message"] else "(nothing raised)"
            print(f"- `{row['point']}`: {text}")
        print(
            f"\nExample DAG: `airflow dags test {EXAMPLE_DAG}` {'success' if code == 0 else 'FAILED'} in "
            f"{took:.1f} s: old key {example.get('old_key_id')} revoked, new key {example.get('new_key_id')} "
            f"({example.get('new_key_label')}) in `messaging_platform_rotated`."
        )
        print(
            f"Secret scan of {home} ({len(secrets)} secrets that went over the wire or are alive; task logs, "
            f"metadata database, server output): {'LEAKED in ' + str(leaks) if leaks else 'clean'}"
        )
    finally:
        try:
            if server is not None:
                server.stop()
        finally:
            stop_emulator(emulator)
    if ok:
        shutil.rmtree(home, ignore_errors=True)
    else:
        print(f"Kept {home} for inspection.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
