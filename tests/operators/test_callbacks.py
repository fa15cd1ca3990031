"""Callback record and keyword attachment operators against the emulator: the wire and the XCom."""

from __future__ import annotations

import json

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformAttachKeywordCampaignOperator,
    MessagingPlatformCreateCallbackOperator,
    MessagingPlatformGetCallbackOperator,
    MessagingPlatformListCallbacksOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    seed,
    sent,
    task_context,
)

CALLBACKS = "/api/v2.1/account/1001/callback"
KEYWORD = "/api/v2.1/account/1001/channel/22/keyword/8001/campaign"
RECEIVER = "https://hooks.example.com/keyword"


def make_callback(url: str = RECEIVER, callback_type: str = "Keyword") -> dict:
    return MessagingPlatformHook().create_callback(callback_type, url)


def test_the_seed_is_what_the_paths_below_assume(platform):
    ids = seed(platform)
    assert (ids["account_id"], ids["channel_id"], ids["keyword_id"]) == (1001, 22, 8001)


# -- create ---------------------------------------------------------------------------------------


def test_create_callback_sends_the_record_and_returns_it(platform):
    result = run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type="Keyword", url=RECEIVER))
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", CALLBACKS, "")
    assert_wire_headers(platform, lookup, with_body=False)
    assert sent(post) == ("POST", CALLBACKS, "")
    assert_wire_headers(platform, post, with_body=True)
    assert post["json"] == {"CallbackType": 1, "URL": RECEIVER, "Active": True}
    assert post["status"] == 201
    assert result["Id"] == 9001  # the emulator numbers callbacks from 9001
    assert (result["AccountId"], result["CallbackType"], result["URL"], result["Active"]) == (1001, 1, RECEIVER, True)


def test_create_inactive_callback_by_number(platform):
    op = MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type="11", url=RECEIVER, active=False)
    result = run(op)
    assert platform.control.requests()[-1]["json"] == {"CallbackType": 11, "URL": RECEIVER, "Active": False}
    assert (result["CallbackType"], result["Active"]) == (11, False)


def test_create_callback_twice_with_the_same_context_posts_once(platform):
    op = MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type="Stop", url=RECEIVER)
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second == first
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert MessagingPlatformHook().list_callbacks() == [first]


def test_create_callback_adopts_an_identical_record_and_adds_a_different_one(platform):
    existing = make_callback()
    clear_requests(platform)
    same = run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type=1, url=RECEIVER))
    assert same == existing
    assert [r["method"] for r in platform.control.requests()].count("POST") == 0
    other = run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type=1, url=RECEIVER + "/2"))
    assert other["Id"] != existing["Id"]
    assert [c["URL"] for c in MessagingPlatformHook().list_callbacks()] == [RECEIVER, RECEIVER + "/2"]


def test_create_callback_does_not_adopt_a_record_whose_url_differs_in_case(platform):
    """URL paths are case-sensitive: a receiver at /Keyword is not the receiver at /keyword."""
    existing = make_callback("https://hooks.example.com/Keyword")
    result = run(MessagingPlatformCreateCallbackOperator(task_id="cb", callback_type=1, url=RECEIVER))
    assert result["URL"] == RECEIVER and result["Id"] != existing["Id"]
    assert sorted(c["URL"] for c in MessagingPlatformHook().list_callbacks()) == [existing["URL"], RECEIVER]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"callback_type": "Sms", "url": RECEIVER}, "callback_type"),
        ({"callback_type": 2, "url": RECEIVER}, "callback_type"),
        ({"callback_type": "Stop", "url": "hooks.example.com/stop"}, "url"),
    ],
)
def test_create_callback_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(MessagingPlatformCreateCallbackOperator(task_id="cb", **kwargs))
    assert platform.control.requests() == []


def test_callback_operators_template_fields():
    assert set(MessagingPlatformCreateCallbackOperator.template_fields) >= {
        "account_id",
        "callback_type",
        "url",
        "extra",
    }
    assert set(MessagingPlatformGetCallbackOperator.template_fields) >= {"account_id", "callback_id"}
    assert set(MessagingPlatformAttachKeywordCampaignOperator.template_fields) >= {
        "account_id", "channel", "keyword_id", "campaign_id",
    }  # fmt: skip


# -- list / get -----------------------------------------------------------------------------------


def test_list_callbacks(platform):
    first, second = make_callback(), make_callback(RECEIVER + "/stop", "Stop")
    clear_requests(platform)
    result = run(MessagingPlatformListCallbacksOperator(task_id="l"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", CALLBACKS, "")
    assert_wire_headers(platform, record, with_body=False)
    assert result == [first, second]


def test_list_callbacks_empty_and_account_override(platform):
    assert run(MessagingPlatformListCallbacksOperator(task_id="l")) == []
    with fails_without_retry(MessagingPlatformApiError):
        run(MessagingPlatformListCallbacksOperator(task_id="l", account_id="1009"))
    first, second = platform.control.requests()
    assert (sent(first), first["status"]) == (("GET", CALLBACKS, ""), 204)
    assert (sent(second), second["status"]) == (("GET", "/api/v2.1/account/1009/callback", ""), 404)


def test_get_callback(platform):
    made = make_callback()
    clear_requests(platform)
    result = run(MessagingPlatformGetCallbackOperator(task_id="g", callback_id=str(made["Id"])))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{CALLBACKS}/{made['Id']}", "")
    assert result == made


# -- keyword attachment ---------------------------------------------------------------------------


def test_attach_keyword_campaign_sends_the_bare_campaign_id(platform):
    campaign = MessagingPlatformHook().create_campaign(name="Gateway", campaign_type="Gateway")
    clear_requests(platform)
    op = MessagingPlatformAttachKeywordCampaignOperator(
        task_id="kw", channel=22, keyword_id=8001, campaign_id=str(campaign["Id"])
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("POST", KEYWORD, "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == 3001 and json.loads(record["body"]) == 3001
    assert record["status"] == 200
    assert (result["Id"], result["ChannelId"], result["Name"], result["CampaignId"]) == (8001, 22, "JOIN", 3001)


def test_attach_keyword_campaign_is_safe_to_send_again(platform):
    campaign = MessagingPlatformHook().create_campaign(name="Gateway", campaign_type="Gateway")
    clear_requests(platform)
    op = MessagingPlatformAttachKeywordCampaignOperator(
        task_id="kw", channel="55222", keyword_id="JOIN", campaign_id=campaign["Id"]
    )
    first, second = run(op), run(op)
    assert first["CampaignId"] == second["CampaignId"] == 3001 and first["Id"] == second["Id"] == 8001
    assert [sent(r) for r in platform.control.requests()] == [
        ("POST", "/api/v2.1/account/1001/channel/55222/keyword/JOIN/campaign", "")
    ] * 2


@pytest.mark.parametrize("campaign_id", ["abc", 0, True])
def test_attach_keyword_campaign_bad_campaign_id_fails_before_any_request(platform, campaign_id):
    op = MessagingPlatformAttachKeywordCampaignOperator(
        task_id="kw", channel=22, keyword_id=8001, campaign_id=campaign_id
    )
    with fails_without_retry(MessagingPlatformValidationError) as caught:
        run(op)
    assert caught.value.field == "campaign_id" and "campaign_id" in str(caught.value)
    assert platform.control.requests() == []


def test_attach_keyword_campaign_unknown_campaign_is_refused(platform):
    op = MessagingPlatformAttachKeywordCampaignOperator(task_id="kw", channel=22, keyword_id=8001, campaign_id=3999)
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404
    assert platform.control.requests()[0]["json"] == 3999
