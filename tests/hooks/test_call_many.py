"""
``hook.call_many``: many calls of one operation at once, judged from the emulator's request record: outcomes in
input order, every item checked before anything is sent, the pace cut by 429s, and a single call's retry rules.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError, RetryPolicy
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.waiting import rotate_key

FAST = RetryPolicy(max_attempts=4, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture
def hook(platform) -> MessagingPlatformHook:
    return MessagingPlatformHook(retry_policy=FAST)


def coupon_list(hook: MessagingPlatformHook, codes: list[str]) -> int:
    return int(hook.create_external_coupon_list("Bulk", coupon_codes=codes)["Id"])


def deletes(list_id: int, codes: list[str]) -> list[dict[str, Any]]:
    return [{"coupon_list_id": list_id, "coupon_code": code} for code in codes]


def deleted_paths(platform: Any) -> Counter[str]:
    records = platform.control.requests()
    return Counter(r["path"] for r in records if r["method"] == "DELETE" and 200 <= r["status"] < 300)


def test_outcomes_come_in_input_order_with_each_items_value_or_error(platform, hook):
    list_id = coupon_list(hook, [f"C{i}" for i in range(40)])
    codes = [f"C{i}" for i in range(39, -1, -1)]
    codes.insert(7, "NOT-ON-THE-LIST")
    outcomes = hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, codes), max_in_flight=8)
    assert len(outcomes) == 41
    assert [o.ok for o in outcomes] == [i != 7 for i in range(41)]
    assert outcomes[7].error is not None and outcomes[7].error.status == 404
    assert "NOT-ON-THE-LIST" in outcomes[7].error.path and outcomes[7].attempts == 1
    assert hook.list_external_coupon_codes(list_id) == []
    reads = hook.call_many(Operations.get_external_coupon_list, [{"coupon_list_id": list_id}] * 3)
    assert [o.value["Id"] for o in reads] == [list_id] * 3


def test_a_bad_item_is_refused_by_name_before_anything_is_sent(platform, hook):
    list_id = coupon_list(hook, ["A1", "A2"])
    before = len(platform.control.requests())
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.call_many(Operations.delete_external_coupon_code, [*deletes(list_id, ["A1"]), {"coupon_list_id": list_id}])
    assert caught.value.field.startswith("calls[1].coupon_code")
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.call_many(Operations.delete_external_coupon_code, [{**deletes(list_id, ["A1"])[0], "accountId": 7}])
    assert caught.value.field == "calls[0].accountId" and "account_id" in (caught.value.allowed or ())
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, ["A1"]), max_in_flight=0)
    assert caught.value.field == "max_in_flight"
    assert len(platform.control.requests()) == before
    assert hook.call_many(Operations.delete_external_coupon_code, []) == []


def test_under_a_rate_limit_every_item_lands_once_and_429s_cut_the_pace(platform, hook):
    codes = [f"R{i:03d}" for i in range(150)]
    list_id = coupon_list(hook, codes)
    platform.control.set_conditions(rate_limit=60, burst=10)
    outcomes = hook.call_many(
        Operations.delete_external_coupon_code, deletes(list_id, codes), max_in_flight=16, start_rate=80
    )
    assert all(o.ok for o in outcomes)
    limited = platform.control.conditions()["limited"]
    assert limited > 0  # the pace starts above the limit and learns it
    done = deleted_paths(platform)
    assert len(done) == 150 and set(done.values()) == {1}
    calls = [r for r in platform.control.requests() if r["method"] == "DELETE"]
    assert len(calls) == 150 + limited  # each refused call was sent again, nothing else was
    assert limited / len(calls) < 0.2, (limited, len(calls))


def test_a_post_is_resent_after_429_but_never_after_an_answer_that_may_hide_a_create(platform, hook):
    platform.control.add_fault(kind="retry_after", retry_after=0, count=1, method="POST")
    platform.control.add_fault(kind="status", status=503, count=1, method="POST")
    bodies = [{"body": {"Name": f"Bulk {i}", "CampaignTypeId": 1}} for i in range(3)]
    outcomes = hook.call_many(Operations.create_campaign, bodies, max_in_flight=1)
    posts = [r for r in platform.control.requests() if r["method"] == "POST"]
    assert [r["status"] for r in posts] == [429, 503, 201, 201]  # one in flight: the first item's tries come first
    assert [o.ok for o in outcomes] == [False, True, True]
    assert outcomes[0].error is not None and (outcomes[0].error.status, outcomes[0].attempts) == (503, 2)
    assert sorted(c["Name"] for c in hook.list_campaigns()) == ["Bulk 1", "Bulk 2"]


def test_a_delete_whose_answer_was_lost_is_done_when_the_resend_finds_nothing(platform, hook):
    list_id = coupon_list(hook, ["L1", "L2"])
    platform.control.add_fault(kind="commit_then_drop", count=1, method="DELETE", path="/code/L1$")
    outcomes = hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, ["L1", "L2"]))
    assert [(o.ok, o.attempts) for o in outcomes] == [(True, 2), (True, 1)]
    statuses = [r["status"] for r in platform.control.requests() if r["path"].endswith("/code/L1")]
    assert statuses[-1] == 404  # the first try deleted it; its answer was lost
    assert hook.list_external_coupon_codes(list_id) == []


def test_items_refused_401_are_sent_again_with_the_key_the_connection_holds_now(platform, hook):
    list_id = coupon_list(hook, ["K1", "K2", "K3"])
    assert hook.settings.api_key == platform.seed.api_key  # the hook has read the connection
    rotate_key(platform, write_to_connection=True)  # a new key in the connection; the one the hook holds revoked
    outcomes = hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, ["K1", "K2", "K3"]))
    assert all(o.ok for o in outcomes)
    statuses = [r["status"] for r in platform.control.requests() if "/code/" in r["path"]]
    assert statuses == [401, 401, 401, 200, 200, 200]  # refused with the revoked key, then done with the new one
