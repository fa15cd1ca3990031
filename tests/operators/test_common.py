"""
What every operator shares: one per declared operation, templated ids, a signature that matches its hook method
and its body's declaration, templates that render; and every read operator run against the emulator.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import messaging_platform_provider.operators as operators
from messaging_platform_provider.client.fields import keys
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.operator_context import clear_requests, run
from tests.support.sample_resources import SampleResources

HERE = Path(__file__).resolve().parent
#: The modules here that test what operators share, not the operators of one resource (``test_<resource>.py``).
NOT_RESOURCE_TESTS = {"test_common.py", "test_catalog.py", "test_retry_safe_creates.py", "test_wait_for_completion.py"}
READS = [name for name, op in OPERATIONS.items() if op.method == "GET"]
WRITES = [name for name, op in OPERATIONS.items() if op.method != "GET"]
#: Operator parameters that are neither a path value nor a body field: how the task behaves, not what it sends.
#: Parameters beside the declared fields: fields the declaration does not know, a secret kept in XCom on request, and
#: a schedule's three required fields said in one (client/schedules.py).
TASK_OPTIONS = {"extra", "include_secret", "run_once_at"}


def operator_class(name: str) -> type:
    return getattr(operators, "MessagingPlatform" + "".join(p.capitalize() for p in name.split("_")) + "Operator")


def parameters(function: object) -> dict[str, inspect.Parameter]:
    """The named parameters of a function (no ``self``, ``*args`` or ``**kwargs``)."""
    named = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    params = inspect.signature(function).parameters.items()
    return {n: p for n, p in params if p.kind in named and n != "self"}


def required(function: object) -> set[str]:
    return {n for n, p in parameters(function).items() if p.default is inspect.Parameter.empty}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operation_has_its_operator_with_templated_ids(name):
    cls = operator_class(name)
    assert cls.operation is OPERATIONS[name]
    fields = set(cls.template_fields)
    assert "account_id" in fields
    assert set(OPERATIONS[name].path_params) <= fields  # every id of the path is templated
    assert required(cls.__init__) <= fields  # and so is every required argument


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operator_requires_what_its_hook_method_requires(name):
    cls, method = operator_class(name), getattr(MessagingPlatformHook, name)
    assert required(cls.__init__) == required(method)


@pytest.mark.parametrize("name", [name for name, op in OPERATIONS.items() if op.fields is not None])
def test_every_operator_with_a_body_takes_exactly_the_declared_fields(name):
    """The operators spell their parameters out; this holds them to the one declaration of the body."""
    op, cls = OPERATIONS[name], operator_class(name)
    declared = set(keys(op.fields))
    params = set(parameters(cls.__init__))
    assert declared <= params, f"{cls.__name__} lacks {declared - params}"
    assert params - declared - set(op.path_params) <= TASK_OPTIONS
    assert declared | {"extra"} <= set(cls.template_fields)
    for key in declared - required(cls.__init__):
        default = parameters(cls.__init__)[key].default
        assert default is None or key in ("key_type", "active"), (key, default)  # None: not sent


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operator_renders_its_template_fields(name):
    """The task runner renders every template field before ``execute``; a field naming a method breaks that."""
    cls = operator_class(name)
    needed = sorted(required(cls.__init__))
    kwargs = {arg: f"{{{{ params.{arg} }}}}" for arg in needed}
    op = cls(task_id="t", account_id="{{ params.account }}", **kwargs)
    params = {arg: f"value-of-{arg}" for arg in needed}
    op.render_template_fields({"params": {**params, "account": 1001}})
    assert op.account_id == "1001" and op.account == 1001
    for arg, value in params.items():
        assert getattr(op, arg) == value


@pytest.mark.parametrize("name", READS)
def test_every_read_operator_returns_what_the_platform_holds(name, platform):
    op, cls = OPERATIONS[name], operator_class(name)
    hook = MessagingPlatformHook()
    values = SampleResources(hook, platform.seed).path_values(op)
    # Both reads see one moment: an API key's LastActivity is the second of the last request made with it.
    platform.control.set_clock(scale=0)
    expected = getattr(hook, name)(*values)
    clear_requests(platform)
    path_params = [p for p in op.path_params if p != "account_id"]
    result = run(cls(task_id="read", **dict(zip(path_params, values, strict=True))))
    if op.secret_fields:
        expected = {k: v for k, v in expected.items() if k not in op.secret_fields}
    assert result == expected
    (record,) = platform.control.requests()
    path = op.path.format(account_id=platform.seed.account_id, **dict(zip(path_params, values, strict=True)))
    assert (record["method"], record["path"]) == ("GET", "/api/v2.1" + path)


@pytest.mark.parametrize("name", WRITES)
def test_every_write_operator_is_built_by_a_wire_test(name):
    """Guards the resource files against losing a write: each such operator is constructed (and run) there."""
    sources = "".join(p.read_text() for p in HERE.glob("test_*.py") if p.name not in NOT_RESOURCE_TESTS)
    assert f"{operator_class(name).__name__}(" in sources
