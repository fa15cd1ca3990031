"""
Run an operator the way Airflow's task runner calls it (``op.execute(context)``), outside any DAG, and read
back what it sent to the emulator.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import pytest

from messaging_platform_provider.client.once import MemoryStateStore
from messaging_platform_provider.version_compat import AirflowFailException

DAG_ID = "d"
RUN_ID = "r1"
API = "/api/v2.1"
MARKER = re.compile(r" \[af:[0-9a-f]{16}\]$")


#: Stands in for Airflow's task state store (``context["task_state_store"]``, Airflow 3.3+).
InMemoryStore = MemoryStateStore


class TaskInstanceStandIn(SimpleNamespace):
    """The task instance's fields the operators read, and its ``xcom_push`` (what was pushed: ``pushed``)."""

    def xcom_push(self, key: str, value: Any) -> None:
        self.pushed[key] = value


def task_context(op: Any, *, run_id: str = RUN_ID, store: InMemoryStore | None = None) -> dict[str, Any]:
    """The part of the task context the operators read: the task instance and the task state store."""
    ti = TaskInstanceStandIn(dag_id=DAG_ID, task_id=op.task_id, run_id=run_id, map_index=-1, try_number=1, pushed={})
    return {"ti": ti, "task_state_store": store if store is not None else InMemoryStore()}


def run(op: Any, context: dict[str, Any] | None = None) -> Any:
    """Execute the operator; returns what Airflow would push to XCom."""
    return op.execute(context if context is not None else task_context(op))


def seed(platform: Any) -> dict[str, Any]:
    """The seeded ids as the emulator's control endpoint reports them."""
    return platform.control.seed()


def clear_requests(platform: Any) -> None:
    """Forget the requests made so far (setup), so a test sees only what its operator sent."""
    platform.control.clear_requests()


def basic_auth(platform: Any) -> str:
    credentials = f"{platform.seed.api_key}:{platform.seed.api_secret}".encode()
    return "Basic " + base64.b64encode(credentials).decode()


def assert_wire_headers(platform: Any, record: dict[str, Any], *, with_body: bool) -> None:
    """HTTP Basic with the connection's key and secret, and the JSON headers the spec asks for."""
    headers = record["headers"]
    assert headers["authorization"] == basic_auth(platform)
    assert headers["accept"] == "application/json"
    if with_body:
        assert headers["content-type"] == "application/json"


def sent(record: dict[str, Any]) -> tuple[str, str, str]:
    """(method, path, query) of a recorded request."""
    return record["method"], record["path"], record["query"] or ""


def strip_marker(text: str) -> str:
    """The text without the run marker a retry-safe create appended; fails if there is none."""
    assert MARKER.search(text), f"no run marker in {text!r}"
    return MARKER.sub("", text)


class Caught:
    """What ``fails_without_retry`` caught: ``value``, the provider's error that the task failed with."""

    value: Any = None


@contextmanager
def fails_without_retry(kind: type[BaseException], match: str | None = None) -> Iterator[Caught]:
    """
    The task fails as Airflow fails a task without its retries (``AirflowFailException``), with the message of
    the provider's error of ``kind`` that caused it (``tasks.errors.failing_fast``).
    """
    caught = Caught()
    with pytest.raises(AirflowFailException) as raised:
        yield caught
    cause = raised.value.__cause__
    assert isinstance(cause, kind), f"caused by {cause!r}, not a {kind.__name__}"
    assert str(raised.value) == str(cause)
    if match is not None:
        assert re.search(match, str(cause)), f"{match!r} not in {cause}"
    caught.value = cause


@contextmanager
def refused(field: str) -> Iterator[Caught]:
    """
    Bad input refused before any request, naming ``field`` (the parameter the user wrote): a literal when the
    operator is built (a DAG import error), anything else by failing the task without retry when it runs.
    """
    from messaging_platform_provider.client.errors import MessagingPlatformValidationError

    caught = Caught()
    with pytest.raises((MessagingPlatformValidationError, AirflowFailException)) as raised:
        yield caught
    error = raised.value if isinstance(raised.value, MessagingPlatformValidationError) else raised.value.__cause__
    assert isinstance(error, MessagingPlatformValidationError), f"caused by {error!r}"
    assert str(raised.value) == str(error)
    assert error.field == field and field in str(error), str(error)
    caught.value = error
