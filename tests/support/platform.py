"""
The emulator as the tests see it: the shipped pytest plugin (``messaging_platform_emulator.pytest_plugin``, which
``tests/conftest.py`` enables), under the names the suite has always used. ``platform`` and ``emulator_server``
are aliases of the plugin's fixtures ``messaging_platform`` and ``messaging_platform_server`` (tests/conftest.py).
"""

from __future__ import annotations

from messaging_platform_emulator.pytest_plugin import (
    CONN_ENV,
    MessagingPlatform as Platform,
    reset_messaging_platform as reset_platform,
    using_emulator as module_platform,
)

__all__ = ["CONN_ENV", "Platform", "module_platform", "reset_platform"]
