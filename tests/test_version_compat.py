"""
What differs between Airflow 3.0 and 3.3 is found out in one module (``messaging_platform_provider.version_compat``); no
other module of the provider imports a name that moved between those versions.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import Version

from messaging_platform_provider import version_compat
from messaging_platform_provider.triggers.callback import HAVE_SHARED_STREAMS
from tests.support.airflow_versions import AIRFLOW_VERSION

SRC = Path(version_compat.__file__).resolve().parent
#: names that are not where they are on every supported version (see the table in version_compat.py)
MOVED = re.compile(
    r"from airflow\.sdk import [^\n]*\b(conf|BaseHook)\b"
    r"|from airflow\.sdk\.exceptions import|from airflow\.exceptions import|from airflow\.configuration import"
    r"|from airflow\.hooks\.base import|from airflow\.sdk\.log import|from airflow\.triggers\.shared_stream import"
    r"|\.aget_connection\(|\.aextra_dejson\("
)


def is_the_shared_streams_import(path: Path, line: str) -> bool:
    """
    The one exception, the trigger that uses the shared streams: importing them loads ``airflow.triggers``, which
    the operators (and so every DAG file) would pay for through the compat module.
    """
    return path == SRC / "triggers" / "callback.py" and "airflow.triggers.shared_stream" in line


def test_only_the_compat_module_imports_what_moved_between_airflow_versions():
    offenders = [
        f"{path.relative_to(SRC)}:{n}"
        for path in SRC.rglob("*.py")
        if path.name != "version_compat.py"
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if MOVED.search(line) and not is_the_shared_streams_import(path, line)
    ]
    assert offenders == []


def test_on_this_airflow_the_names_are_airflows_own():
    import airflow.sdk
    import airflow.sdk.exceptions

    # Where this Airflow has the name in its Task SDK, the compat module hands out that very object.
    for module, name in ((airflow.sdk, "conf"), (airflow.sdk, "BaseHook"), (airflow.sdk.exceptions, "TaskDeferred")):
        try:
            own = getattr(module, name)
        except (AttributeError, ImportError):  # the Task SDK's lazy names raise ImportError when missing
            continue
        assert getattr(version_compat, name) is own, name
    assert HAVE_SHARED_STREAMS == (AIRFLOW_VERSION >= Version("3.3"))
