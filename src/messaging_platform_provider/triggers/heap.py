"""
The triggerer's start-up heap, frozen once per process when the first of our triggers starts, if the deployment
turns it on: ``[messaging_platform] freeze_triggerer_heap = True`` in the triggerer's Airflow configuration
(``AIRFLOW__MESSAGING_PLATFORM__FREEZE_TRIGGERER_HEAP=True`` in its environment). Off by default.

A triggerer process holds a few hundred thousand long-lived objects that Airflow's imports left (modules,
classes, functions, the serialized DAGs it has read). Python's full (generation 2) garbage collection walks all of
them each time it runs, 0.1-0.5 s on a 2-core machine, and it runs on the triggerer's event loop thread, in the
middle of whichever trigger allocated last: the triggerer then logs "Triggerer's async thread was blocked".
``gc.freeze()`` moves every object alive at that moment to a permanent generation that collections skip, as
CPython's documentation suggests for long-running servers; objects made later are collected as before. The cost
is that garbage already unreachable at the moment of the freeze is never freed (a one-time few kilobytes).

It is a setting of the deployment, not an argument of a trigger: the freeze acts on the whole triggerer process,
whose event loop runs every user's triggers, so whoever runs the triggerer decides it, not one DAG's author.
"""

from __future__ import annotations

import gc
import logging

from messaging_platform_provider.version_compat import conf

PROVIDER_CONF_SECTION = "messaging_platform"
CONF_KEY = "freeze_triggerer_heap"
_done = False


def freeze_turned_on() -> bool:
    """``[messaging_platform] freeze_triggerer_heap``; a value that is not a boolean is warned about and means off."""
    try:
        return bool(conf.getboolean(PROVIDER_CONF_SECTION, CONF_KEY, fallback=False))
    except Exception as exc:  # each Airflow version raises its own configuration error class
        logging.getLogger(__name__).warning(
            "[%s] %s is not true or false (%s); the heap is not frozen", PROVIDER_CONF_SECTION, CONF_KEY, exc
        )
        return False


def freeze_startup_heap() -> bool:
    """Freeze the heap the first time this is called in a process, if turned on; whether it froze now."""
    global _done
    if _done:
        return False
    _done = True
    if not freeze_turned_on():
        return False
    gc.freeze()
    return True
