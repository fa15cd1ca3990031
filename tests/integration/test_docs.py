"""The docs site builds with no warning (Sphinx ``-W``), from the Markdown pages and the docstrings."""

from __future__ import annotations

import subprocess
import sys

import pytest

from messaging_platform_provider.client.operations import OPERATIONS
from tests.support.paths import REPO, SCRIPTS

sys.path.insert(0, str(SCRIPTS))
from operations_table import operator_name  # noqa: E402

sys.path.pop(0)


@pytest.mark.slow
def test_sphinx_builds_without_warnings(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-W", "--keep-going", "-b", "html", str(REPO / "docs"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    for page in ("index", "operators", "sensors", "examples/voice-call-push", "reference/campaigns", "emulator"):
        assert (tmp_path / f"{page}.html").is_file(), page
    reference = (tmp_path / "reference" / "campaigns.html").read_text()
    assert "MessagingPlatformCreateCampaignOperator" in reference  # API reference comes from the docstrings
    operators = (tmp_path / "operators.html").read_text()
    for name in OPERATIONS:  # the page's table is made from the declarations at build time
        assert f'<code class="docutils literal notranslate"><span class="pre">{name}</span></code>' in operators
        assert operator_name(name) in operators
    example = (tmp_path / "examples" / "coupon-sync.html").read_text()
    assert "list_external_coupon_codes" in example  # the DAG's code is included from dags/
