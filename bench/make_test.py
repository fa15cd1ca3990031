"""
How long `make test` takes on a clean clone, and where its CPU goes.

Clones the committed HEAD into a temporary folder, runs `make test` there (the venv from the package index cache,
ruff, mypy without a cache, the whole suite) and prints its wall time, its CPU time (user + sys of `make` and all it
started), the suite's summary line, and the CPU of each kind of process it started, read from /proc four times a
second (a process that lives less than a quarter second is missed; the total from `getrusage` is exact). Exits 1 if
`make test` failed or took 150 s or more. The clone is removed at the end; `--keep` keeps it.

    .venv/bin/python bench/make_test.py            # figures in docs/testing.md
    .venv/bin/python bench/make_test.py --rev A    # another commit; alternate two to compare them in one hour
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET_S = 150.0
TICK = os.sysconf("SC_CLK_TCK")

#: What each kind of process is called in the table: the first pattern its command line matches.
KINDS = [
    ("pytest workers", r"-c import sys;exec\(eval\(sys\.stdin"),
    ("pytest controller", r"bin/pytest "),
    ("mypy", r"bin/mypy"),
    ("bytecode compile (venv)", r"scripts/(compile_imports|rewrite_asserts)\.py"),
    ("uv and pip (venv)", r"bin/uv |pip"),
    ("demo: dags_test.py", r"scripts/dags_test\.py"),
    ("demo: the rest", r"scripts/demo\.py"),
    ("airflow dags test (secret masking)", r"airflow dags test"),
    ("airflow api-server", r"airflow api-server"),
    ("airflow db migrate", r"airflow db migrate"),
    ("sphinx (docs build)", r"sphinx"),
    ("emulators", r"messaging_platform_emulator"),
    ("trigger probes", r"airflow\.triggers\.base"),
    ("PostgreSQL", r"postgres"),
    ("ruff", r"bin/ruff"),
]


def processes(named: dict[tuple[str, int], str]) -> dict[tuple[str, int], tuple[str, float]]:
    """
    Every other process now: (pid, start time) -> (command line, CPU seconds so far). A command line already in
    ``named`` is not read again (this sampler's own CPU slows what it measures).
    """
    seen = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rfind(")") + 2 :].split()
            key = (pid, int(fields[19]))
            cmdline = named.get(key) or Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace"
            )
        except OSError:
            continue
        seen[key] = (cmdline, (int(fields[11]) + int(fields[12])) / TICK)
    return seen


def sample(stop: threading.Event, cpu: dict[tuple[str, int], list]) -> None:
    """Each process's command line (the first one it showed) and its latest CPU, less what it had at the start."""
    named: dict[tuple[str, int], str] = {}
    before = processes(named)
    while not stop.is_set():
        for key, (cmdline, used) in processes(named).items():
            if key in cpu:
                cpu[key][0] = cpu[key][0] or cmdline
                cpu[key][1] = used - before.get(key, ("", 0.0))[1]
            else:
                cpu[key] = [cmdline, used - before.get(key, ("", 0.0))[1]]
            if cpu[key][0]:
                named[key] = cpu[key][0]
        stop.wait(0.25)


def kind(cmdline: str) -> str:
    return next((name for name, pattern in KINDS if re.search(pattern, cmdline)), "other")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", action="store_true", help="keep the clone and its log")
    parser.add_argument("--rev", default="HEAD", help="the commit to measure (default: HEAD)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="make-test-bench-"))
    clone = folder / "repo"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", args.rev], cwd=clone, check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True).stdout
    cpu: dict[tuple[str, int], list] = {}
    stop = threading.Event()
    sampler = threading.Thread(target=sample, args=(stop, cpu), daemon=True)
    sampler.start()
    log = folder / "make-test.log"
    started = time.monotonic()
    with log.open("w") as out:
        code = subprocess.call(["make", "test"], cwd=clone, stdout=out, stderr=subprocess.STDOUT)
    wall = time.monotonic() - started
    stop.set()
    sampler.join()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    summary = [line.strip("= ") for line in log.read_text().splitlines() if re.search(r" (passed|failed)", line)]
    by_kind: Counter[str] = Counter()
    count: Counter[str] = Counter()
    for cmdline, used in cpu.values():
        if used >= 0.05:
            by_kind[kind(cmdline)] += used
            count[kind(cmdline)] += 1
    print(f"make test on a clean clone of {head.strip()}, {os.cpu_count()} cores")
    print(f"exit {code}; wall {wall:.1f} s; CPU (user + sys) {children.ru_utime + children.ru_stime:.1f} s")
    print(f"the suite: {summary[-1] if summary else 'no summary line'}")
    print(f"\n{'CPU s':>7}  {'procs':>5}  process (sampled from /proc)")
    for name, used in by_kind.most_common():
        print(f"{used:7.1f}  {count[name]:5d}  {name}")
    others = sorted(((used, cmdline) for cmdline, used in cpu.values() if kind(cmdline) == "other"), reverse=True)
    if others:
        print('\nthe largest of "other":')
        for used, cmdline in others[:5]:
            print(f"{used:7.1f}  {' '.join(cmdline.split())[:110]}")
    met = code == 0 and wall < TARGET_S
    print(f"\ntarget: under {TARGET_S:.0f} s: {'met' if met else 'MISSED'} ({wall:.1f} s)")
    if args.keep or code != 0:
        print(f"kept {folder} (the log: {log})")
    else:
        shutil.rmtree(folder, ignore_errors=True)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
