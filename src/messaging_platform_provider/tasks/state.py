"""
What a task keeps between its tries: Airflow's own task state store from 3.3, an Airflow Variable before.

Retry-safe creates and key rotation write a little state (a watermark, the id they made, which key was the old
one) that a later try of the same task instance reads. Airflow 3.3 gives every task ``context["task_state_store"]``
for that. On 3.0-3.2 the same state is kept in one Airflow Variable per task instance, named
``messaging_platform_task_state_<token>`` (the token is the run-scoped one of ``CreateOnce``), holding a JSON
object. As Airflow 3.3 does with its store, the Variable is deleted when the task succeeds; a task instance whose
every try failed leaves its Variable behind, so that clearing it later still finds what it made.

The state holds ids, labels and step names, never a secret.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.once import CreateOnce

VARIABLE_PREFIX = "messaging_platform_task_state_"


class VariableTaskState:
    """The task state store's ``get``/``set`` over one Airflow Variable (Airflow < 3.3)."""

    def __init__(self, token: str) -> None:
        self.variable = VARIABLE_PREFIX + token

    def _load(self) -> dict[str, Any]:
        from airflow.sdk import Variable

        raw = Variable.get(self.variable, default=None)
        loaded = json.loads(raw) if raw else {}
        return loaded if isinstance(loaded, dict) else {}

    def get(self, key: str, default: Any = None) -> Any:
        return self._load().get(key, default)

    def set(self, key: str, value: Any) -> None:
        from airflow.sdk import Variable

        data = self._load()
        data[key] = value
        Variable.set(
            self.variable,
            json.dumps(data, sort_keys=True),
            description="Messaging Platform: what a try of one task left for its next try (deleted on success)",
        )

    def clear(self) -> None:
        from airflow.sdk import Variable

        if Variable.get(self.variable, default=None) is not None:
            Variable.delete(self.variable)


def task_state_store(context: Mapping[str, Any], token: str) -> Any:
    """Airflow's store when this Airflow has one, else the Variable-backed one for the token's task instance."""
    store = context.get("task_state_store")
    return store if store is not None else VariableTaskState(token)


def once_for_task(context: Mapping[str, Any]) -> CreateOnce:
    """
    The run-scoped token and task state store of the running task instance, from its Airflow context: what the
    create operators use, and what a hook create in a ``@task`` passes as ``once=``
    (``once_for_task(get_current_context())``).
    """
    ti = context["ti"]
    map_index = ti.map_index if ti.map_index is not None else -1
    token = CreateOnce.for_task(ti.dag_id, ti.task_id, ti.run_id, map_index).token
    return CreateOnce(token, task_state_store(context, token))


def release_task_state(context: Mapping[str, Any]) -> None:
    """After a successful try: drop the Variable-backed state (Airflow 3.3 clears its own store itself)."""
    if context.get("task_state_store") is None:
        VariableTaskState(once_for_task(context).token).clear()
