"""Push voice call operators against the emulator: what goes over the wire and what lands in XCom."""

from __future__ import annotations

import pytest

from messaging_platform_emulator.control_client import EmulatorControlError
from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformDeletePushVoiceCallOperator,
    MessagingPlatformGetPushVoiceCallOperator,
    MessagingPlatformListPushVoiceCallsOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    sent,
    task_context,
)

CALLS = "/api/v2.1/account/1001/action-pushvoicecall"
LONG_CODE = "+15125550100"
CALL_FIELDS = (
    "channels", "targets", "contact_list_ids", "targets_url", "exclude_list_ids", "message", "audio_url",
    "campaign_id", "schedules", "extra",
)  # fmt: skip
DAILY = {"schedule_type": "Daily", "run_at": "09:00:00", "start_from": "2026-12-01T10:00:00+01:00"}


def call(**kwargs) -> MessagingPlatformCreatePushVoiceCallOperator:
    values = {"task_id": "v", "channels": [LONG_CODE], "targets": ["+15125550111"], "message": "Hello"}
    values.update(kwargs)
    return MessagingPlatformCreatePushVoiceCallOperator(**values)


def make_call(**kwargs) -> dict:
    values = {"targets": ["+15125550111"], "message": "Hi", **kwargs}
    return MessagingPlatformHook().create_push_voice_call([LONG_CODE], **values)


# -- create ---------------------------------------------------------------------------------------


def test_create_push_voice_call_sends_the_body_and_returns_the_action(platform):
    campaign = MessagingPlatformHook().create_campaign(name="Voice", campaign_type="Basic")
    clear_requests(platform)
    op = call(targets=["+15125550111", "7"], campaign_id=campaign["Id"], execute_now=False, schedules=[DAILY])
    result = run(op)
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", CALLS, "")
    assert_wire_headers(platform, lookup, with_body=False)
    assert sent(post) == ("POST", CALLS, "")
    assert_wire_headers(platform, post, with_body=True)
    assert post["json"] == {
        "Channels": [LONG_CODE],
        "Targets": ["+15125550111", "7"],
        "Message": "Hello",
        "CampaignId": 3001,
        "Execute": False,
        "Schedules": [{"ScheduleTypeId": 6, "RunAt": "09:00:00", "StartFrom": "2026-12-01T09:00:00"}],
    }
    assert post["status"] == 201
    assert result["AccountId"] == 1001 and result["Id"] > 5001  # a new action, after the seeded one
    assert (result["Channels"], result["Targets"], result["Message"]) == ([LONG_CODE], ["+15125550111", "7"], "Hello")
    assert (result["CampaignId"], result["Execute"], result["AudioUrl"]) == (3001, False, None)
    (schedule,) = result["Schedules"]
    assert (schedule["ScheduleTypeId"], schedule["ActionId"], schedule["StartFrom"]) == (
        6,
        result["Id"],
        "2026-12-01T09:00:00",
    )


def test_create_push_voice_call_to_contact_lists_with_audio(platform):
    op = call(
        targets=None,
        message=None,
        contact_list_ids=["4001"],
        exclude_list_ids=[4001],
        targets_url="https://example.com/targets.csv",
        audio_url="https://example.com/hello.MP3",
        extra={"Execute": True},
    )
    result = run(op)
    assert platform.control.requests()[-1]["json"] == {
        "Channels": [LONG_CODE],
        "ContactListIds": [4001],
        "ExcludeListIds": [4001],
        "TargetsUrl": "https://example.com/targets.csv",
        "AudioUrl": "https://example.com/hello.MP3",
        "Execute": True,
    }
    assert (result["ContactListIds"], result["AudioUrl"], result["Message"]) == (
        [4001],
        "https://example.com/hello.MP3",
        None,
    )


def test_create_push_voice_call_twice_with_the_same_context_posts_once(platform):
    op = call()
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second["Id"] == first["Id"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert [c["Id"] for c in MessagingPlatformHook().list_push_voice_calls()] == [first["Id"]]


def test_create_push_voice_call_retry_after_a_lost_answer_adopts_the_call_not_an_older_identical_one(platform):
    older = make_call(message="Hello")  # identical content, made before this task instance: never adopted
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/action-pushvoicecall$", count=1)
    op = call()
    context = task_context(op)
    with pytest.raises(MessagingPlatformApiError):
        run(op, context)  # the platform made the call, the answer was lost
    result = run(op, context)  # the retry
    calls = MessagingPlatformHook().list_push_voice_calls()
    assert [c["Id"] for c in calls] == [older["Id"], result["Id"]]
    posts = [r for r in platform.control.requests() if r["method"] == "POST"]
    assert len(posts) == 2  # the older call's and the first try's; the retry sent none


def test_a_hook_create_given_a_token_without_a_state_store_sends_again(platform):
    """docs/retry-safe-creates.md: a token without a task state store has no watermark, a retry creates again."""
    once = CreateOnce.for_task("a_dag", "a_task", "a_run")  # as a caller outside a task would build it
    hook = MessagingPlatformHook()
    first = hook.create_push_voice_call(["+15125550100"], targets=["+15555550100"], message="Hello", once=once)
    second = hook.create_push_voice_call(["+15125550100"], targets=["+15555550100"], message="Hello", once=once)
    assert first["Id"] != second["Id"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 2


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"channels": []}, "channels"),
        ({"targets": None}, "targets"),
        ({"audio_url": "https://example.com/a.mp3"}, "message"),
        ({"message": None}, "message"),
        ({"message": None, "audio_url": "https://example.com/a.ogg"}, "audio_url"),
        ({"targets_url": "ftp://example.com/t.csv"}, "targets_url"),
        ({"contact_list_ids": [0]}, "contact_list_ids"),
        ({"campaign_id": "abc"}, "campaign_id"),
        ({"schedules": [{**DAILY, "run_at": "9am"}]}, "schedules[0].run_at"),
        ({"schedules": [{**DAILY, "RunAt": "09:00:00"}]}, "schedules[0]"),
    ],
)
def test_create_push_voice_call_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(call(**kwargs))
    assert platform.control.requests() == []


def test_voice_call_operators_template_fields():
    assert set(MessagingPlatformCreatePushVoiceCallOperator.template_fields) >= {"account_id", *CALL_FIELDS}
    for cls in (MessagingPlatformGetPushVoiceCallOperator, MessagingPlatformDeletePushVoiceCallOperator):
        assert set(cls.template_fields) >= {"account_id", "action_id"}


def test_create_push_voice_call_renders_its_templates_and_runs(platform):
    """The task runner renders every template field before ``execute``; that must work for this operator too."""
    op = call(channels=["{{ params.ch }}"], message="Hello {{ params.who }}", campaign_id=None, execute_now=True)
    op.render_template_fields({"params": {"ch": LONG_CODE, "who": "Ann"}})
    assert (op.channels, op.message) == ([LONG_CODE], "Hello Ann")
    result = run(op)
    assert platform.control.requests()[-1]["json"]["Execute"] is True
    assert result["Message"] == "Hello Ann"


# -- list / get -----------------------------------------------------------------------------------


def test_list_push_voice_calls(platform):
    first, second = make_call(), make_call(message="Bye")
    clear_requests(platform)
    result = run(MessagingPlatformListPushVoiceCallsOperator(task_id="l"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", CALLS, "")
    assert_wire_headers(platform, record, with_body=False)
    assert [c["Id"] for c in result] == [first["Id"], second["Id"]]
    assert [c["Message"] for c in result] == ["Hi", "Bye"]


def test_list_push_voice_calls_empty_and_account_override(platform):
    assert run(MessagingPlatformListPushVoiceCallsOperator(task_id="l")) == []
    with fails_without_retry(MessagingPlatformApiError):
        run(MessagingPlatformListPushVoiceCallsOperator(task_id="l", account_id="1003"))
    first, second = platform.control.requests()
    assert (sent(first), first["status"]) == (("GET", CALLS, ""), 204)
    assert (sent(second), second["status"]) == (("GET", "/api/v2.1/account/1003/action-pushvoicecall", ""), 404)


def test_get_push_voice_call(platform):
    made = make_call()
    clear_requests(platform)
    result = run(MessagingPlatformGetPushVoiceCallOperator(task_id="g", action_id=str(made["Id"])))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{CALLS}/{made['Id']}", "")
    assert result == made


# -- delete ---------------------------------------------------------------------------------------


def test_delete_push_voice_call_true_then_false_and_its_schedules_stop(platform):
    made = make_call(schedules=[DAILY])
    schedule_id = made["Schedules"][0]["Id"]
    assert made["Schedules"][0]["ProcessStatus"] == "Pending"  # recurring: stays Pending until stopped
    clear_requests(platform)
    op = MessagingPlatformDeletePushVoiceCallOperator(task_id="d", action_id=made["Id"])
    assert run(op) is True
    assert run(op) is False
    records = platform.control.requests()
    assert [sent(r) for r in records] == [("DELETE", f"{CALLS}/{made['Id']}", "")] * 2
    assert [r["status"] for r in records] == [200, 404]
    assert MessagingPlatformHook().list_push_voice_calls() == []
    # The action's schedule was stopped with it: the emulator refuses to abort it again, naming its state.
    with pytest.raises(EmulatorControlError) as refused:
        platform.control.abort_schedule(schedule_id)
    assert refused.value.status == 409
    assert "Aborted" in refused.value.message


def test_delete_push_voice_call_missing_not_ok_fails(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformDeletePushVoiceCallOperator(task_id="d", action_id=5999, missing_ok=False))
    assert caught.value.status == 404
