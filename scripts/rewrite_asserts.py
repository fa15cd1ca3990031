"""
Rewrite the asserts of the test modules once, into the files pytest keeps them in, before the suite starts.

pytest rewrites the asserts of every test module, ``conftest.py`` and plugin module of ``pytest_plugins`` as it
imports them, and keeps the result in ``__pycache__`` (``<name>.cpython-311-pytest-<version>.pyc``), valid while the
source keeps its size and time. On a clean clone no such file exists yet, and `make test`'s three workers each
rewrite all of them at once, while they collect: about 2.4 s of CPU each. `make` runs this beside
``compile_imports.py`` instead, and the workers load the files. It uses pytest's own rewriter
(``_pytest.assertion.rewrite``, not a public API), with pytest's defaults for what the configuration can change (this
project sets none of it). It is only a head start: a file it does not write is rewritten by pytest as before, and
where pytest's module has changed it says so and writes nothing.

    python scripts/rewrite_asserts.py [FOLDER]     # FOLDER: tests/ by default
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = REPO / "tests"


def modules_to_rewrite(root: Path) -> list[Path]:
    """
    The files pytest rewrites under ``root``: its test modules (``test_*.py``), ``conftest.py`` files, and the plugin
    modules of this repository that a ``conftest.py`` names in ``pytest_plugins``.
    """
    found = {p for p in root.rglob("*.py") if p.name.startswith("test_") or p.name == "conftest.py"}
    for conftest in [p for p in found if p.name == "conftest.py"]:
        for name in plugin_names(conftest):
            for base in (REPO, REPO / "src"):
                module = base.joinpath(*name.split(".")).with_suffix(".py")
                if module.is_file():
                    found.add(module)
    return sorted(found)


def plugin_names(conftest: Path) -> list[str]:
    """The module names a ``conftest.py`` assigns to ``pytest_plugins`` (a list or tuple of strings), read unrun."""
    for node in ast.parse(conftest.read_bytes()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytest_plugins" for t in node.targets):
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def rewrite(path: Path) -> Path:
    """Write the rewritten module where pytest looks for it; that file."""
    from _pytest.assertion import rewrite as pytest_rewrite

    source_stat, code = pytest_rewrite._rewrite_test(path, None)  # type: ignore[arg-type]  # None: the defaults
    pyc = pytest_rewrite.get_cache_dir(path) / (path.name[:-3] + pytest_rewrite.PYC_TAIL)
    pyc.parent.mkdir(exist_ok=True)
    partial = pyc.with_name(f"{pyc.name}.{os.getpid()}")
    with partial.open("wb") as out:
        pytest_rewrite._write_pyc_fp(out, source_stat, code)
    os.replace(partial, pyc)  # whole or not at all, as pytest does: a worker may be reading it
    return pyc


def main(root: Path) -> int:
    try:
        for path in modules_to_rewrite(root):
            rewrite(path)
    except Exception as exc:  # a head start only: the workers rewrite what is missing
        print(f"rewrite_asserts: stopped ({type(exc).__name__}: {exc}); pytest rewrites as it imports", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else TESTS))
