"""
`make test` several times in a row on a clean clone while another `make test` runs beside it (both cores busy),
as a check that no test depends on an idle machine (`make soak`).

    python scripts/soak.py [--runs 5] [--rev HEAD]

Two clones of ``--rev`` under build/soak/: ``measured`` runs ``make test`` ``--runs`` times, one after the other;
``beside`` runs ``make test`` over and over until the measured runs are done (then it is stopped). Each clone
builds its own venv, as a fresh machine would. Every run's output goes to build/soak/<clone>-<n>.log; a line per
measured run is printed as it ends, then a table. Exit status 1 if any measured run failed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOAK = REPO / "build" / "soak"
SUMMARY = re.compile(r"^=+ (.* in [0-9.]+s.*) =+$")


def clone(name: str, rev: str) -> Path:
    folder = SOAK / name
    shutil.rmtree(folder, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", "--no-checkout", str(REPO), str(folder)], check=True)
    subprocess.run(["git", "-C", str(folder), "checkout", "--quiet", rev], check=True)
    return folder


def make_test(folder: Path, log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("AIRFLOW", "VIRTUAL_ENV"))}
        return subprocess.Popen(
            ["make", "test"], cwd=folder, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )


def summary(log: Path) -> str:
    lines = [m.group(1) for line in log.read_text(errors="replace").splitlines() if (m := SUMMARY.match(line))]
    return lines[-1] if lines else "(no pytest summary: see the log)"


def stop(process: subprocess.Popen[bytes]) -> None:
    """Interrupt a run as Ctrl-C would, so pytest's fixtures stop their servers; harder signals if it hangs."""
    for sig, grace in ((signal.SIGINT, 120), (signal.SIGTERM, 30), (signal.SIGKILL, 30)):
        if process.poll() is not None:
            return
        os.killpg(process.pid, sig)
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            continue


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rev", default="HEAD")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the finally below stops both clones' runs
    rev = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", args.rev], check=True, capture_output=True, text=True
    ).stdout.strip()
    SOAK.mkdir(parents=True, exist_ok=True)
    measured, beside = clone("measured", rev), clone("beside", rev)
    print(f"soak of {rev[:10]}: {args.runs} measured runs of `make test`, another `make test` looping beside them")

    done = threading.Event()
    beside_runs: list[tuple[int, str]] = []
    current: list[subprocess.Popen[bytes]] = []

    def loop_beside() -> None:
        n = 0
        while not done.is_set():
            n += 1
            log = SOAK / f"beside-{n}.log"
            process = make_test(beside, log)
            current[:] = [process]
            code = process.wait()
            if not done.is_set():
                beside_runs.append((code, summary(log)))

    thread = threading.Thread(target=loop_beside, name="beside")
    thread.start()
    results: list[tuple[int, float, str]] = []
    measured_run: list[subprocess.Popen[bytes]] = []  # stopped too when the soak is interrupted mid-run
    try:
        for n in range(1, args.runs + 1):
            log = SOAK / f"measured-{n}.log"
            started = time.monotonic()
            measured_run[:] = [make_test(measured, log)]
            code = measured_run[0].wait()
            seconds = time.monotonic() - started
            results.append((code, seconds, summary(log)))
            print(f"run {n}: exit {code} in {seconds:.0f} s: {results[-1][2]}", flush=True)
    finally:
        done.set()
        for process in [*measured_run, *current]:
            stop(process)
        thread.join()

    print("\n| run | exit | seconds | pytest |\n|---|---|---|---|")
    for n, (code, seconds, text) in enumerate(results, 1):
        print(f"| {n} | {code} | {seconds:.0f} | {text} |")
    print(f"\nbeside: {len(beside_runs)} complete runs, exits {[code for code, _ in beside_runs]}")
    failed = sum(code != 0 for code, _, _ in results)
    print(f"measured runs failed: {failed} of {len(results)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
