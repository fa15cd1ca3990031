"""The docs' operation table, the hook and the operators stay in step with the one declaration per operation."""

from __future__ import annotations

import inspect
import sys

import messaging_platform_provider.operators as operators
from messaging_platform_provider.client.operations import OPERATIONS, SPEC_OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.paths import SCRIPTS

sys.path.insert(0, str(SCRIPTS))
from operations_table import operator_name  # noqa: E402

sys.path.pop(0)


def test_the_spec_has_31_operations_and_each_is_declared_once():
    assert len(SPEC_OPERATIONS) == 31
    assert len(OPERATIONS) == len({(op.method, op.path) for op in OPERATIONS.values()})


def test_every_operation_has_a_hook_method_and_an_operator():
    for name, op in OPERATIONS.items():
        assert callable(getattr(MessagingPlatformHook, name, None)), f"hook method {name} is missing"
        cls = getattr(operators, operator_name(name), None)
        assert cls is not None, f"operator {operator_name(name)} is missing"
        assert cls.operation is op
        assert "account_id" in cls.template_fields
        for param in op.path_params:
            if param != "account_id":
                assert param in cls.template_fields, (cls.__name__, param)


def test_every_operator_is_exported_and_documented():
    exported = {n for n, obj in vars(operators).items() if inspect.isclass(obj) and n.endswith("Operator")}
    named = {operator_name(name) for name in OPERATIONS}
    bases = {"MessagingPlatformBaseOperator", "MessagingPlatformCreateOperator"}
    composite = {"MessagingPlatformRotateApiKeyOperator"}  # a sequence of operations, not one of them
    bulk = {"MessagingPlatformDeleteExternalCouponCodesOperator"}  # many calls of one operation (hook.call_many)
    assert exported - bases - composite - bulk == named
    for cls_name in named | composite | bulk:
        assert getattr(operators, cls_name).__doc__, cls_name
    for cls_name in bulk:
        assert getattr(operators, cls_name).operation in OPERATIONS.values()


def test_create_operations_are_declared_retry_safe():
    creates = [op for op in OPERATIONS.values() if op.method == "POST"]
    for op in creates:
        assert op.dedupe is not None or op.resend_safe, op.name
        cls = getattr(operators, operator_name(op.name))
        if op.dedupe is not None:
            assert issubclass(cls, operators.MessagingPlatformCreateOperator), op.name
