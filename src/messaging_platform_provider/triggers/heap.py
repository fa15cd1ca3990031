"""
The triggerer's start-up heap, frozen once per process when the first of our triggers starts.

A triggerer process holds a few hundred thousand long-lived objects that Airflow's imports left (modules,
classes, functions, the serialized DAGs it has read). Python's full (generation 2) garbage collection walks all of
them each time it runs, 0.1-0.5 s on a 2-core machine, and it runs on the triggerer's event loop thread, in the
middle of whichever trigger allocated last: the triggerer then logs "Triggerer's async thread was blocked".
``gc.freeze()`` moves every object alive at that moment to a permanent generation that collections skip, as
CPython's documentation suggests for long-running servers; objects made later are collected as before. The cost
is that garbage already unreachable at the moment of the freeze is never freed (a one-time few kilobytes).

Set ``MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP=false`` to leave the collector alone.
"""

from __future__ import annotations

import gc
import os

ENV = "MESSAGING_PLATFORM_TRIGGERER_FREEZE_HEAP"
_done = False


def freeze_startup_heap() -> bool:
    """Freeze the heap the first time this is called in a process (unless turned off); whether it froze now."""
    global _done
    if _done:
        return False
    _done = True
    if os.environ.get(ENV, "true").strip().lower() in ("0", "false", "no", "off"):
        return False
    gc.freeze()
    return True
