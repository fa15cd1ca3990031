"""
The docs site builds with no warning (Sphinx ``-W``), from the Markdown pages and the docstrings; its diagrams are
drawn when it is built; and no page sends readers to documents they do not have.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from messaging_platform_provider.client.operations import OPERATIONS
from tests.support.paths import REPO, SCRIPTS

sys.path.insert(0, str(SCRIPTS))
from operations_table import operator_name, table as operations_table  # noqa: E402

sys.path.pop(0)

DOCS = REPO / "docs"

#: The pages that draw diagrams (```{graphviz} blocks), and how many each draws.
DIAGRAMS = {"platform": 2, "retry-safe-creates": 1, "rotation": 1, "callbacks": 1}

#: Mentions of documents readers never see: the API's specification text ("the spec", "spec 2.1", "§4.5") and the
#: notes on the platform kept beside it ("platform facts", "the facts"). A page states the fact instead, or links
#: docs/platform.md. Word boundaries leave identifiers such as ``in_spec`` and ``spec_rules.py`` alone.
UNSHARED_DOCUMENT = re.compile(r"\bspecs?\b|§|platform[ -]facts|\bthe facts\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def docs_tmpdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The build's temporary folder (its ``TMPDIR``), where ``docs/conf.py`` makes its throwaway AIRFLOW_HOME."""
    return tmp_path_factory.mktemp("docs-tmpdir")


def read_the_docs() -> dict:
    """The docs host's build settings (``.readthedocs.yaml``), checked against what the build needs."""
    import configparser

    import yaml

    settings = yaml.safe_load((REPO / ".readthedocs.yaml").read_text())
    assert settings["version"] == 2 and "graphviz" in settings["build"]["apt_packages"]  # the diagrams need dot
    (install,) = settings["build"]["jobs"]["install"]
    assert "--constraint requirements/constraints.txt" in install
    extra = re.search(r'"\.\[(\w+)\]"', install)
    setup = configparser.ConfigParser()
    setup.read(REPO / "setup.cfg")
    assert extra and extra.group(1) in setup["options.extras_require"], install
    assert {"sphinx", "myst-parser"} <= set(setup["options.extras_require"][extra.group(1)].split())
    return settings


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory: pytest.TempPathFactory, docs_tmpdir: Path) -> Path:
    """
    The site, built once for the tests of this module (one xdist worker: ``xdist_group("docs_build")``) as the docs
    host builds it from ``.readthedocs.yaml`` (its configuration, warnings as errors), and as ``make docs`` does:
    without AIRFLOW_HOME.
    """
    assert shutil.which("dot"), "the docs' diagrams need Graphviz's dot: `make pytest` installs Debian's graphviz"
    sphinx = read_the_docs()["sphinx"]
    source = (REPO / sphinx["configuration"]).parent
    assert source == DOCS and sphinx["fail_on_warning"] is True
    out = tmp_path_factory.mktemp("docs")
    env = {name: value for name, value in os.environ.items() if name != "AIRFLOW_HOME"}
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(source), str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**env, "TMPDIR": str(docs_tmpdir)},
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return out


@pytest.mark.slow
@pytest.mark.xdist_group("docs_build")
def test_sphinx_builds_without_warnings(built_docs):
    for page in ("index", "operators", "sensors", "examples/voice-call-push", "reference/campaigns", "emulator"):
        assert (built_docs / f"{page}.html").is_file(), page
    reference = (built_docs / "reference" / "campaigns.html").read_text()
    assert "MessagingPlatformCreateCampaignOperator" in reference  # API reference comes from the docstrings
    operators = (built_docs / "operators.html").read_text()
    for name in OPERATIONS:  # the page's table is made from the declarations at build time
        assert f'<code class="docutils literal notranslate"><span class="pre">{name}</span></code>' in operators
        assert operator_name(name) in operators
    example = (built_docs / "examples" / "coupon-sync.html").read_text()
    assert "list_external_coupon_codes" in example  # the DAG's code is included from dags/


@pytest.mark.xdist_group("docs_build")
def test_the_build_removes_the_airflow_home_it_made(built_docs, docs_tmpdir):
    """Without AIRFLOW_HOME, conf.py makes a throwaway one, and removes it at the end (64 were once left in /tmp)."""
    assert (built_docs / "index.html").is_file()
    assert list(docs_tmpdir.glob("messaging-platform-docs-airflow-*")) == []


@pytest.mark.slow
@pytest.mark.xdist_group("docs_build")
def test_diagrams_are_drawn_as_svg_at_build_time(built_docs):
    in_sources = {
        page.relative_to(DOCS).with_suffix("").as_posix(): page.read_text().count("```{graphviz}")
        for page in DOCS.rglob("*.md")
    }
    assert {page: count for page, count in in_sources.items() if count} == DIAGRAMS  # every diagram is checked
    for page, count in DIAGRAMS.items():
        html = (built_docs / f"{page}.html").read_text()
        images = re.findall(r'<object data="(_images/graphviz-\w+\.svg)" type="image/svg\+xml"', html)
        assert len(images) == count, page
        for image in images:
            assert "<svg" in (built_docs / image).read_text(), image


def _pages() -> list[str]:
    return sorted(page.relative_to(DOCS).as_posix() for page in DOCS.rglob("*.md"))


@pytest.mark.parametrize("page", _pages())
def test_pages_send_readers_to_no_unshared_document(page):
    # The conformance table is checked with its page: tests/client/conformance/conformance_rows.py words its rules.
    lines = enumerate((DOCS / page).read_text().splitlines(), start=1)
    hits = [f"{page}:{number}: {line.strip()}" for number, line in lines if UNSHARED_DOCUMENT.search(line)]
    assert not hits, "state the fact, or link platform.md, instead of:\n" + "\n".join(hits)


def test_operations_table_sends_readers_to_no_unshared_document():
    """The operators page's table is made at build time (scripts/operations_table.py), so its page lacks it."""
    hits = [line for line in operations_table().splitlines() if UNSHARED_DOCUMENT.search(line)]
    assert not hits, "state the fact, or link platform.md, instead of:\n" + "\n".join(hits)


@pytest.mark.parametrize("page", sorted(p.name for p in (DOCS / "reference").glob("*.md")))
def test_a_reference_page_names_the_source_of_every_module_it_shows(page):
    """Unbuilt (on a code host) a reference page shows no parameters: it links the modules whose docstrings it shows."""
    text = (DOCS / "reference" / page).read_text()
    modules = re.findall(r"automodule:: ([\w.]+)", text)
    assert modules
    for module in modules:
        path = REPO / "src" / Path(*module.split("."))
        source = path.with_suffix(".py") if path.with_suffix(".py").exists() else path / "__init__.py"
        assert f"(../../{source.relative_to(REPO).as_posix()})" in text, module
