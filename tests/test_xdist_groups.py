"""The collection checks that keep each module-scoped fixture on one pytest-xdist worker, and DAG runs on two."""

from __future__ import annotations

import pytest

from tests.support.xdist_groups import module_fixture_uses, outside_groups, split_module_fixtures

DOCS = "tests/integration/test_docs.py::built_docs"
DAG = "tests/example_dags/test_messaging_platform_campaign_launch.py::dag"


def test_a_fixture_whose_tests_are_in_one_group_or_that_one_test_uses_passes():
    assert split_module_fixtures([(DOCS, "docs_build"), (DOCS, "docs_build"), (DAG, None)]) == []


def test_a_fixture_whose_tests_have_no_group_or_different_ones_is_named():
    assert split_module_fixtures([(DOCS, None), (DOCS, None)]) == [DOCS]  # the docs tests without their group
    assert split_module_fixtures([(DAG, "a"), (DAG, "b"), (DOCS, "x"), (DOCS, None)]) == [DAG, DOCS]


@pytest.fixture(scope="module")
def once_per_module() -> str:
    return "set up"


@pytest.mark.xdist_group("probe_group")
def test_a_tests_module_fixtures_and_group_are_read_from_pytest(once_per_module, request: pytest.FixtureRequest):
    uses = list(module_fixture_uses([request.node]))
    assert uses == [("tests/test_xdist_groups.py::once_per_module", "probe_group")]


@pytest.mark.xdist_group("probe_group")
def test_a_test_using_a_fixture_outside_the_groups_allowed_for_it_is_named(
    once_per_module, request: pytest.FixtureRequest
):
    assert outside_groups([request.node], "once_per_module", ["probe_group", "other"]) == []
    assert outside_groups([request.node], "once_per_module", ["dag_runs"]) == [request.node.nodeid]
    assert outside_groups([request.node], "tmp_path", ["dag_runs"]) == []  # a fixture it does not use
