"""Campaign operators against the emulator: what goes over the wire and what lands in XCom."""

from __future__ import annotations

import re

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformDeleteCampaignOperator,
    MessagingPlatformGetCampaignOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformUpdateCampaignOperator,
    MessagingPlatformUpdateCouponDefinitionOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    sent,
    strip_marker,
    task_context,
)

CAMPAIGNS = "/api/v2.1/account/1001/campaign"


def make_campaign(name: str = "Seeded", campaign_type: int | str = "Basic") -> dict:
    return MessagingPlatformHook().create_campaign(name=name, campaign_type=campaign_type)


def test_the_seed_is_what_the_paths_below_assume(platform):
    assert platform.seed.account_id == 1001


# -- create ---------------------------------------------------------------------------------------


def test_create_campaign_sends_pascal_case_with_the_run_marker_and_returns_the_campaign(platform):
    op = MessagingPlatformCreateCampaignOperator(
        task_id="c", name="Spring", campaign_type="Coupon", user_data="spring", single_use=True
    )
    result = run(op)

    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", CAMPAIGNS, "")  # the retry-safe lookup comes first
    assert lookup["status"] == 204
    assert_wire_headers(platform, lookup, with_body=False)
    assert sent(post) == ("POST", CAMPAIGNS, "")
    assert post["status"] == 201
    assert_wire_headers(platform, post, with_body=True)
    marker = "[af:3b30fcef011066d8]"  # sha256("d␟c␟r1␟-1"), first 16 hex digits: dag, task, run, map index
    assert post["json"] == {"Name": "Spring", "CampaignTypeId": 4, "UserData": f"spring {marker}", "SingleUse": True}

    assert result["Id"] == 3001
    assert result["AccountId"] == 1001
    assert (result["Name"], result["CampaignTypeId"], result["SingleUse"]) == ("Spring", 4, True)
    assert result["UserData"] == f"spring {marker}"
    assert strip_marker(result["UserData"]) == "spring"


def test_create_campaign_marker_alone_when_there_is_no_user_data(platform):
    result = run(MessagingPlatformCreateCampaignOperator(task_id="c", name="Plain", campaign_type=1))
    post = platform.control.requests()[-1]
    assert post["json"]["UserData"] == result["UserData"] == "[af:3b30fcef011066d8]"
    assert re.fullmatch(r"\[af:[0-9a-f]{16}\]", result["UserData"])


def test_create_campaign_marker_is_run_scoped(platform):
    op = MessagingPlatformCreateCampaignOperator(task_id="c", name="Daily", campaign_type="Basic")
    first = run(op, task_context(op, run_id="r1"))
    second = run(op, task_context(op, run_id="r2"))
    assert first["Id"] != second["Id"]  # another run of the task is another campaign
    assert first["UserData"] != second["UserData"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 2


def test_create_campaign_twice_with_the_same_context_posts_once(platform):
    op = MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Coupon")
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second == first
    records = platform.control.requests()
    assert [r["method"] for r in records].count("POST") == 1
    # The second run read back the id the first one stored, without listing again.
    assert sent(records[-1]) == ("GET", f"{CAMPAIGNS}/3001", "")
    assert MessagingPlatformHook().list_campaigns() == [first]


def test_create_campaign_second_try_without_stored_id_finds_it_by_marker(platform):
    op = MessagingPlatformCreateCampaignOperator(task_id="c", name="Spring", campaign_type="Coupon")
    first = run(op, task_context(op))
    clear_requests(platform)
    second = run(op, task_context(op))  # a fresh state store: only the marker can find it
    assert second == first
    assert [sent(r) for r in platform.control.requests()] == [("GET", CAMPAIGNS, ""), ("GET", f"{CAMPAIGNS}/3001", "")]


def test_create_campaign_not_idempotent_sends_the_fields_as_given(platform):
    op = MessagingPlatformCreateCampaignOperator(
        task_id="c", name="Exact", campaign_type="Dialog", user_data="as-is", idempotent=False
    )
    result = run(op)
    (post,) = platform.control.requests()
    assert sent(post) == ("POST", CAMPAIGNS, "")
    assert post["json"] == {"Name": "Exact", "CampaignTypeId": 2, "UserData": "as-is"}
    assert result["UserData"] == "as-is"


def test_create_campaign_extra_is_merged_on_top(platform):
    op = MessagingPlatformCreateCampaignOperator(
        task_id="c", name="Extra", campaign_type="Basic", extra={"SubscriptionId": 7}, idempotent=False
    )
    run(op)
    assert platform.control.requests()[0]["json"] == {"Name": "Extra", "CampaignTypeId": 1, "SubscriptionId": 7}


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": "Bad", "campaign_type": "Lottery"}, "campaign_type"),
        ({"name": "  ", "campaign_type": "Basic"}, "name"),
        ({"name": "Both", "campaign_type": "Basic", "content_id": 1, "content": {"Text": "x"}}, "content_id"),
    ],
)
def test_create_campaign_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformCreateCampaignOperator(task_id="c", **kwargs)
        run(op)
    assert platform.control.requests() == []


def test_create_campaign_template_fields():
    fields = MessagingPlatformCreateCampaignOperator.template_fields
    for name in ("account_id", "name", "campaign_type", "user_data", "content", "links", "extra"):
        assert name in fields


# -- list / get -----------------------------------------------------------------------------------


def test_list_campaigns_sends_only_mine_and_returns_the_list(platform):
    first, second = make_campaign("One"), make_campaign("Two")
    clear_requests(platform)
    result = run(MessagingPlatformListCampaignsOperator(task_id="l", only_mine=True))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", CAMPAIGNS, "onlyMine=true")
    assert_wire_headers(platform, record, with_body=False)
    assert result == [first, second]


def test_list_campaigns_without_only_mine_sends_no_query_and_empty_is_an_empty_list(platform):
    result = run(MessagingPlatformListCampaignsOperator(task_id="l"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", CAMPAIGNS, "")
    assert record["status"] == 204
    assert result == []


def test_get_campaign(platform):
    made = make_campaign("Shown", "Sweepstakes")
    clear_requests(platform)
    result = run(MessagingPlatformGetCampaignOperator(task_id="g", campaign_id=made["Id"]))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{CAMPAIGNS}/3001", "")
    assert record["body"] in ("", None)
    assert result == made
    assert result["CampaignTypeId"] == 5


def test_get_campaign_with_a_rendered_template_id(platform):
    made = make_campaign()
    clear_requests(platform)
    op = MessagingPlatformGetCampaignOperator(task_id="g", campaign_id="{{ params.c }}", account_id="{{ params.a }}")
    op.render_template_fields({"params": {"c": made["Id"], "a": 1001}})
    assert (op.campaign_id, op.account_id) == ("3001", "1001")  # a template renders to a string
    assert run(op)["Id"] == 3001
    assert sent(platform.control.requests()[0]) == ("GET", f"{CAMPAIGNS}/3001", "")


def test_id_operators_template_fields():
    assert set(MessagingPlatformGetCampaignOperator.template_fields) >= {"account_id", "campaign_id"}
    assert set(MessagingPlatformDeleteCampaignOperator.template_fields) >= {"account_id", "campaign_id"}
    assert set(MessagingPlatformUpdateCampaignOperator.template_fields) >= {
        "account_id", "campaign_id", "name", "campaign_type", "user_data", "extra",
    }  # fmt: skip
    assert set(MessagingPlatformUpdateCouponDefinitionOperator.template_fields) >= {
        "account_id", "campaign_id", "coupon_type", "static_code", "valid_from", "valid_to", "external_list_id",
    }  # fmt: skip


# -- account override -----------------------------------------------------------------------------


def test_account_id_override_reaches_the_path(platform, monkeypatch):
    # The connection's default account is one the key cannot reach; the operator's account_id wins.
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(extra={"account_id": 42}))
    result = run(MessagingPlatformListCampaignsOperator(task_id="l", account_id="1001"))
    assert result == []
    assert sent(platform.control.requests()[0]) == ("GET", CAMPAIGNS, "")


def test_account_id_override_to_another_account(platform):
    op = MessagingPlatformGetCampaignOperator(task_id="g", campaign_id=3001, account_id=1002)
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("GET", "/api/v2.1/account/1002/campaign/3001", "")


# -- update ---------------------------------------------------------------------------------------


def test_update_campaign_sends_only_the_given_fields(platform):
    made = make_campaign("Before")
    clear_requests(platform)
    op = MessagingPlatformUpdateCampaignOperator(
        task_id="u", campaign_id=str(made["Id"]), name="After", campaign_type="Chat", is_default=False
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{CAMPAIGNS}/3001", "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == {"Name": "After", "CampaignTypeId": 6, "IsDefault": False}
    assert record["status"] == 200
    assert (result["Id"], result["Name"], result["CampaignTypeId"]) == (3001, "After", 6)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({}, "body"), ({"campaign_type": "Nope"}, "campaign_type"), ({"name": ""}, "name")],
)
def test_update_campaign_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformUpdateCampaignOperator(task_id="u", campaign_id=3001, **kwargs)
        run(op)
    assert platform.control.requests() == []


# -- delete ---------------------------------------------------------------------------------------


def test_delete_campaign_true_then_false(platform):
    made = make_campaign()
    clear_requests(platform)
    op = MessagingPlatformDeleteCampaignOperator(task_id="d", campaign_id=made["Id"])
    assert run(op) is True
    assert run(op) is False  # already gone counts as done
    records = platform.control.requests()
    assert [sent(r) for r in records] == [("DELETE", f"{CAMPAIGNS}/3001", "")] * 2
    assert [r["status"] for r in records] == [200, 404]


def test_delete_campaign_missing_not_ok_fails(platform):
    op = MessagingPlatformDeleteCampaignOperator(task_id="d", campaign_id=3999, missing_ok=False)
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("DELETE", f"{CAMPAIGNS}/3999", "")


# -- coupon definition ----------------------------------------------------------------------------


def test_update_coupon_definition_sends_the_definition(platform):
    made = make_campaign("Coupons", "Coupon")
    clear_requests(platform)
    op = MessagingPlatformUpdateCouponDefinitionOperator(
        task_id="cp",
        campaign_id=made["Id"],
        coupon_type="Static",
        static_code="SPRING10",
        prefix="SP",
        valid_from="2026-03-01T08:00:00+02:00",
        valid_to="2026-03-31",
        max_uses=3,
        valid_date_type="Static",
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{CAMPAIGNS}/3001/coupon", "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == {
        "CouponTypeId": 0,
        "StaticCode": "SPRING10",
        "Prefix": "SP",
        "ValidFrom": "2026-03-01T06:00:00",
        "ValidTo": "2026-03-31T00:00:00",
        "MaxUses": 3,
        "ValidDateTypeId": 1,
    }
    assert result["CampaignId"] == 3001
    assert (result["CouponTypeId"], result["StaticCode"], result["MaxUses"]) == (0, "SPRING10", 3)
    assert (result["ValidFrom"], result["ValidTo"]) == ("2026-03-01T06:00:00", "2026-03-31T00:00:00")


def test_update_coupon_definition_external_list_id_from_a_template_string(platform):
    hook = MessagingPlatformHook()
    made = make_campaign("Coupons", "Coupon")
    codes = hook.create_external_coupon_list(name="Codes", coupon_codes=["A1"])
    clear_requests(platform)
    op = MessagingPlatformUpdateCouponDefinitionOperator(
        task_id="cp", campaign_id=str(made["Id"]), coupon_type="External", external_list_id=str(codes["Id"])
    )
    result = run(op)
    assert platform.control.requests()[0]["json"] == {
        "CouponTypeId": 2,
        "ExternalListId": codes["Id"],
        "StaticCode": "",
    }
    assert result["ExternalListId"] == codes["Id"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"coupon_type": "Static"}, "static_code"),
        ({"coupon_type": "External"}, "external_list_id"),
        ({"coupon_type": "Dynamic", "valid_date_type": "Rolling"}, "valid_rolling_days"),
        ({"coupon_type": "Dynamic", "max_uses": -1}, "max_uses"),
        ({"coupon_type": "Dynamic", "valid_from": "2026-02-01", "valid_to": "2026-01-01"}, "valid_to"),
        ({"coupon_type": "Gold"}, "coupon_type"),
        ({"coupon_type": "External", "external_list_id": "{{ bad }}"}, "external_list_id"),
    ],
)
def test_update_coupon_definition_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformUpdateCouponDefinitionOperator(task_id="cp", campaign_id=3001, **kwargs)
        run(op)
    assert platform.control.requests() == []


def test_update_coupon_definition_on_a_campaign_that_is_not_a_coupon_campaign(platform):
    made = make_campaign("Plain", "Basic")
    clear_requests(platform)
    op = MessagingPlatformUpdateCouponDefinitionOperator(
        task_id="cp", campaign_id=made["Id"], coupon_type="Static", static_code="X"
    )
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 400
    assert "CampaignTypeId" in [d.property_name for d in caught.value.details]
