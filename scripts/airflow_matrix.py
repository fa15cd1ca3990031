"""
The Airflow versions the provider claims, each with pinned constraints, a venv of its own and a run of the suite.

    python scripts/airflow_matrix.py lock [3.4 ...]  # the pins of every version, or of those named (commit them)
    python scripts/airflow_matrix.py venv 3.1        # build/matrix/airflow-3.1: the built wheel, with its pins
    python scripts/airflow_matrix.py test 3.1 [pytest args]
    python scripts/airflow_matrix.py demo 3.1        # every example DAG against the emulator (`make demo`)
    python scripts/airflow_matrix.py check-dist      # build the sdist and wheel, `twine check --strict` them
    python scripts/airflow_matrix.py matrix [--update-docs] [--jobs 2] [3.0 ...]  # the suite on each: test-matrix

The newest release's pins are ``requirements/constraints.txt``, the ones ``make test`` installs. A pre-release
(a beta of the next Airflow) has a leg of its own in the matrix, as a preview, but never becomes the newest release.

Constraints are made reproducibly: ``uv pip compile`` of ``setup.cfg`` (test extra) and ``apache-airflow==X``,
with ``--exclude-newer`` set to the day after that Airflow release, so that what resolves is what a user who
installed that release on its day got. The venv installs the wheel built from this tree (not the source tree),
as users install it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / "uv"
MATRIX = REPO / "build" / "matrix"

#: minor version -> (the release tested, the first day after it was published on PyPI)
VERSIONS = {
    "3.0": ("3.0.6", "2025-08-30"),
    "3.1": ("3.1.8", "2026-03-12"),
    "3.2": ("3.2.2", "2026-05-30"),
    "3.3": ("3.3.2", "2026-09-18"),
    "3.4": ("3.4.0b2", "2026-10-21"),  # published 2026-10-20 20:17 UTC
}
#: the versions whose tested release is a pre-release: tested as a preview, never NEWEST. uv's default pre-release
#: rule is enough for their pins: Airflow's own packages come as the betas pinned exactly (``==3.4.0b2``), every
#: other library as a release (but those that publish only pre-releases), so no ``--prerelease allow``
PRERELEASES = frozenset({"3.4"})
#: the oldest Python each version's pins are resolved for: the provider's own floor (3.10) unless Airflow's is higher
OLDEST_PYTHON = {"3.4": "3.11"}


#: The order the matrix starts the versions in: the longest runs first (measured 2026-11-25, two side by side:
#: 3.0 407 s, 3.3 394 s, 3.2 387 s, 3.1 363 s). 3.4 runs every test 3.3 runs, so it starts first: with five
#: versions on two cores one of them runs three, and those should be the shorter ones.
SLOWEST_FIRST = ("3.4", "3.0", "3.3", "3.2", "3.1")
#: the newest release (not pre-release): its pins are ``requirements/constraints.txt``
NEWEST = max(
    (minor for minor in VERSIONS if minor not in PRERELEASES), key=lambda minor: tuple(map(int, minor.split(".")))
)

#: what differs on each version, for the compatibility table (the capabilities are detected in ``version_compat.py``)
DIFFERS = {
    "3.0": "as 3.1; connections read in a thread; a retry resumed with an earlier try's event starts afresh; "
    "reschedule-mode sensors not tested under dag.test() (Airflow bug)",
    "3.1": "task state in a Variable per task instance; connection form from the hook; watcher without shared streams",
    "3.2": "task state in a Variable per task instance; watcher without shared streams",
    "3.3": "none: the reference version",
    "3.4": "a preview (a beta): as 3.3, every capability found the same way; Python 3.11 or newer "
    "(Airflow 3.4 drops 3.10); Airflow no longer warns about a '_' in a connection type",
}
DOCS = REPO / "docs" / "compatibility.md"
BEGIN, END = "<!-- matrix:begin -->", "<!-- matrix:end -->"


def constraints(minor: str) -> Path:
    if minor == NEWEST:
        return REPO / "requirements" / "constraints.txt"
    return REPO / "requirements" / f"airflow-{minor}.txt"


def venv(minor: str) -> Path:
    return MATRIX / f"airflow-{minor}"


def run(*cmd: str | Path, cwd: Path = REPO) -> None:
    subprocess.run([str(c) for c in cmd], cwd=cwd, check=True)


def remove_egg_info() -> None:
    """
    Remove the ``src/*.egg-info`` that a build or a ``uv pip compile`` of setup.cfg leaves beside the package: on
    ``sys.path`` it is a second copy of our distribution, and Airflow would load the callback plugin twice.
    """
    for leftover in (REPO / "src").glob("*.egg-info"):
        shutil.rmtree(leftover, ignore_errors=True)


def lock(minors: list[str]) -> None:
    """Pin every dependency for each version named (run by hand after changing setup.cfg; commit the result)."""
    for minor in minors:
        release, day = VERSIONS[minor]
        pin = MATRIX / f"apache-airflow-{minor}.in"
        pin.parent.mkdir(parents=True, exist_ok=True)
        pin.write_text(f"apache-airflow=={release}\n")
        python = OLDEST_PYTHON.get(minor, "3.10")
        run(
            UV, "pip", "compile", "--quiet", "--universal", "--python-version", python,
            "--exclude-newer", f"{day}T00:00:00Z", "--no-header",
            "setup.cfg", "--extra", "test", pin, "-o", constraints(minor),
        )  # fmt: skip
        remove_egg_info()  # reading setup.cfg's dependencies left one
        text = constraints(minor).read_text().replace(str(pin.relative_to(REPO)), f"apache-airflow=={release}")
        header = (
            f"# Airflow {release}, as resolved on {day}: make lock (python scripts/airflow_matrix.py lock)\n"
            f"# (uv pip compile --universal --python-version {python} --exclude-newer {day}T00:00:00Z\n"
            "#  setup.cfg --extra test)\n"
        )
        constraints(minor).write_text(header + text)


def wheel(minor: str) -> Path:
    """The wheel of this tree, built afresh (into a folder per version, so that versions can be built side by side)."""
    dist = MATRIX / "dist" / minor
    shutil.rmtree(dist, ignore_errors=True)
    # setuptools stages the wheel's files in build/lib and keeps them between builds: a module since renamed or
    # removed from src/ would still be packed (seen: an old compat.py beside version_compat.py).
    for staging in [REPO / "build" / "lib", *(REPO / "build").glob("bdist.*")]:
        shutil.rmtree(staging, ignore_errors=True)
    run(UV, "build", "--quiet", "--wheel", "--out-dir", dist)
    remove_egg_info()
    (built,) = dist.glob("*.whl")
    return built


def make_venv(minor: str) -> Path:
    """A fresh venv with the wheel of this tree and every dependency pinned by the version's constraints."""
    target = venv(minor)
    shutil.rmtree(target, ignore_errors=True)
    run(UV, "venv", "--quiet", "--python", sys.executable, target)
    install(minor)
    return target


def install(minor: str) -> None:
    """(Re)install the wheel built from this tree, with the test extra, into the version's venv."""
    python = venv(minor) / "bin" / "python"
    requirement = f"airflow-provider-messaging-platform[test] @ {wheel(minor).as_uri()}"
    run(
        UV, "pip", "install", "--quiet", "--compile-bytecode", "--python", python, "-c", constraints(minor),
        "--reinstall-package", "airflow-provider-messaging-platform", requirement,
    )  # fmt: skip


def test(minor: str, args: list[str]) -> int:
    """The suite (or ``args``) on one version; the venv is made when missing, and always gets this tree's wheel."""
    target = venv(minor)
    if (target / "bin" / "python").exists():
        install(minor)
    else:
        make_venv(minor)
    return subprocess.run([str(target / "bin" / "pytest"), *args], cwd=REPO).returncode


def junit_counts(report: Path) -> dict[str, Any]:
    """Tests, failures, errors, skips and the skip reasons of one pytest JUnit XML report."""
    import xml.etree.ElementTree as ET

    counts: dict[str, Any] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0, "reasons": set(), "failed": []}
    if not report.exists():
        return counts
    root = ET.parse(report).getroot()
    for suite in root.iter("testsuite"):
        for key in ("tests", "failures", "errors", "skipped"):
            counts[key] += int(suite.get(key, 0))
    for skipped in root.iter("skipped"):
        counts["reasons"].add((skipped.get("message") or "").removeprefix("Skipped: ").strip())
    for case in root.iter("testcase"):
        for bad in [*case.iter("failure"), *case.iter("error")]:
            message = (bad.get("message") or "").splitlines()[0][:200] if bad.get("message") else ""
            counts["failed"].append(f"{case.get('classname')}::{case.get('name')}: {message}")
    return counts


def table(rows: list[tuple[str, int, dict[str, Any]]]) -> str:
    """The compatibility table (Markdown) of a matrix run."""
    lines = [
        "| Airflow | release tested | outcome | passed | failed | skipped | what differs |",
        "|---|---|---|---|---|---|---|",
    ]
    for minor, code, c in rows:
        passed = c["tests"] - c["failures"] - c["errors"] - c["skipped"]
        outcome = "passed" if code == 0 else "FAILED"
        failed = c["failures"] + c["errors"]
        line = (
            f"| {minor} | {VERSIONS[minor][0]} | {outcome} | {passed} | {failed} | {c['skipped']} | {DIFFERS[minor]} |"
        )
        lines.append(line)
    broken = [f"- Airflow {minor}: {test}" for minor, _, c in rows for test in c["failed"]]
    if broken:
        lines += ["", "Failed:", "", *broken]
    reasons = sorted({r for _, _, c in rows for r in c["reasons"] if r})
    if reasons:
        lines += ["", "Skipped, with the reason pytest printed:", ""] + [f"- {r}" for r in reasons]
    return "\n".join(lines) + "\n"


def check_dist() -> int:
    """Build the sdist and the wheel as a release would, then ``twine check --strict`` both."""
    dist = MATRIX / "sdist"
    shutil.rmtree(dist, ignore_errors=True)
    run(UV, "build", "--quiet", "--out-dir", dist)
    remove_egg_info()
    built = sorted([*dist.glob("*.whl"), *dist.glob("*.tar.gz")])
    return subprocess.run([Path(sys.executable).parent / "twine", "check", "--strict", *built]).returncode


def leg(minor: str) -> tuple[str, int, dict[str, Any]]:
    """One version's run of the whole suite in its venv, its output in ``build/matrix/run-<minor>.log``."""
    target = venv(minor)
    report, log = MATRIX / f"airflow-{minor}.xml", MATRIX / f"run-{minor}.log"
    report.unlink(missing_ok=True)
    pytest = [str(target / "bin" / "pytest"), "-q", "-p", "no:cacheprovider", "-rfEs", f"--junitxml={report}"]
    started = time.monotonic()
    print(f"Airflow {minor}: the suite started, its output in {log.relative_to(REPO)}", flush=True)
    with log.open("w") as out:
        code = subprocess.run(pytest, cwd=REPO, stdout=out, stderr=subprocess.STDOUT).returncode
    counts = junit_counts(report)
    # pytest's summary line; Airflow may log after it (3.4.0b2 logs a pool error at exit)
    lines = log.read_text().strip().splitlines()
    summary = [line for line in lines if " in " in line and (" passed" in line or " failed" in line)][-1:]
    summary = summary or lines[-1:] or ["(no output)"]
    print(f"Airflow {minor}: exit {code} in {time.monotonic() - started:.0f} s: {summary[0]}", flush=True)
    if code != 0:
        print("".join(f"    {line}\n" for line in counts["failed"]) + f"    full output: {log}", flush=True)
    return minor, code, counts


def matrix(args: list[str]) -> int:
    """
    The whole suite on each version, each in a fresh venv from its pins; a table of the outcomes. ``--jobs N``
    (default 2, one per core here) runs N versions side by side: a run keeps one core less than half busy.
    """
    from concurrent.futures import ThreadPoolExecutor

    update_docs = "--update-docs" in args
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else 2
    options = {"--update-docs", "--jobs", str(jobs)}
    minors = [a for a in args if a not in options] or list(VERSIONS)
    for minor in minors:
        make_venv(minor)
    # The slowest versions first, so that the last one to start is a short one.
    order = sorted(minors, key=lambda minor: SLOWEST_FIRST.index(minor))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        done = {row[0]: row for row in pool.map(leg, order)}
    rows = [done[minor] for minor in minors]
    text = table(rows)
    (MATRIX / "compatibility.md").write_text(text)
    print(text)
    if update_docs:
        page = DOCS.read_text()
        start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
        DOCS.write_text(page[:start] + "\n" + text + page[end:])
    return 0 if all(code == 0 for _, code, _ in rows) else 1


def demo(minor: str) -> int:
    """``scripts/demo.py`` with the version's venv (made when missing; this tree's wheel installed)."""
    target = venv(minor)
    if (target / "bin" / "python").exists():
        install(minor)
    else:
        make_venv(minor)
    return subprocess.run([str(target / "bin" / "python"), "scripts/demo.py"], cwd=REPO).returncode


def main(argv: list[str]) -> int:
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    if command == "matrix":
        return matrix(args)
    if command == "lock":
        unknown = [minor for minor in args if minor not in VERSIONS]
        if unknown:
            print(f"unknown Airflow version {unknown[0]!r}: one of {', '.join(VERSIONS)}")
            return 2
        lock(args or list(VERSIONS))
        return 0
    if command == "check-dist":
        return check_dist()
    if command not in ("venv", "test", "demo") or not args:
        print(__doc__)
        return 2
    minor = args[0]
    if minor not in VERSIONS:
        print(f"unknown Airflow version {minor!r}: one of {', '.join(VERSIONS)}")
        return 2
    if command == "venv":
        make_venv(minor)
        return 0
    if command == "demo":
        return demo(minor)
    return test(minor, args[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
