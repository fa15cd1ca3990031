"""
The state of the task instance a trigger serves, read from the triggerer as Airflow's Task SDK reads it (the
triggerer's supervisor asks the execution API). ``on_kill`` uses it to tell a user's action on the task from a
trigger that merely moved to another triggerer (apache/airflow#73454), where the task is still deferred.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

log = logging.getLogger(__name__)

DEFERRED = "deferred"


def _read_state(task_instance: Any) -> str | None:
    from airflow.sdk.execution_time.task_runner import RuntimeTaskInstance

    map_index = getattr(task_instance, "map_index", -1)
    map_index = -1 if map_index is None else map_index
    states = RuntimeTaskInstance.get_task_states(
        dag_id=task_instance.dag_id,
        task_ids=[task_instance.task_id],
        run_ids=[task_instance.run_id],
        map_index=map_index if map_index >= 0 else None,
    )
    key = task_instance.task_id if map_index < 0 else f"{task_instance.task_id}_{map_index}"
    state = states.get(task_instance.run_id, {}).get(key)
    return None if state is None else str(getattr(state, "value", state))


async def task_state(task_instance: Any) -> str | None:
    """The task instance's state now (``"deferred"``, ``"failed"``, ...; ``None`` for none, as after a clear)."""
    # The Task SDK's lookup is synchronous; from another thread it waits on the event loop without blocking it.
    return await asyncio.to_thread(_read_state, task_instance)


async def still_deferred(task_instance: Any) -> bool:
    """
    Whether the task is still deferred. When that cannot be read (no task instance, the lookup failed), also
    ``True``: platform work is never stopped on a guess.
    """
    if task_instance is None:
        log.warning("The trigger has no task instance: its task's state is unknown.")
        return True
    try:
        return await task_state(task_instance) == DEFERRED
    except Exception:
        log.warning("The state of task %s could not be read.", task_instance.task_id, exc_info=True)
        return True
