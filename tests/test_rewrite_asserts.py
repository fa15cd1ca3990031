"""``scripts/rewrite_asserts.py`` writes what pytest itself would write for a test module, where pytest reads it."""

from __future__ import annotations

import marshal
import sys

import pytest
from _pytest.assertion import rewrite as pytest_rewrite

from tests.support.paths import REPO, SCRIPTS

sys.path.insert(0, str(SCRIPTS))
import rewrite_asserts  # noqa: E402

sys.path.pop(0)


def test_the_rewritten_module_is_pytests_own_and_pytest_accepts_it(tmp_path, request: pytest.FixtureRequest):
    (tmp_path / "sub").mkdir()
    module = tmp_path / "sub" / "test_sample.py"
    module.write_text("def test_sum():\n    total = 1 + 1\n    assert total == 3, 'not three'\n")
    (tmp_path / "helper.py").write_text("assert True\n")  # not a test module: pytest leaves it alone, so does this
    assert rewrite_asserts.modules_to_rewrite(tmp_path) == [module]

    pyc = rewrite_asserts.rewrite(module)
    assert pyc == module.parent / "__pycache__" / f"test_sample.{pytest_rewrite.PYC_TAIL[1:]}"
    read = pytest_rewrite._read_pyc(module, pyc)
    assert read is not None  # pytest loads it instead of rewriting the module again
    _, expected = pytest_rewrite._rewrite_test(module, request.config)  # what pytest writes under this configuration
    assert pyc.read_bytes()[16:] == marshal.dumps(expected)  # after the header: magic, flags, mtime, size
    test_sum = next(c for c in read.co_consts if getattr(c, "co_name", "") == "test_sum")
    assert any(name.startswith("@py_assert") for name in test_sum.co_varnames)  # its assert is rewritten


def test_the_plugin_modules_conftest_names_are_rewritten_too():
    modules = rewrite_asserts.modules_to_rewrite(REPO / "tests")
    assert REPO / "tests" / "support" / "airflow_api_server.py" in modules  # pytest_plugins of tests/conftest.py
    assert REPO / "src" / "messaging_platform_emulator" / "pytest_plugin.py" in modules
    assert REPO / "tests" / "conftest.py" in modules and REPO / "tests" / "test_rewrite_asserts.py" in modules
    assert REPO / "tests" / "support" / "paths.py" not in modules  # imported by tests, but not rewritten by pytest
