"""
Mutation testing with mutmut 3 (``make mutation``) of the code whose bugs hurt users: the client (its decisions, both
transports, the bulk calls and their pace), the connection settings, the waiting code and how a task reads a wait's
outcome, the triggers, key rotation, the task state kept between tries, the operators' literal checks, and the
callback receiver, store, claims and limits.

    python scripts/mutation.py                     # a fresh run of every mutant (mutants/ is made anew)
    python scripts/mutation.py --keep 'PATTERN'    # re-run the mutants matching PATTERN (mutmut's names, fnmatch)
    python scripts/mutation.py --report            # only print and write the report of the last run

What is mutated (``only_mutate``: the transports ``client.py`` and ``async_client.py`` too, which ``--all`` used to
add; ``--all`` is still accepted and changes nothing), which tests run and mutmut's other settings are in
``[tool.mutmut]`` of pyproject.toml; docs/mutation.md says why.

mutmut copies ``src/``, ``tests/`` and ``dags/`` to ``mutants/`` (gitignored) and mutates the copy: nothing under
``src/`` is changed. It runs in this process: the selected tests once to learn which test calls which function, once
more unmutated (they must pass), then for every mutant a fork of this process runs only the tests that call the
mutated function (``--max-children`` at a time, stopping at the first failure).

At the end the counts and the survivors (module, function, one line per mutation) are printed, and written with
each survivor's diff to ``build/mutation/survivors.txt`` (``summary.json`` beside it has the counts). Survivors are
reported, not failures: the exit status is 0 when the run completed, non-zero when mutmut itself failed (e.g.
the unmutated tests failed, or no test reached the mutated code).

This file is also the pytest plugin that mutmut's pytest runs load (``-p mutation``): it deselects the tests
that cannot be run against mutants (see ``DESELECTED`` and ``AIRFLOW_DB_FIXTURES``).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MUTANTS = REPO / "mutants"
OUT = REPO / "build" / "mutation"
#: the run's temporary files (each pytest session's throwaway AIRFLOW_HOME, tmp_path): removed at the end, so that
#: a mutant whose tests were killed at the time limit leaves nothing in /tmp.
TMP = OUT / "tmp"
PG_BIN = Path(os.environ.get("MP_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))

# -- the pytest plugin ----------------------------------------------------------------------------------------------

#: Tests that use Airflow's metadata database in the test process (dag.test(), the secret scans of AIRFLOW_HOME).
#: tests/conftest.py makes a throwaway AIRFLOW_HOME per pytest session and removes it at the session's end, while
#: Airflow, imported once in mutmut's process, keeps the first session's: from the second session on (every
#: mutant's) they fail. The tests that only call the Airflow API server run: against the run's one server
#: (``shared_airflow_api_server``), whose database is its own.
AIRFLOW_DB_FIXTURES = {"airflow_db", "home_scan"}

#: Tests whose code under test runs in a subprocess (which imports the unmutated src/, never a mutant), or that start
#: a process of their own for every mutant that reaches them.
DESELECTED = {
    # what a trigger imports, and the start-up heap freeze, probed in a fresh interpreter
    "test_what_a_trigger_imports_in_the_event_loop_is_light",
    "test_the_first_trigger_in_a_process_freezes_the_start_up_heap",
    # fifty triggers against an emulator process of their own (the triggers' code is reached by the other tests)
    "test_fifty_triggers_share_one_client_and_a_held_answer_holds_up_no_other_trigger",
}


def deselection_reason(item: Any) -> str | None:
    name = getattr(item, "originalname", None) or item.name.partition("[")[0]
    if name in DESELECTED:
        return "subprocess"
    if AIRFLOW_DB_FIXTURES & set(getattr(item, "fixturenames", ())):
        return "Airflow metadata database"
    return None


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    keep = [item for item in items if deselection_reason(item) is None]
    if len(keep) < len(items):
        config.hook.pytest_deselected(items=[item for item in items if deselection_reason(item) is not None])
    items[:] = sorted(keep, key=recorded_duration)


def recorded_duration(item: Any) -> float:
    """
    How long the test took in mutmut's first run (0 before it is known). mutmut hands a mutant's tests to pytest as
    a set, in no useful order, and stops at the first failure: run fastest first, so that a mutant a fast test kills
    is not first run through a slow test that it hangs until the time limit.
    """
    from mutmut.state import state

    return state().duration_by_test.get(item.nodeid, 0.0)


def _fresh_thread_executor_in_child() -> None:
    """
    mutmut forks a process that has already run the tests, whose worker threads a fork does not copy. asgiref's
    shared executor, which the SDK's async connection lookup uses (``sync_to_async``), would then queue work for a
    thread that is gone, and a trigger's wait would hang until the time limit: a "timeout" that says nothing about
    the mutant. The fork gets a new one.
    """
    from concurrent.futures import ThreadPoolExecutor

    from asgiref.sync import SyncToAsync

    SyncToAsync.single_thread_executor = ThreadPoolExecutor(max_workers=1)


#: mutmut's exit status for a timeout. A mutant that hangs a test is stopped by pytest-timeout (``--timeout`` in
#: pyproject.toml), sooner than by mutmut's own limit; the run then ends with this status, so that mutmut counts
#: it as a timeout rather than a kill.
TIMEOUT_STATUS = 36
_timed_out: list[str] = []


def pytest_sessionstart(session: Any) -> None:
    _timed_out.clear()  # this module stays imported from one pytest session to the next


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed and "from pytest-timeout" in str(report.longrepr):
        _timed_out.append(report.nodeid)


def pytest_sessionfinish(session: Any, exitstatus: int) -> None:
    if _timed_out:
        OUT.mkdir(parents=True, exist_ok=True)
        with (OUT / "timeouts.txt").open("a") as record:  # mutmut silences its workers' output
            record.write(f"{os.environ.get('MUTANT_UNDER_TEST', '?')}: {' '.join(_timed_out)}\n")
        session.exitstatus = TIMEOUT_STATUS


# -- the run --------------------------------------------------------------------------------------------------------


def interrupted(signum: int, frame: Any) -> None:
    """SIGTERM as Ctrl-C: the ``finally`` blocks on the way out run (Python's default for SIGTERM skips them)."""
    raise KeyboardInterrupt


@contextmanager
def shared_airflow_api_server() -> Iterator[None]:
    """
    Within: one Airflow API server on a migrated home of its own under build/mutation/, handed to every mutant's
    pytest session through ``tests/support/running_airflow_api.py``'s variables (the suite's ``airflow_api_server``
    fixture uses it instead of starting one per session). Stopped on the way out, and by a start that fails.
    Nothing here imports Airflow or the provider: mutmut must import the provider first, from mutants/.
    """
    sys.path.insert(0, str(REPO))
    from messaging_platform_emulator.airflow_api import AirflowApiServer
    from tests.support.running_airflow_api import RUNNING_HOME_ENV, RUNNING_URL_ENV

    home = OUT / "airflow-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = {**os.environ, "AIRFLOW_HOME": str(home), "AIRFLOW__CORE__LOAD_EXAMPLES": "False"}
    migrated = subprocess.run(
        [sys.executable, "-m", "airflow", "db", "migrate"], env=env, capture_output=True, text=True, timeout=600
    )
    if migrated.returncode != 0:
        raise RuntimeError(f"airflow db migrate failed:\n{migrated.stdout[-2000:]}{migrated.stderr[-2000:]}")
    with AirflowApiServer(home, env=env) as server:
        os.environ[RUNNING_URL_ENV], os.environ[RUNNING_HOME_ENV] = server.url, str(home)
        try:
            yield
        finally:
            del os.environ[RUNNING_URL_ENV], os.environ[RUNNING_HOME_ENV]


def run_mutmut(patterns: list[str], max_children: int) -> int:
    """mutmut's ``run`` in this process; returns its exit status (0: the run completed)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # `-p mutation` finds this file
    from mutmut.__main__ import _run

    os.register_at_fork(after_in_child=_fresh_thread_executor_in_child)  # inherited by every fork mutmut makes
    main_pid = os.getpid()
    stopped: list[int] = []

    def terminated(signum: int, frame: Any) -> None:
        if os.getpid() != main_pid:  # a mutant's fork: mutmut stops its workers with SIGTERM
            os._exit(128 + signum)
        stopped.append(signum)
        raise KeyboardInterrupt  # mutmut stops its workers (and then returns as if done)

    previous = signal.signal(signal.SIGTERM, terminated), signal.signal(signal.SIGINT, terminated)
    try:
        _run(patterns, max_children)
    except SystemExit as stop:  # mutmut says why before it exits
        return stop.code if isinstance(stop.code, int) else 1
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])
    return 128 + stopped[0] if stopped else 0


def stop_leftover_postgres() -> None:
    """PostgreSQL servers started by tests/callbacks' fixture in a mutant's run that was killed at its time limit."""
    for pid_file in sorted(MUTANTS.glob("build/pg-tests-*/data/postmaster.pid")):
        data = pid_file.parent
        command = [str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
        if os.geteuid() == 0:
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, capture_output=True, timeout=60)
        print(f"stopped a PostgreSQL server left by a killed mutant run ({data})")
    for root in MUTANTS.glob("build/pg-tests-*"):
        shutil.rmtree(root, ignore_errors=True)


# -- the report -----------------------------------------------------------------------------------------------------


def function_of(key: str) -> str:
    """``pkg.mod.xǁClassǁmethod__mutmut_3`` -> ``Class.method``; ``pkg.mod.x_func__mutmut_3`` -> ``func``."""
    from mutmut.utils.format_utils import orig_function_and_class_names_from_key

    name, cls = orig_function_and_class_names_from_key(key)
    return f"{cls}.{name}" if cls else name


def one_line(diff: str) -> str:
    """The changed lines of a mutant's diff, ``old -> new``."""
    body = diff.splitlines()[2:]  # past the ---/+++ header
    removed = [line[1:].strip() for line in body if line.startswith("-")]
    added = [line[1:].strip() for line in body if line.startswith("+")]
    return f"{' | '.join(removed)}  ->  {' | '.join(added)}"


def report(wall_seconds: float | None) -> dict[str, Any]:
    """Counts and survivors from mutmut's files in mutants/; printed, and written under build/mutation/."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    counts: dict[str, int] = defaultdict(int)
    by_module: dict[str, dict[str, int]] = {}
    listed: dict[str, dict[str, list[tuple[str, str, str]]]] = {"survived": {}, "no tests": {}, "timeout": {}}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        module = str(path).removeprefix("src/").removesuffix(".py").replace("/", ".")
        for key, exit_code in sorted(data.exit_code_by_key.items(), key=lambda kv: mutant_order(kv[0])):
            status = status_by_exit_code[exit_code]
            counts[status] += 1
            module_counts = by_module.setdefault(module, defaultdict(int))
            module_counts[status] += 1
            module_counts["mutants"] += 1
            if status in listed:
                diff = get_diff_for_mutant(key, path=path)
                listed[status].setdefault(f"{module} ({path})", []).append((key, function_of(key), diff))

    total = sum(counts.values())
    if wall_seconds is None and (OUT / "summary.json").exists():  # --report: the wall time of the run reported
        wall_seconds = json.loads((OUT / "summary.json").read_text()).get("wall_seconds")
    summary = {
        "mutants": total,
        "killed": counts["killed"],
        "survived": counts["survived"],
        "timeouts": counts["timeout"],
        "no_tests": counts["no tests"],
        "suspicious": counts["suspicious"],
        "segfaults": counts["segfault"],
        "not_checked": counts["not checked"],
        "wall_seconds": None if wall_seconds is None else round(wall_seconds),
        "modules": {
            module: {key: c[status] for key, status in PER_MODULE.items()} for module, c in sorted(by_module.items())
        },
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    lines = [
        "# make mutation: surviving mutants (each with its diff), then those no selected test reached, then timeouts",
        "# " + ", ".join(f"{k} {v}" for k, v in summary.items() if v is not None and k != "modules"),
        "",
    ]
    titles = {
        "survived": "SURVIVED: the selected tests pass with this change",
        "no tests": "NO TESTS: no selected test calls the function",
        "timeout": "TIMEOUT: counted as killed (the tests ran past mutmut's time limit)",
    }
    for status, title in titles.items():
        lines += [f"## {title}: {sum(len(v) for v in listed[status].values())}", ""]
        for module, mutants in listed[status].items():
            lines.append(f"### {module}: {len(mutants)}")
            for key, function, diff in mutants:
                lines += [f"{key}  [{function}]", *("    " + line for line in diff.splitlines()[2:]), ""]
        lines.append("")
    (OUT / "survivors.txt").write_text("\n".join(lines))

    print()
    print(
        f"Mutants: {total}  killed: {summary['killed']}  survived: {summary['survived']}  "
        f"timeouts: {summary['timeouts']}  no tests: {summary['no_tests']}  suspicious: {summary['suspicious']}  "
        f"segfaults: {summary['segfaults']}  not checked: {summary['not_checked']}"
    )
    if wall_seconds is not None:
        print(f"Wall time: {wall_seconds / 60:.1f} min")
    print()
    print(f"  {'module':<48}" + "".join(f"{key:>10}" for key in PER_MODULE))
    for module, module_counts in summary["modules"].items():
        print(f"  {module:<48}" + "".join(f"{module_counts[key]:>10}" for key in PER_MODULE))
    for status in ("survived", "no tests"):
        if not listed[status]:
            continue
        print()
        print("Survivors:" if status == "survived" else "Not reached by any selected test:")
        for module, mutants in listed[status].items():
            print(f"  {module}")
            for key, function, diff in mutants:
                print(f"    {function} #{key.rpartition('__mutmut_')[2]}: {one_line(diff)}")
    print()
    print(f"The list with each mutant's diff: {(OUT / 'survivors.txt').relative_to(REPO)}")
    print("Show one mutant: .venv/bin/mutmut show NAME; browse them all: .venv/bin/mutmut browse")
    return summary


#: the per-module columns of the report: column -> mutmut's status
PER_MODULE = {
    "mutants": "mutants",
    "killed": "killed",
    "survived": "survived",
    "timeouts": "timeout",
    "no tests": "no tests",
}


def mutant_order(key: str) -> tuple[str, int]:
    head, _, number = key.rpartition("__mutmut_")
    return head, int(number) if number.isdigit() else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("patterns", nargs="*", help="only these mutants (mutmut's names; fnmatch patterns)")
    parser.add_argument("--keep", action="store_true", help="keep mutants/ and mutmut's results from the last run")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested at once (default 2)")
    parser.add_argument("--report", action="store_true", help="only report the last run")
    # ``--all`` added the transports (client.py, async_client.py) to only_mutate, which now holds them: accepted, so
    # that an old command line still runs, and does nothing.
    parser.add_argument("--all", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    os.chdir(REPO)  # mutmut reads [tool.mutmut] from ./pyproject.toml and works in ./mutants
    if args.all:
        print("--all: nothing to add, only_mutate in pyproject.toml holds the transports (client.py, async_client.py)")
    if args.report:
        report(None)
        return 0
    if not args.keep:
        stop_leftover_postgres()
        shutil.rmtree(MUTANTS, ignore_errors=True)
    shutil.rmtree(TMP, ignore_errors=True)
    TMP.mkdir(parents=True)
    os.environ["TMPDIR"] = str(TMP)
    import tempfile

    tempfile.tempdir = None  # read TMPDIR afresh

    signal.signal(signal.SIGTERM, interrupted)  # a run stopped with SIGTERM stops its Airflow API server too
    started = time.monotonic()
    try:
        with shared_airflow_api_server():
            status = run_mutmut(args.patterns, args.max_children)
    finally:
        stop_leftover_postgres()
        shutil.rmtree(TMP, ignore_errors=True)
    wall = time.monotonic() - started
    if status != 0:
        print(f"mutmut did not complete (exit status {status}); its output above says why")
        return status
    report(wall)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
