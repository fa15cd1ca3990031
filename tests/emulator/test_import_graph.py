"""The emulator package's modules import each other without a cycle, imports under ``TYPE_CHECKING`` included; and
none imports the provider (``messaging_platform_provider``), so that the emulator stays an independent reading of the
platform.

``Emulator`` builds and wires the store and the services in one place, so no module needs to reach back into one
that imports it; an import kept under ``TYPE_CHECKING`` only to hide such a cycle would be a cycle all the same.
"""

from __future__ import annotations

import ast
import graphlib
import subprocess
import sys
from pathlib import Path

import messaging_platform_emulator

PACKAGE = Path(messaging_platform_emulator.__file__).parent
PROVIDER = "messaging_platform_provider"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """The package's modules that ``path`` imports, wherever the import stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([node.module] if node.module else []))
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names)
    return {module for module in found if module in modules and module != name}


def test_no_module_of_the_package_imports_itself_back():
    paths = {_module_name(path): path for path in PACKAGE.rglob("*.py")}
    graph = {name: _imports(path, name, set(paths)) for name, path in paths.items()}
    assert graph["messaging_platform_emulator.emulator"]  # the graph was read: the emulator imports its parts
    graphlib.TopologicalSorter(graph).prepare()  # raises CycleError naming the modules of a cycle


def _names_imported(path: Path) -> set[str]:
    """Every module name ``path`` imports, absolute or relative, wherever the import stands (in a function, under
    ``TYPE_CHECKING`` ...), and every string passed to ``import_module``/``__import__``."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.add(node.args[0].value)
    return found


def test_no_module_of_the_emulator_imports_the_provider():
    """The emulator is an independent reading of the platform: sharing the provider's code would share its
    misreadings."""
    offenders = {
        _module_name(path): sorted(name for name in _names_imported(path) if name.split(".")[0] == PROVIDER)
        for path in PACKAGE.rglob("*.py")
    }
    assert {module: names for module, names in offenders.items() if names} == {}


def test_importing_the_server_and_the_plugin_loads_no_provider_module():
    code = (
        "import sys, messaging_platform_emulator.server, messaging_platform_emulator.pytest_plugin, "
        "messaging_platform_emulator.cli; print(sorted(m for m in sys.modules if m.split('.')[0] == '"
        + PROVIDER
        + "'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
