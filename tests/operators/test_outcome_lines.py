"""
Each task says in one INFO line what it did and to which resource: the call by its hook method's name, the ids it
addressed, and the outcome; a retry-safe create says whether it made the resource or adopted an earlier try's.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from structlog.testing import capture_logs

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateCouponDefinitionOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeleteCampaignOperator,
    MessagingPlatformGetScheduleOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformUpdateCampaignOperator,
)
from tests.operators.test_common import operator_class
from tests.support.operator_context import InMemoryStore, run, task_context
from tests.support.sample_resources import SampleResources


class Lines:
    """The INFO lines of the provider as a task log has them: the operators' own (``self.log``, structlog) and the
    client's (``logging``), in order."""

    def __init__(self, caplog: pytest.LogCaptureFixture, events: list[dict[str, Any]]) -> None:
        self.caplog = caplog
        self.events = events

    def info(self) -> list[str]:
        # structlog's events and logging's records are kept apart; each test reads one kind per step
        ours = [e["event"] for e in self.events if e.get("log_level") == "info"]
        client = [r.getMessage() for r in self.caplog.records if r.levelno == logging.INFO and "messaging" in r.name]
        return ours + client

    def warnings(self) -> list[str]:
        ours = [r for r in self.caplog.records if r.name.startswith("messaging_platform_provider")]
        return [r.getMessage() for r in ours if r.levelno == logging.WARNING]  # not Airflow's own (3.0 has some)

    def clear(self) -> None:
        self.caplog.clear()
        self.events.clear()


@pytest.fixture
def logs(caplog):
    caplog.set_level(logging.INFO)
    with capture_logs() as events:
        yield Lines(caplog, events)


def test_a_create_logs_what_it_created(platform, logs):
    run(MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Basic"))
    assert logs.info() == ["create_campaign: created Id 3001."]


def test_a_retried_create_logs_that_it_adopted_the_earlier_trys_resource(platform, logs):
    op = MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Basic")
    context = task_context(op, store=InMemoryStore())
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/campaign$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        run(op, context)
    assert logs.info() == []  # the first try made it, but never heard so
    run(op, context)
    assert logs.info() == ["create_campaign: adopted Id 3001, made by an earlier try of this task."]


def test_a_retry_after_the_first_try_heard_its_answer_logs_that_it_adopted_that_resource(platform, logs):
    """The first try heard the answer and kept the new id in the task's state (then failed later, say); the retry
    reads that id back and logs the adoption, not a create."""
    op = MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Basic")
    context = task_context(op, store=InMemoryStore())
    run(op, context)
    assert logs.info() == ["create_campaign: created Id 3001."]
    logs.clear()
    run(op, context)
    assert logs.info() == ["create_campaign: adopted Id 3001, made by an earlier try of this task."]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1


def test_a_retried_create_of_the_one_resource_of_a_parent_logs_that_it_adopted_it(platform, logs):
    """A campaign holds one coupon definition: the retry after a lost answer adopts the one the first try made."""
    MessagingPlatformHook().create_campaign(name="Coupons", campaign_type="Coupon")
    op = MessagingPlatformCreateCouponDefinitionOperator(
        task_id="define", campaign_id=3001, coupon_type="Static", static_code="SPRING10"
    )
    context = task_context(op, store=InMemoryStore())
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/coupon$", count=1)
    logs.clear()
    with pytest.raises(MessagingPlatformApiError):
        run(op, context)
    assert logs.info() == []
    run(op, context)
    assert logs.info() == [
        "create_coupon_definition (campaign_id=3001): adopted it, made by an earlier try of this task."
    ]


def test_a_retried_voice_call_create_says_why_the_call_it_adopted_is_its_own(platform, logs):
    """A voice call has no field for the run marker: the retry adopts the call with the fields the lost try sent, made
    after that try began its create. Its line says so; the operator does not claim it made it (stop_on_kill then
    leaves it alone: someone else could have made the same call meanwhile)."""
    op = MessagingPlatformCreatePushVoiceCallOperator(
        task_id="call", channels=["+15125550100"], targets=["+15555550123"], message="Hello."
    )
    context = task_context(op, store=InMemoryStore())
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/action-pushvoicecall$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        run(op, context)
    logs.clear()
    adopted = run(op, context)
    assert sorted(logs.info()) == [
        f"create_push_voice_call: adopted Id {adopted['Id']}, it has the fields an earlier try of this task sent and "
        "is newer than that try's create.",
        f"stop_on_kill will leave action {adopted['Id']} alone: adopted by its fields, it may not be this task's.",
    ]


def test_a_schedule_create_that_finds_an_identical_schedule_says_it_may_not_be_its_own(platform, logs):
    """``idempotent=True`` adopts a schedule with the same definition even on the first try: its line does not say
    that this task made it."""
    definition = {"schedule_type": "Daily", "run_at": "08:00:00", "start_from": "2026-12-01T00:00:00"}
    made = MessagingPlatformHook().create_schedule(5001, **definition)
    logs.clear()
    op = MessagingPlatformCreateScheduleOperator(task_id="s", action_id=5001, idempotent=True, **definition)
    run(op, task_context(op, store=InMemoryStore()))
    assert sorted(logs.info()) == [
        f"create_schedule (action_id=5001): adopted Id {made['Id']}, it has the fields of this task's create (made "
        "by an earlier try of this task, or by someone else).",
        f"stop_on_kill will leave schedules {made['Id']} of action 5001 alone: adopted by its fields, it may not be "
        "this task's.",
    ]


def test_a_create_on_a_parent_names_the_parent(platform, logs):
    op = MessagingPlatformCreateScheduleOperator(
        task_id="s", action_id=5001, schedule_type="Daily", run_at="08:00:00", start_from="2026-12-01T00:00:00"
    )
    made = run(op)
    assert logs.info() == [f"create_schedule (action_id=5001): created Id {made['Id']}."]
    logs.clear()
    run(MessagingPlatformGetScheduleOperator(task_id="g", action_id="5001", schedule_id=made["Id"]))
    assert logs.info() == [f"get_schedule (action_id=5001, schedule_id={made['Id']}): read."]


def test_list_update_and_delete_say_what_they_did(platform, logs):
    run(MessagingPlatformListCampaignsOperator(task_id="l"))
    assert logs.info() == ["list_campaigns: read 0 items."]
    logs.clear()
    run(MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Basic", idempotent=False))
    assert logs.info() == ["create_campaign: created Id 3001."]  # without the retry-safe lookup, the same line
    logs.clear()
    run(MessagingPlatformListCampaignsOperator(task_id="l"))
    run(MessagingPlatformUpdateCampaignOperator(task_id="u", campaign_id=3001, name="Summer"))
    run(MessagingPlatformDeleteCampaignOperator(task_id="d", campaign_id="3001"))
    assert logs.info() == [
        "list_campaigns: read 1 items.",
        "update_campaign (campaign_id=3001): updated.",
        "delete_campaign (campaign_id=3001): deleted.",
    ]


def test_a_delete_that_found_nothing_warns_once_and_logs_no_success(platform, logs):
    assert run(MessagingPlatformDeleteCampaignOperator(task_id="d", campaign_id=3999)) is False
    assert logs.info() == []
    (warning,) = logs.warnings()
    assert warning.startswith("Nothing deleted (missing_ok)") and "3999" in warning


#: Operator arguments of every operation that takes more than the ids of its path (those come from the sample
#: resources): the least each needs.
ARGUMENTS: dict[str, dict[str, Any]] = {
    "create_external_coupon_list": {"name": "Spring codes", "coupon_codes": ["A1"]},
    "update_external_coupon_list": {"coupon_codes": ["C3"]},
    "create_schedule": {"run_once_at": "2026-12-01T09:00:00"},
    "update_schedule": {"schedule_type": "Daily", "run_at": "10:00:00", "start_from": "2026-12-01T00:00:00"},
    "create_api_key": {"key_label": "Nightly"},
    "create_campaign": {"name": "Spring", "campaign_type": "Basic"},
    "update_campaign": {"name": "Renamed"},
    "update_coupon_definition": {"coupon_type": "Static", "static_code": "SUMMER5"},
    "create_coupon_definition": {"coupon_type": "Static", "static_code": "SPRING10"},
    "create_push_voice_call": {"channels": ["+15125550100"], "targets": ["+15125550199"], "message": "Hello"},
    "update_filter_group": {"operator": "OR"},
    "create_callback": {"callback_type": "Keyword", "url": "https://hooks.example.com/keyword"},
    "create_contact": {"phone_number": "+15125550177"},
    "update_contact": {"first_name": "Ann"},
}
#: What the line says a task did, by the call's method (a create: ``created Id N``).
DONE = {"GET": "read", "PUT": "updated.", "DELETE": "deleted.", "POST": "sent."}


@pytest.mark.parametrize("name", list(OPERATIONS))
def test_every_operator_logs_one_line_naming_the_call_its_ids_and_what_it_did(name, platform, logs):
    op = OPERATIONS[name]
    resources = SampleResources(MessagingPlatformHook(), platform.seed)
    ids = {p: resources(p) for p in op.path_params if p != "account_id"}
    arguments = dict(ARGUMENTS.get(name, {}))
    if name == "create_coupon_definition":
        ids["campaign_id"] = MessagingPlatformHook().create_campaign("Other", "Coupon")["Id"]  # no definition yet
    if name == "attach_keyword_campaign":
        arguments["campaign_id"] = resources("campaign_id")
    logs.clear()
    result = run(operator_class(name)(task_id="t", **ids, **arguments))
    (line,) = logs.info()
    assert line.startswith(name)
    for param, value in ids.items():
        assert f"{param}={value}" in line
    if op.dedupe is not None:  # a coupon definition has no Id of its own: its campaign's id names it
        assert line.endswith(f": created Id {result['Id']}." if "Id" in result else ": created it.")
    elif isinstance(result, list):
        assert line.endswith(f": read {len(result)} items.")
    else:
        assert line.endswith(": " + ("read." if op.method == "GET" else DONE[op.method]))
