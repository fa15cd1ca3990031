"""
The Airflow versions the provider claims, each with pinned constraints, a venv of its own and a run of the suite.

    python scripts/airflow_matrix.py lock            # requirements/airflow-3.X.txt for every version (commit them)
    python scripts/airflow_matrix.py venv 3.1        # build/matrix/airflow-3.1: the built wheel, with its pins
    python scripts/airflow_matrix.py test 3.1 [pytest args]
    python scripts/airflow_matrix.py matrix [3.0 3.1 ...]   # the whole suite on each, a table of the outcomes

Constraints are made reproducibly: ``uv pip compile`` of ``setup.cfg`` (test extra) and ``apache-airflow==X``,
with ``--exclude-newer`` set to the day after that Airflow release, so that what resolves is what a user who
installed that release on its day got. The venv installs the wheel built from this tree (not the source tree),
as users install it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
UV = Path(sys.executable).parent / "uv"
MATRIX = REPO / "build" / "matrix"

#: minor version -> (the release tested, the first day after it was published on PyPI)
VERSIONS = {
    "3.0": ("3.0.6", "2025-08-30"),
    "3.1": ("3.1.8", "2026-03-12"),
    "3.2": ("3.2.2", "2026-05-30"),
    "3.3": ("3.3.2", "2026-09-18"),
}


def constraints(minor: str) -> Path:
    return REPO / "requirements" / f"airflow-{minor}.txt"


def venv(minor: str) -> Path:
    return MATRIX / f"airflow-{minor}"


def run(*cmd: str | Path, cwd: Path = REPO) -> None:
    subprocess.run([str(c) for c in cmd], cwd=cwd, check=True)


def lock() -> None:
    """Pin every dependency for each version (run by hand after changing setup.cfg; commit the result)."""
    for minor, (release, day) in VERSIONS.items():
        pin = MATRIX / f"apache-airflow-{minor}.in"
        pin.parent.mkdir(parents=True, exist_ok=True)
        pin.write_text(f"apache-airflow=={release}\n")
        run(
            UV, "pip", "compile", "--quiet", "--universal", "--python-version", "3.10",
            "--exclude-newer", f"{day}T00:00:00Z", "--no-header",
            "setup.cfg", "--extra", "test", pin, "-o", constraints(minor),
        )  # fmt: skip
        text = constraints(minor).read_text().replace(str(pin.relative_to(REPO)), f"apache-airflow=={release}")
        header = (
            f"# Airflow {release}, as resolved on {day}: python scripts/airflow_matrix.py lock\n"
            f"# (uv pip compile --universal --python-version 3.10 --exclude-newer {day}T00:00:00Z\n"
            "#  setup.cfg --extra test)\n"
        )
        constraints(minor).write_text(header + text)


def wheel() -> Path:
    """The wheel of this tree, built afresh."""
    dist = MATRIX / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    run(UV, "build", "--quiet", "--wheel", "--out-dir", dist)
    for leftover in (REPO / "src").glob("*.egg-info"):  # a second copy of the distribution beside the package
        shutil.rmtree(leftover)
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
    requirement = f"airflow-provider-messaging-platform[test] @ {wheel().as_uri()}"
    run(
        UV, "pip", "install", "--quiet", "--python", python, "-c", constraints(minor),
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


def matrix(minors: list[str]) -> int:
    """The whole suite on each version, each in a fresh venv; one line per version (from pytest's JUnit XML)."""
    import xml.etree.ElementTree as ET

    rows = []
    for minor in minors or list(VERSIONS):
        make_venv(minor)
        report = MATRIX / f"airflow-{minor}.xml"
        code = test(minor, ["-q", "-p", "no:cacheprovider", f"--junitxml={report}"])
        suite = ET.parse(report).getroot().find("testsuite") if report.exists() else None
        counts = {
            k: int(suite.get(k, 0)) if suite is not None else 0 for k in ("tests", "failures", "errors", "skipped")
        }
        rows.append((minor, VERSIONS[minor][0], code, counts))
    print(f"{'Airflow':<8} {'release':<8} {'outcome':<8} {'tests':>6} {'failed':>7} {'errors':>7} {'skipped':>8}")
    for minor, release, code, c in rows:
        outcome = "passed" if code == 0 else "FAILED"
        figures = f"{c['tests']:>6} {c['failures']:>7} {c['errors']:>7} {c['skipped']:>8}"
        print(f"{minor:<8} {release:<8} {outcome:<8} {figures}")
    return 0 if all(code == 0 for _, _, code, _ in rows) else 1


def main(argv: list[str]) -> int:
    if argv and argv[0] == "matrix":
        return matrix(argv[1:])
    if not argv or argv[0] not in ("lock", "venv", "test"):
        print(__doc__)
        return 2
    if argv[0] == "lock":
        lock()
        return 0
    minor = argv[1]
    if minor not in VERSIONS:
        print(f"unknown Airflow version {minor!r}: one of {', '.join(VERSIONS)}")
        return 2
    if argv[0] == "venv":
        make_venv(minor)
        return 0
    return test(minor, argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
