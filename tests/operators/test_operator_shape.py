"""
What a reader of an operator class finds in the class itself: its ``template_fields`` written out, its own
``execute``, and an ``__init__`` that checks the literal values once every parameter is set.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from airflow.sdk import BaseOperator

from messaging_platform_provider import operators
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.operators.base import MessagingPlatformBaseOperator, MessagingPlatformCreateOperator
from tests.operators.test_common import parameters, required

OPERATORS_DIR = Path(operators.__file__).parent
OPERATOR_CLASSES = sorted(
    {c for c in vars(operators).values() if isinstance(c, type) and issubclass(c, MessagingPlatformBaseOperator)}
    - {MessagingPlatformBaseOperator, MessagingPlatformCreateOperator},
    key=lambda c: c.__name__,
)


def _template_fields_assignments() -> list[tuple[str, ast.expr]]:
    found = []
    for path in sorted(OPERATORS_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "template_fields" for t in targets):
                    assert node.value is not None
                    found.append((f"{path.name}:{node.lineno}", node.value))
    return found


@pytest.mark.parametrize(
    ("where", "value"), _template_fields_assignments(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_template_fields_are_written_out_as_a_tuple_of_names(where: str, value: ast.expr) -> None:
    assert isinstance(value, ast.Tuple), where
    assert all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts), where


@pytest.mark.parametrize("cls", OPERATOR_CLASSES, ids=lambda c: c.__name__)
def test_every_operator_defines_its_own_execute(cls: type) -> None:
    assert "execute" in vars(cls), f"{cls.__name__} inherits execute"


@pytest.mark.parametrize("cls", OPERATOR_CLASSES, ids=lambda c: c.__name__)
def test_every_operator_checks_its_literals_once_after_every_parameter_is_set(cls: type, monkeypatch) -> None:
    seen: list[dict[str, Any]] = []

    def record(self: MessagingPlatformBaseOperator) -> None:
        seen.append({name: getattr(self, name, "<unset>") for name in self.template_fields})

    monkeypatch.setattr(MessagingPlatformBaseOperator, "check_literal_values", record)
    # Subclasses that add checks call super(): stand in for them too, so each call is counted once.
    for klass in cls.__mro__:
        if klass is not MessagingPlatformBaseOperator and "check_literal_values" in vars(klass):
            monkeypatch.setattr(klass, "check_literal_values", record)
    kwargs = {name: f"{{{{ params.{name} }}}}" for name in required(cls.__init__)}
    cls(task_id="t", **kwargs)
    if tuple(cls.template_fields) == ("account_id", "messaging_platform_conn_id"):  # nothing of a body or a path
        assert seen == []
        return
    assert len(seen) == 1, f"{cls.__name__} checked its literals {len(seen)} times"
    assert "<unset>" not in seen[0].values(), seen[0]


@pytest.mark.parametrize(
    "cls",
    [c for c in OPERATOR_CLASSES if len(c.operation.path_params) > 1 and c.operation.path_params[-1] in parameters(c)],
    ids=lambda c: c.__name__,
)
def test_a_blank_id_written_in_the_dag_file_fails_when_the_operator_is_built(cls: type) -> None:
    path_params = [p for p in cls.operation.path_params if p != "account_id"]
    kwargs: dict[str, Any] = {name: f"{{{{ params.{name} }}}}" for name in required(cls.__init__)}
    kwargs[path_params[-1]] = "  "
    with pytest.raises(MessagingPlatformValidationError) as refused:
        cls(task_id="t", **kwargs)
    assert path_params[-1] in str(refused.value)


@pytest.mark.parametrize("cls", OPERATOR_CLASSES, ids=lambda c: c.__name__)
def test_no_operator_parameter_takes_the_name_of_an_airflow_operator_attribute(cls: type) -> None:
    """A parameter named ``email`` (a contact's) would set Airflow's alert addresses: the task's retry and failure
    e-mails would go to the contact, and ``dag.test()`` on Airflow 3.0 and 3.1 fails rendering that e-mail."""
    airflow_names = set(dir(BaseOperator)) | set(parameters(BaseOperator))
    ours = set()
    for klass in cls.__mro__:
        if klass is BaseOperator:
            break
        if "__init__" in vars(klass):
            ours |= set(parameters(klass.__init__))
    assert not (ours - {"task_id"}) & airflow_names
