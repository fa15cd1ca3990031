"""
Run every example DAG in ``dags/`` with ``airflow dags test`` against a freshly started emulator.

Steps: start the emulator on a free port (its connection URI goes to a 0600 file, never to the screen), make a
throwaway AIRFLOW_HOME with a SQLite metadata database, point ``messaging_platform_default`` at the emulator
through an environment variable, read the seeded account's ids from the emulator (``GET /_emulator/seed``), run
each DAG with those ids as its params (``airflow dags test <dag id> --conf '<json>'``, as a user passes their
account's ids; all in one process, ``scripts/dags_test.py``, so that Airflow starts once), print a table of DAG id,
final state, duration, how many platform calls it made, what it created and deleted on the platform (from the
emulator's request record) and the params it got, scan all output and log files for the API secret, stop the
emulator. Exits non-zero if any DAG fails or the secret leaks.
The convention is one DAG per file, named like its DAG id.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from messaging_platform_emulator.connection import uri_extras
from messaging_platform_emulator.control_client import EmulatorControl
from messaging_platform_emulator.process import spawn as spawn_emulator, stop as stop_emulator

REPO = Path(__file__).resolve().parent.parent
DAGS = REPO / "dags"
BIN = Path(sys.executable).parent

DEMO_LONG_CODE = "+15125550100"  # the emulator places voice calls from any E.164 long code
DEMO_CALL_TO = "+15550100000"  # the phone number of the emulator's first seeded contact
# No receiver runs in the demo: the emulator POSTs to a Keyword callback record's URL only when a keyword is texted.
DEMO_RECEIVER = "https://receiver.example.com/messaging-platform/keyword"
# The keyword-callbacks example is started by asset events, which carry no params: its long code is a Variable.
# The on-call alert's notifier reads whom to call, and from where, from Variables when a task fails.
VARIABLES = {
    "messaging_platform_welcome_long_code": DEMO_LONG_CODE,
    "messaging_platform_on_call_long_code": DEMO_LONG_CODE,
    "messaging_platform_on_call_phone": DEMO_CALL_TO,
}


def dag_params(seed: dict[str, Any], home: Path) -> dict[str, dict[str, Any]]:
    """Each example DAG's params as a user passes them: the account's ids, here those the emulator seeded."""
    return {
        "messaging_platform_campaign_launch": {
            "channel": seed["channel_id"],
            "keyword_id": seed["keyword_id"],
            "callback_url": DEMO_RECEIVER,
        },
        "messaging_platform_contacts_export": {"destination": (home / "exports").as_uri()},
        "messaging_platform_hook_walkthrough": {"from_long_code": DEMO_LONG_CODE, "call_to": DEMO_CALL_TO},
        "messaging_platform_schedule_reconcile": {"action_id": seed["action_id"]},
        "messaging_platform_voice_call_push": {
            "contact_list_id": seed["contact_list_id"],
            "from_long_code": DEMO_LONG_CODE,
        },
    }


def run(cmd: list[str], env: dict[str, str], log: Path) -> tuple[int, float]:
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    return code, time.monotonic() - started


def changes_since(control: EmulatorControl, seq: int, until: int | None = None) -> tuple[int, str, str, int]:
    """
    The platform calls made after request ``seq`` (up to request ``until``): how many, what they created and deleted
    (counts per resource, from the emulator's record); and the last request's number.
    """
    records = [r for r in control.requests(since=seq) if until is None or r["seq"] <= until]
    created: Counter[str] = Counter()
    deleted: Counter[str] = Counter()
    for record in records:
        parts = [p for p in record["path"].split("/") if p]
        if record["method"] == "POST" and record["status"] == 201:
            created[next(p for p in reversed(parts) if not p.isdigit())] += 1
        elif record["method"] == "DELETE" and 200 <= (record["status"] or 0) < 300:
            deleted[parts[-2]] += 1  # .../<resource>/<id>
    last = max((r["seq"] for r in records), default=seq)
    return len(records), _counts(created), _counts(deleted), last


def _counts(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "-"


def leaked_files(secret: str, roots: list[Path]) -> list[Path]:
    hits = []
    for root in roots:
        for path in root.rglob("*"):
            if path.is_file() and path.suffix != ".uri":
                try:
                    if secret in path.read_text(errors="ignore"):
                        hits.append(path)
                except OSError:
                    continue
    return hits


def main() -> int:
    home = Path(tempfile.mkdtemp(prefix="messaging-platform-demo-"))
    dag_ids = sorted(p.stem for p in DAGS.glob("messaging_platform_*.py"))
    print(f"Demo home (throwaway AIRFLOW_HOME): {home}")
    seq = 0
    params: dict[str, dict[str, Any]] = {}
    results: list[tuple[str, str, float, int, str, str]] = []
    control: EmulatorControl | None = None
    api_server = None
    emulator, uri = spawn_emulator(home)  # a failed start stops the emulator itself
    try:  # from here on, whatever fails stops the emulator and the API server
        for line in (home / "emulator.log").read_text().splitlines():
            print(f"  emulator | {line}")
        secret = unquote(urlsplit(uri).password or "")
        env = {
            **os.environ,
            "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "AIRFLOW_HOME": str(home),
            "AIRFLOW__CORE__DAGS_FOLDER": str(DAGS),
            "AIRFLOW__CORE__LOAD_EXAMPLES": "False",
            "AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT": uri,
            **{f"AIRFLOW_VAR_{name.upper()}": value for name, value in VARIABLES.items()},
        }
        root = uri_extras(uri)["base_url"].removesuffix("/api/v2.1")
        control = EmulatorControl(root)
        params = dag_params(control.seed(), home)
        print("Params from the emulator's seed (GET /_emulator/seed), passed with `airflow dags test <dag id> --conf`:")
        for dag_id in dag_ids:
            print(f"  {dag_id}: {json.dumps(params[dag_id]) if dag_id in params else '-'}")
        for name, value in VARIABLES.items():
            print(f"Airflow Variable {name} = {value} (environment variable AIRFLOW_VAR_{name.upper()})")
        code, took = run([str(BIN / "airflow"), "db", "migrate"], env, home / "db-migrate.log")
        print(f"Metadata database ready in {took:.1f} s" if code == 0 else "airflow db migrate failed")
        if code != 0:
            print((home / "db-migrate.log").read_text()[-3000:])
            return 1
        # The key-rotation example writes the new secret through Airflow's REST API: give it a real API server
        # on this home, and the database connection it rotates.
        os.environ["AIRFLOW_HOME"] = str(home)  # whatever of Airflow this process loads stays in the demo home
        sys.path.insert(0, str(REPO))  # the Airflow API-server harness is a test helper (tests/support)
        from tests.support.airflow_api_harness import start_for_rotation_example, wire_secrets

        api_server = start_for_rotation_example(home, env, uri)
        print(f"Airflow API server for the rotation example: {api_server.url}")
        *_, seq = changes_since(control, seq)  # the table counts only what each DAG created and deleted
        # Every DAG through Airflow's CLI (`airflow dags test <dag id> --conf <json>`), all in one process so that
        # Airflow starts once (scripts/dags_test.py); its output, filtered at [logging] logging_level on every
        # Airflow version (3.0 prints debug lines there, secrets among them), goes to one log.
        plan = home / "dags-test-plan.json"
        plan.write_text(json.dumps({"emulator": root, "dags": [{"dag_id": d, "conf": params.get(d)} for d in dag_ids]}))
        log, report = home / "dags-test.log", home / "dags-test-results.jsonl"
        code, _ = run([sys.executable, str(REPO / "scripts" / "dags_test.py"), str(plan), str(report)], env, log)
        for line in report.read_text().splitlines() if report.exists() else []:
            result = json.loads(line)
            calls, created, deleted, seq = changes_since(control, seq, until=result["last_request"])
            results.append((result["dag_id"], result["state"], result["seconds"], calls, created, deleted))
        if code != 0 or len(results) != len(dag_ids):
            print(f"--- last lines of {log} ---")
            print("\n".join(log.read_text().splitlines()[-80:]))
        # Every secret that went over the wire: the seeded key's, and those of the keys the rotation example made.
        secrets = {secret, *wire_secrets(root + "/_emulator")} - {""}
    finally:
        try:
            if api_server is not None:
                api_server.stop()
            if control is not None:
                control.close()
        finally:
            stop_emulator(emulator)

    header = ("DAG id", "state", "duration", "calls", "created on the platform", "deleted", "params")
    rows = [
        (
            dag_id,
            state,
            f"{took:6.1f} s",
            str(calls),
            created,
            deleted,
            json.dumps(params[dag_id]) if dag_id in params else "-",
        )
        for dag_id, state, took, calls, created, deleted in results
    ]
    w = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    print()
    for row in [header, *rows]:
        print("  ".join(f"{cell:>{w[i]}}" if i in (2, 3) else f"{cell:<{w[i]}}" for i, cell in enumerate(row)).rstrip())
    leaks = sorted({str(p) for s in secrets for p in leaked_files(s, [home])})
    print(
        f"\nSecret scan of {home} for {len(secrets)} secrets (DAG output, task logs, metadata database): "
        + (f"LEAKED in {leaks}" if leaks else "clean")
    )
    ok = bool(results) and all(state == "success" for _, state, *_ in results) and not leaks
    if ok:
        shutil.rmtree(home, ignore_errors=True)
    else:
        print(f"Kept {home} for inspection.")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
