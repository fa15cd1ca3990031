"""
The client (``messaging_platform_provider.client``) is usable without Airflow: none of its modules imports Airflow
or another part of the provider (hooks, operators, tasks ...), wherever the import stands (in a function, under
``TYPE_CHECKING``), and its modules import each other without a cycle. So the Airflow layers build on the client and
the client never reaches back into them.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import messaging_platform_provider.client

CLIENT = Path(messaging_platform_provider.client.__file__).parent
SRC = CLIENT.parent.parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports (the client uses no relative imports), wherever it stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert not node.level, f"{path.name}: a relative import"
            assert node.module is not None
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


MODULES = {_module_name(path): _imported(path) for path in CLIENT.rglob("*.py")}


def test_no_client_module_imports_airflow_or_another_part_of_the_provider() -> None:
    assert "messaging_platform_provider.client.once" in MODULES  # the modules were read
    assert not _imported(SRC / "messaging_platform_provider" / "__init__.py")  # the root imports nothing
    for name, imported in MODULES.items():
        airflow = sorted(m for m in imported if m == "airflow" or m.startswith("airflow."))
        others = sorted(
            m
            for m in imported
            if m.startswith("messaging_platform_provider.")
            and not m.startswith("messaging_platform_provider.client")
            and m != "messaging_platform_provider.__version__"  # the package root holds the version, nothing else
        )
        assert not airflow and not others, f"{name} imports {airflow + others}"


def test_the_client_modules_import_each_other_without_a_cycle() -> None:
    graph = {name: {m for m in imported if m in MODULES and m != name} for name, imported in MODULES.items()}
    assert graph["messaging_platform_provider.client.once"]  # the graph was read: once imports its neighbours
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the modules of a cycle


def test_importing_the_client_and_calling_through_it_loads_no_airflow_module() -> None:
    probe = (
        "import sys\n"
        "import messaging_platform_provider.client as c\n"
        "from messaging_platform_provider.client.once import create_once\n"
        "c.MessagingPlatformClient('http://127.0.0.1:9/api/v2.1', 'k', 's').close()\n"
        "print(sorted(m for m in sys.modules if m == 'airflow' or m.startswith('airflow.')))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
