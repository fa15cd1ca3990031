"""
Coupon definitions beyond the update: create (POST), read, redemption counts; and the OData filter and
single-contact read. Against the emulator, asserting what went over the wire and what lands in XCom.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
import requests

from messaging_platform_provider.client import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateCouponDefinitionOperator,
    MessagingPlatformGetContactOperator,
    MessagingPlatformGetCouponDefinitionOperator,
    MessagingPlatformGetCouponRedemptionDetailsOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformListContactsOperator,
)
from tests.support.operator_context import (
    InMemoryStore,
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    sent,
    task_context,
)

COUPON = "/api/v2.1/account/1001/campaign/3001/coupon"


@pytest.fixture
def campaign(platform) -> int:
    made = MessagingPlatformHook().create_campaign(name="Coupons", campaign_type="Coupon")
    assert made["Id"] == 3001
    clear_requests(platform)
    return 3001


def _create(**fields) -> MessagingPlatformCreateCouponDefinitionOperator:
    return MessagingPlatformCreateCouponDefinitionOperator(task_id="define", campaign_id="3001", **fields)


def test_create_coupon_definition_posts_the_definition_with_static_code_and_labels(platform, campaign):
    result = run(_create(coupon_type="Dynamic", prefix="SPR", max_uses="2", name="Spring", description="April"))
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", COUPON, "") and lookup["status"] == 404  # none before: recorded, then sent
    assert sent(post) == ("POST", COUPON, "") and post["status"] == 201
    assert_wire_headers(platform, post, with_body=True)
    assert post["json"] == {
        "CouponTypeId": 1,
        "Prefix": "SPR",
        "MaxUses": 2,
        "Name": "Spring",
        "Description": "April",
        "StaticCode": "",
    }
    assert (result["CampaignId"], result["CouponTypeId"], result["Prefix"]) == (3001, 1, "SPR")
    assert (result["Name"], result["Description"]) == ("Spring", "April")


def test_a_second_definition_is_refused_by_the_platform(platform, campaign):
    run(_create(coupon_type="Static", static_code="SPRING10"))
    again = MessagingPlatformCreateCouponDefinitionOperator(
        task_id="define-again", campaign_id=3001, coupon_type="Static", static_code="SUMMER10"
    )
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(again)
    assert caught.value.status == 400
    assert MessagingPlatformHook().get_coupon_definition(3001)["StaticCode"] == "SPRING10"


def test_a_retry_after_a_lost_answer_adopts_the_definition_the_first_try_made(platform, campaign):
    store = InMemoryStore()
    op = _create(coupon_type="Static", static_code="SPRING10")
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/coupon$", count=1)
    with pytest.raises(MessagingPlatformApiError, match="no response"):  # lost: Airflow may retry
        run(op, task_context(op, store=store))
    result = run(op, task_context(op, store=store))  # the retry: same task instance, same store
    assert result["StaticCode"] == "SPRING10"
    posts = [r for r in platform.control.requests() if r["method"] == "POST"]
    assert [r["fault"] for r in posts] == ["commit_then_drop"]  # the retry sent no second POST


def test_a_retry_never_adopts_a_definition_that_existed_before_the_first_try(platform, campaign):
    MessagingPlatformHook().create_coupon_definition(3001, "Static", static_code="OLD")
    store = InMemoryStore()
    op = _create(coupon_type="Static", static_code="NEW")
    for _ in range(2):  # the first try and its retry both get the platform's refusal
        with fails_without_retry(MessagingPlatformApiError) as caught:
            run(op, task_context(op, store=store))
        assert caught.value.status == 400
    assert MessagingPlatformHook().get_coupon_definition(3001)["StaticCode"] == "OLD"


def test_create_coupon_definition_bad_input_fails_before_any_request(platform, campaign):
    with refused("static_code"):
        run(_create(coupon_type="Static", static_code="  "))
    assert platform.control.requests() == []


def test_get_coupon_definition_and_redemption_counts(platform, campaign):
    hook = MessagingPlatformHook()
    hook.create_coupon_definition(3001, "Static", static_code="SPRING10", max_uses=1)
    base = platform.base_url + "/account/1001/event-redeemcoupon"
    auth = (platform.seed.api_key, platform.seed.api_secret)
    for _ in range(2):  # one contact redeems twice: the second is over MaxUses
        requests.post(base, json="SPRING10", params={"contactId": 6001}, auth=auth, timeout=10).raise_for_status()
    clear_requests(platform)

    definition = run(MessagingPlatformGetCouponDefinitionOperator(task_id="g", campaign_id="3001"))
    counts = run(MessagingPlatformGetCouponRedemptionDetailsOperator(task_id="r", campaign_id=3001))
    get, redemptions = platform.control.requests()
    assert sent(get) == ("GET", COUPON, "")
    assert sent(redemptions) == ("GET", COUPON + "/redemptions", "")
    assert (definition["CouponTypeId"], definition["StaticCode"], definition["MaxUses"]) == (0, "SPRING10", 1)
    assert (counts["RedemptionCount"], counts["TooManyCount"], counts["TotalBadCount"]) == (1, 1, 1)


def test_get_contact(platform):
    first = MessagingPlatformHook().list_contacts(top=1)[0]
    clear_requests(platform)
    contact = run(MessagingPlatformGetContactOperator(task_id="c", contact_id=str(first["Id"])))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"/api/v2.1/account/1001/contact/{first['Id']}", "")
    assert contact == first


def test_list_campaigns_filter_is_sent_as_written_and_selects(platform):
    hook = MessagingPlatformHook()
    hook.create_campaign(name="Plain", campaign_type="Basic")
    hook.create_campaign(name="Coupons", campaign_type="Coupon")
    clear_requests(platform)
    op = MessagingPlatformListCampaignsOperator(task_id="l", odata_filter="{{ params.f }}")
    op.odata_filter = "CampaignTypeId eq 4"  # as rendered from the template
    result = run(op)
    (record,) = platform.control.requests()
    assert record["query"] == "%24filter=CampaignTypeId+eq+4"
    assert [c["Name"] for c in result] == ["Coupons"]


def test_list_contacts_filter_with_paging(platform):
    hook = MessagingPlatformHook()
    every = hook.list_contacts()
    clear_requests(platform)
    wanted = every[3]["PhoneNumber"]
    result = run(MessagingPlatformListContactsOperator(task_id="l", top=5, odata_filter=f"PhoneNumber eq '{wanted}'"))
    assert [c["Id"] for c in result] == [every[3]["Id"]]
    assert platform.control.requests()[0]["query"] == urlencode({"$top": 5, "$filter": f"PhoneNumber eq '{wanted}'"})


@pytest.mark.parametrize("bad", ["Name eq 'open", "Name eq\n'x'", 42])
def test_a_filter_that_can_never_be_one_fails_before_any_request(platform, bad):
    with pytest.raises(MessagingPlatformValidationError) as caught:
        MessagingPlatformHook().list_campaigns(odata_filter=bad)
    assert caught.value.field == "odata_filter"
    assert platform.control.requests() == []
