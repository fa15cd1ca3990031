"""
The Variable-backed task state (``tasks.state.VariableTaskState``, what retry-safe creates keep between tries before
Airflow 3.3), without Airflow's metadata database: ``airflow.sdk.Variable`` is replaced by a dictionary with the same
``get``/``set``/``delete``. The Variable's JSON is written out in each test, never computed by the code under test.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.tasks.state import (
    VariableTaskState,
    once_for_task,
    release_task_state,
    task_state_store,
)
from tests.support.operator_context import TaskInstanceStandIn

TOKEN = "5eed5eed5eed5eed"
VARIABLE = f"messaging_platform_task_state_{TOKEN}"
_NOTSET: Any = object()


class Variables:
    """Airflow's ``Variable`` (the Task SDK's class methods) over a dictionary: what the task's tries read and wrote."""

    values: dict[str, str] = {}
    descriptions: dict[str, str | None] = {}

    @classmethod
    def get(cls, key: str, default: Any = _NOTSET, deserialize_json: bool = False) -> Any:
        assert not deserialize_json
        if key not in cls.values:
            if default is _NOTSET:
                raise KeyError(key)
            return default
        return cls.values[key]

    @classmethod
    def set(cls, key: str, value: Any, description: str | None = None, serialize_json: bool = False) -> None:
        assert not serialize_json and isinstance(value, str)
        cls.values[key] = value
        cls.descriptions[key] = description

    @classmethod
    def delete(cls, key: str) -> None:
        del cls.values[key]


@pytest.fixture
def variables(monkeypatch: pytest.MonkeyPatch) -> type[Variables]:
    """``airflow.sdk.Variable`` for this test: an empty dictionary (``task_state`` imports it when it is used)."""
    import airflow.sdk

    monkeypatch.setattr(Variables, "values", {})
    monkeypatch.setattr(Variables, "descriptions", {})
    monkeypatch.setattr(airflow.sdk, "Variable", Variables)
    return Variables


def test_each_set_keeps_what_earlier_sets_wrote(variables):
    state = VariableTaskState(TOKEN)
    assert state.get("a") is None and state.get("a", "none yet") == "none yet"
    assert variables.values == {}  # reading writes nothing
    state.set("a", {"watermark": 5001})
    state.set("b", [1, 2])
    state.set("a", {"watermark": 5001, "id": 5002})
    assert json.loads(variables.values[VARIABLE]) == {"a": {"watermark": 5001, "id": 5002}, "b": [1, 2]}
    assert variables.values[VARIABLE] == '{"a": {"id": 5002, "watermark": 5001}, "b": [1, 2]}'
    assert variables.descriptions[VARIABLE] == (
        "Messaging Platform: what a try of one task left for its next try (deleted on success)"
    )
    assert VariableTaskState(TOKEN).get("b") == [1, 2]  # the next try reads what this one wrote


def test_a_variable_that_is_not_a_json_object_reads_as_empty_and_is_replaced(variables):
    variables.values[VARIABLE] = "[1, 2]"
    state = VariableTaskState(TOKEN)
    assert state.get("a") is None
    state.set("a", 1)
    assert variables.values[VARIABLE] == '{"a": 1}'


def test_clear_deletes_the_variable_and_only_when_there_is_one(variables):
    state = VariableTaskState(TOKEN)
    state.clear()  # nothing to delete: no error
    state.set("a", 1)
    variables.values["messaging_platform_task_state_other"] = '{"a": 2}'
    state.clear()
    assert variables.values == {"messaging_platform_task_state_other": '{"a": 2}'}


def context(try_number: int) -> dict[str, Any]:
    """A task context of Airflow before 3.3: the task instance, no ``task_state_store``."""
    ti = TaskInstanceStandIn(dag_id="d", task_id="two_creates", run_id="r1", map_index=-1, try_number=try_number)
    return {"ti": ti}


def test_without_airflows_store_the_state_is_a_variable_of_the_task_instance_released_on_success(variables):
    store = task_state_store(context(1), TOKEN)
    assert isinstance(store, VariableTaskState) and store.variable == VARIABLE
    own = object()
    assert task_state_store({**context(1), "task_state_store": own}, TOKEN) is own
    token = once_for_task(context(1)).token
    VariableTaskState(token).set("a", 1)
    release_task_state({**context(2), "task_state_store": own})  # Airflow 3.3 clears its own store
    assert list(variables.values) == [f"messaging_platform_task_state_{token}"]
    release_task_state(context(2))
    assert variables.values == {}


def test_a_retry_of_a_task_that_made_a_voice_call_and_a_campaign_makes_neither_again(platform, variables):
    """
    Both creates of one try keep their state in the task instance's one Variable. Had the second (the campaign)
    started from an empty object, it would have wiped the first's, and the retry would ring the voice call's
    targets a second time.
    """
    hook = MessagingPlatformHook()

    def one_try(try_number: int) -> tuple[dict[str, Any], dict[str, Any]]:
        once = once_for_task(context(try_number))
        call = hook.create_push_voice_call(["+15125550100"], targets=["+15125550111"], message="Ready.", once=once)
        campaign = hook.create_campaign(name="Ready", campaign_type="Basic", once=once)
        return call, campaign

    first_call, first_campaign = one_try(1)  # then the task fails after its creates, and Airflow retries it
    again_call, again_campaign = one_try(2)
    posts = [r["path"].rsplit("/", 1)[-1] for r in platform.control.requests() if r["method"] == "POST"]
    assert posts == ["action-pushvoicecall", "campaign"]  # one each, by the first try
    assert [c["Id"] for c in hook.list_push_voice_calls() if c["Message"] == "Ready."] == [first_call["Id"]]
    assert (again_call["Id"], again_campaign["Id"]) == (first_call["Id"], first_campaign["Id"])
    token = once_for_task(context(1)).token
    (variable,) = variables.values
    assert variable == f"messaging_platform_task_state_{token}"
    assert sorted(json.loads(variables.values[variable])) == [
        f"messaging_platform:create_campaign:{token}",
        f"messaging_platform:create_push_voice_call:{token}",
    ]
