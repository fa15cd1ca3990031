"""What every operator shares: one per declared operation, templated ids, and templates that render."""

from __future__ import annotations

from pathlib import Path

import pytest

import messaging_platform_provider.operators as operators
from messaging_platform_provider.client.operations import OPERATIONS

HERE = Path(__file__).resolve().parent

#: Required arguments of each operator (beyond task_id), each given as a template of its own name.
REQUIRED = {
    "list_external_coupon_lists": (),
    "get_external_coupon_list": ("coupon_list_id",),
    "create_external_coupon_list": ("name",),
    "update_external_coupon_list": ("coupon_list_id",),
    "delete_external_coupon_list": ("coupon_list_id",),
    "list_external_coupon_codes": ("coupon_list_id",),
    "delete_external_coupon_code": ("coupon_list_id", "coupon_code"),
    "list_schedules": ("action_id",),
    "get_schedule": ("action_id", "schedule_id"),
    "create_schedule": ("action_id", "schedule_type", "run_at", "start_from"),
    "update_schedule": ("action_id", "schedule_id", "schedule_type", "run_at", "start_from"),
    "delete_schedule": ("action_id", "schedule_id"),
    "list_api_keys": (),
    "get_api_key": ("key_id",),
    "create_api_key": ("key_label",),
    "change_api_key_secret": ("key_id",),
    "revoke_api_key": ("key_id",),
    "list_campaigns": (),
    "get_campaign": ("campaign_id",),
    "create_campaign": ("name", "campaign_type"),
    "update_campaign": ("campaign_id",),
    "delete_campaign": ("campaign_id",),
    "update_campaign_coupon": ("campaign_id", "coupon_type"),
    "get_campaign_coupon": ("campaign_id",),
    "create_campaign_coupon": ("campaign_id", "coupon_type"),
    "get_campaign_coupon_redemptions": ("campaign_id",),
    "list_push_voice_calls": (),
    "get_push_voice_call": ("action_id",),
    "create_push_voice_call": ("channels",),
    "delete_push_voice_call": ("action_id",),
    "list_filter_groups": ("contact_list_id",),
    "get_filter_group": ("contact_list_id", "group_id"),
    "update_filter_group": ("contact_list_id", "group_id"),
    "list_contacts": (),
    "get_contact": ("contact_id",),
    "create_callback": ("callback_type", "url"),
    "attach_keyword_campaign": ("channel", "keyword_id", "campaign_id"),
    "list_callbacks": (),
    "get_callback": ("callback_id",),
}


def operator_class(name: str) -> type:
    return getattr(operators, "MessagingPlatform" + "".join(p.capitalize() for p in name.split("_")) + "Operator")


def test_the_table_covers_every_operation():
    assert len(OPERATIONS) == 39
    assert set(REQUIRED) == set(OPERATIONS)


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operation_has_its_operator_with_templated_ids(name):
    cls = operator_class(name)
    assert cls.operation == name
    fields = set(cls.template_fields)
    assert "account_id" in fields
    assert set(OPERATIONS[name].path_params) <= fields  # every id of the path is templated
    assert set(REQUIRED[name]) <= fields  # and so is every required argument


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operator_renders_its_template_fields(name):
    """The task runner renders every template field before ``execute``; a field naming a method breaks that."""
    cls = operator_class(name)
    kwargs = {arg: f"{{{{ params.{arg} }}}}" for arg in REQUIRED[name]}
    op = cls(task_id="t", account_id="{{ params.account }}", **kwargs)
    params = {arg: f"value-of-{arg}" for arg in REQUIRED[name]}
    op.render_template_fields({"params": {**params, "account": 1001}})
    assert op.account_id == "1001" and op.account == 1001
    for arg, value in params.items():
        assert getattr(op, arg) == value


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operator_is_built_by_a_wire_test(name):
    """Guards the resource files against losing an operation: each operator is constructed (and run) there."""
    sources = "".join(p.read_text() for p in HERE.glob("test_operators_*.py") if p.name != Path(__file__).name)
    assert f"{operator_class(name).__name__}(" in sources
