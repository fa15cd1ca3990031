"""
A module-scoped fixture is set up once per pytest-xdist worker that runs a test using it. One that starts a process
or builds something (a DAG run, the docs build) runs again on every worker its tests land on, unless they share an
``xdist_group``: a module fixture that built Airflow's API server app was built twice in some runs (9 s of CPU each).
``pytest_collection_modifyitems`` in ``tests/conftest.py`` refuses such a collection.

Some costs are paid once per worker instead: the first ``dag.test()`` of a process builds Airflow's in-process
execution API (about 8 s of CPU). The tests that use a fixture standing for such a cost may be kept to a few groups,
and so to a few workers (``outside_groups``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import pytest


def xdist_group(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("xdist_group")
    if marker is None:
        return None
    return str(marker.args[0] if marker.args else marker.kwargs["name"])


def module_fixture_uses(items: Iterable[pytest.Item]) -> Iterable[tuple[str, str | None]]:
    """(``module::fixture``, the test's xdist group) for each module-scoped fixture of the suite each test uses."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        for name in info.names_closure:
            definitions = info.name2fixturedefs.get(name)
            if definitions and definitions[-1].scope == "module" and definitions[-1].baseid.startswith("tests/"):
                yield f"{definitions[-1].baseid}::{name}", xdist_group(item)


def split_module_fixtures(uses: Iterable[tuple[str, str | None]]) -> list[str]:
    """The fixtures used by more than one test where those tests are not all in the same xdist group."""
    groups: dict[str, list[str | None]] = defaultdict(list)
    for fixture, group in uses:
        groups[fixture].append(group)
    return sorted(f for f, g in groups.items() if len(g) > 1 and (None in g or len(set(g)) > 1))


def outside_groups(items: Iterable[pytest.Item], fixture: str, groups: Iterable[str]) -> list[str]:
    """The tests that use ``fixture`` (directly or through another fixture) but are in none of ``groups``."""
    allowed = set(groups)
    return sorted(
        item.nodeid
        for item in items
        if fixture in getattr(item, "fixturenames", ()) and xdist_group(item) not in allowed
    )
