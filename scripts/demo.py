"""
Run every example DAG in ``dags/`` with ``airflow dags test`` against a freshly started emulator.

Steps: start the emulator on a free port (its connection URI goes to a 0600 file, never to the screen), make a
throwaway AIRFLOW_HOME with a SQLite metadata database, point ``messaging_platform_default`` at the emulator
through an environment variable, run each DAG, print a table of DAG id, final state, duration and what it created
on the platform (from the emulator's request record), scan all output and log files for the API secret, stop the
emulator. Exits non-zero if any DAG fails or the secret leaks.
The convention is one DAG per file, named like its DAG id.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

import requests

from messaging_platform_emulator.process import spawn as spawn_emulator

REPO = Path(__file__).resolve().parent.parent
DAGS = REPO / "dags"
BIN = Path(sys.executable).parent


def run(cmd: list[str], env: dict[str, str], log: Path) -> tuple[int, float]:
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
    return code, time.monotonic() - started


def created_since(control: str, seq: int) -> tuple[str, int]:
    """What the platform created since request ``seq``: a count per resource, from the emulator's record."""
    records = requests.get(f"{control}/requests", params={"since": seq}, timeout=10).json()
    counts: Counter[str] = Counter()
    for record in records:
        if record["method"] == "POST" and record["status"] == 201:
            counts[next(p for p in reversed(record["path"].split("/")) if p and not p.isdigit())] += 1
    last = max((r["seq"] for r in records), default=seq)
    return ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "-", last


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
    emulator, uri = spawn_emulator(home)
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
    }
    control = parse_qs(urlsplit(uri).query)["base_url"][0].removesuffix("/api/v2.1") + "/_emulator"
    seq = 0
    results: list[tuple[str, str, float, str]] = []
    api_server = None
    try:
        code, took = run([str(BIN / "airflow"), "db", "migrate"], env, home / "db-migrate.log")
        print(f"Metadata database ready in {took:.1f} s" if code == 0 else "airflow db migrate failed")
        if code != 0:
            print((home / "db-migrate.log").read_text()[-3000:])
            return 1
        # The key-rotation example writes the new secret through Airflow's REST API: give it a real API server
        # on this home, and the database connection it rotates.
        os.environ["AIRFLOW_HOME"] = str(home)  # whatever of Airflow this process loads stays in the demo home
        from messaging_platform_emulator.airflow_api_server import start_for_rotation_example, wire_secrets

        api_server = start_for_rotation_example(home, env, uri)
        print(f"Airflow API server for the rotation example: {api_server.url}")
        _, seq = created_since(control, seq)  # the table counts only what each DAG created
        for dag_id in dag_ids:
            log = home / f"{dag_id}.log"
            code, took = run([str(BIN / "airflow"), "dags", "test", dag_id], env, log)
            created, seq = created_since(control, seq)
            results.append((dag_id, "success" if code == 0 else "failed", took, created))
            if code != 0:
                print(f"--- last lines of {log} ---")
                print("\n".join(log.read_text().splitlines()[-60:]))
        # Every secret that went over the wire: the seeded key's, and those of the keys the rotation example made.
        secrets = {secret, *wire_secrets(control)} - {""}
    finally:
        if api_server is not None:
            api_server.stop()
        emulator.terminate()
        emulator.wait(timeout=15)

    width = max([len("DAG id"), *(len(d) for d, *_ in results)])
    print(f"\n{'DAG id':<{width}}  {'state':<8}  {'duration':>8}  created on the platform")
    for dag_id, state, took, created in results:
        print(f"{dag_id:<{width}}  {state:<8}  {took:6.1f} s  {created}")
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
