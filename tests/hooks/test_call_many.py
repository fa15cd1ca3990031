"""
``hook.call_many``: many calls of one operation at once, judged from the emulator's request record: outcomes in
input order, every item checked before anything is sent, the pace cut by 429s, and a single call's retry rules.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any
from urllib.parse import parse_qs

import pytest

from messaging_platform_provider.client import MessagingPlatformValidationError, RetryPolicy
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.bulk import BulkRun, prepare_calls
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.pacing import AdaptivePace
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.waiting import rotate_key, wait_until

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
    # How few calls the pace leaves refused depends on the machine's speed: a figure of bench/bulk.py (< 5 %).


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


# -- a bulk create never rings anyone twice: no resend after a lost answer -------------------------------------------

VOICE_CALLS = "/api/v2.1/account/1001/action-pushvoicecall"
#: a push voice call as the wire carries it: each create rings ``Targets``
VOICE_CALL = {"Channels": ["+15125550100"], "Targets": ["+15125550111"], "Message": "Your order is ready."}


def voice_call_posts(platform: Any) -> list[dict[str, Any]]:
    return [r for r in platform.control.requests() if r["method"] == "POST" and r["path"] == VOICE_CALLS]


def handled(record: dict[str, Any]) -> bool:
    """Whether the platform is done with a recorded request: answered, or committed with its answer dropped."""
    return record["status"] is not None or record["fault"] == "commit_then_drop"


@pytest.mark.parametrize(
    ("fault", "timeout"),
    [
        # the platform commits the create, then the connection breaks before the answer
        pytest.param({"kind": "commit_then_drop"}, None, id="answer lost"),
        # the platform commits it after the client's read timeout (0.3 s) has given up on the answer
        pytest.param({"kind": "delay", "delay": 1.5}, (5.0, 0.3), id="read timeout"),
    ],
)
def test_a_bulk_voice_call_create_whose_answer_was_lost_is_committed_once_and_fails(platform, fault, timeout):
    hook = MessagingPlatformHook(retry_policy=FAST, timeout=timeout)
    platform.control.add_fault(**fault, count=1, method="POST", path="/action-pushvoicecall$")
    (outcome,) = hook.call_many(Operations.create_push_voice_call, [{"body": VOICE_CALL}])
    assert outcome.error is not None and not outcome.ok, outcome
    assert (outcome.error.status, outcome.attempts) == (None, 1)  # no answer, and no second try
    assert outcome.error.reason in ("RemoteProtocolError", "ReadError", "ReadTimeout"), outcome.error
    # the delayed create is handled after the client gave up: wait for its record to be complete before counting
    wait_until(lambda: all(handled(r) for r in voice_call_posts(platform)), "the create handled by the platform")
    (post,) = voice_call_posts(platform)  # sent once: the platform acted on it once
    (made,) = [c for c in hook.list_push_voice_calls() if c["Message"] == VOICE_CALL["Message"]]
    assert made["Targets"] == VOICE_CALL["Targets"]


# -- Retry-After: the wait a 429 asks for, and one above max_retry_after not waited at all ---------------------------


class Sleeps:
    """``BulkRun``'s ``sleep``: records the delays asked for and returns at once."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def run_bulk(
    platform: Any,
    policy: RetryPolicy,
    calls: list[dict[str, Any]],
    sleep: Sleeps,
    op: Any = Operations.list_campaigns,
    pace: AdaptivePace | None = None,
) -> tuple[list[Any], BulkRun]:
    """``calls`` of ``op`` through a ``BulkRun`` on the emulator, its sleeps recorded: the outcomes, and the run."""
    prepared = prepare_calls(op, platform.base_url, platform.seed.account_id, calls)

    async def run() -> tuple[list[Any], BulkRun]:
        client = AsyncMessagingPlatformClient(platform.base_url, platform.seed.api_key, platform.seed.api_secret)
        try:
            bulk = BulkRun(client, op, prepared, max_in_flight=1, retry_policy=policy, pace=pace, sleep=sleep)
            return await bulk.run(), bulk
        finally:
            await client.aclose()

    return asyncio.run(run())


@pytest.mark.parametrize("retry_after", [7, 30])
def test_a_429_waits_what_its_retry_after_says_then_sends_again(platform, retry_after):
    platform.control.add_fault(kind="retry_after", retry_after=retry_after, count=2, method="GET")
    sleep = Sleeps()
    policy = RetryPolicy(max_attempts=3, backoff_base=0.01, backoff_max=0.05, max_retry_after=30)
    (outcome,), bulk = run_bulk(platform, policy, [{}], sleep)
    assert sleep.delays == [float(retry_after)] * 2  # the header's wait, not a backoff of a hundredth of a second
    assert outcome.ok and outcome.attempts == 3, outcome
    assert bulk.limited == 2  # the 429s counted (the hook logs them)
    assert [r["status"] for r in platform.control.requests()] == [429, 429, 204]


def test_a_retry_after_above_max_retry_after_is_not_waited_the_item_fails_at_once(platform):
    platform.control.add_fault(kind="retry_after", retry_after=31, count=1, method="GET")
    sleep = Sleeps()
    policy = RetryPolicy(max_attempts=3, backoff_base=0.01, backoff_max=0.05, max_retry_after=30)
    (outcome,), bulk = run_bulk(platform, policy, [{}], sleep)
    assert sleep.delays == [] and bulk.limited == 1
    assert outcome.error is not None and (outcome.error.status, outcome.attempts) == (429, 1), outcome
    assert [r["status"] for r in platform.control.requests()] == [429]


def test_call_many_applies_the_hooks_max_retry_after(platform):
    """
    The hook hands its policy to the bulk run: a 429 asking for 3 s more than the policy allows fails the item at
    once (code that waited anyway would succeed on the second try, 3 s later: the test fails rather than hangs).
    """
    platform.control.add_fault(kind="retry_after", retry_after=3, count=1, method="GET")
    hook = MessagingPlatformHook(retry_policy=RetryPolicy(max_attempts=3, backoff_base=0.01, max_retry_after=0))
    (outcome,) = hook.call_many(Operations.list_campaigns, [{}])
    assert outcome.error is not None and (outcome.error.status, outcome.attempts) == (429, 1), outcome


def test_a_read_answered_503_is_sent_again_after_a_backoff(platform):
    platform.control.add_fault(kind="status", status=503, count=1, method="GET")
    sleep = Sleeps()
    (outcome,), bulk = run_bulk(platform, FAST, [{}], sleep)
    assert outcome.ok and outcome.attempts == 2, outcome
    assert len(sleep.delays) == 1 and 0.005 <= sleep.delays[0] <= 0.01  # FAST's first backoff: half to all of 10 ms
    assert [r["status"] for r in platform.control.requests()] == [503, 204] and bulk.limited == 0


def test_an_error_answer_after_a_retry_says_how_many_tries_it_took(platform):
    platform.control.add_fault(kind="status", status=503, count=1, method="GET")
    (outcome,), _ = run_bulk(
        platform, FAST, [{"coupon_list_id": 999999}], Sleeps(), Operations.get_external_coupon_list
    )
    assert outcome.error is not None and (outcome.error.status, outcome.error.attempts, outcome.attempts) == (404, 2, 2)


def test_a_callback_url_in_plain_http_is_refused_unless_allowed():
    """Every callback the platform sends there carries the account's token: ``prepare_calls`` refuses by default."""
    calls = [{"body": {"URL": "https://receiver.example.com/cb"}}, {"body": {"URL": "http://receiver.example.com/cb"}}]
    with pytest.raises(MessagingPlatformValidationError) as caught:
        prepare_calls(Operations.create_callback, "https://platform.example.com/api/v2.1", 1001, calls)
    assert caught.value.field == "calls[1].url"
    allowed = prepare_calls(
        Operations.create_callback, "https://platform.example.com/api/v2.1", 1001, calls, allow_insecure_http=True
    )
    assert [p.content for p in allowed] == [
        b'{"URL":"https://receiver.example.com/cb"}',
        b'{"URL":"http://receiver.example.com/cb"}',
    ]


def test_a_delete_answered_5xx_whose_resend_finds_nothing_is_done(platform, hook):
    """A 5xx may come after the platform acted: the resend's 404 then means the first try deleted it."""
    list_id = coupon_list(hook, ["S1"])
    platform.control.add_fault(kind="status", status=503, count=1, method="DELETE", path="/code/GONE$")
    (outcome,) = hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, ["GONE"]))
    assert (outcome.ok, outcome.attempts) == (True, 2), outcome
    assert [r["status"] for r in platform.control.requests() if r["path"].endswith("/code/GONE")] == [503, 404]
    (outcome,) = hook.call_many(Operations.delete_external_coupon_code, deletes(list_id, ["GONE"]))
    assert outcome.error is not None and (outcome.error.status, outcome.attempts) == (404, 1)  # without the 5xx


def test_a_post_that_never_reached_the_platform_is_sent_again_until_the_policy_gives_up(closed_port, monkeypatch):
    """Refused connections: nothing can have been created, so even a create is retried, every attempt of it."""
    conn = {
        "conn_type": "messagingplatform",
        "login": "key",
        "password": "closed-port-secret-5f1e",
        "extra": {"base_url": f"http://127.0.0.1:{closed_port}/api/v2.1", "account_id": 1001},
    }
    monkeypatch.setenv("AIRFLOW_CONN_MP_CLOSED", json.dumps(conn))
    hook = MessagingPlatformHook("mp_closed", retry_policy=FAST)
    (outcome,) = hook.call_many(Operations.create_push_voice_call, [{"body": VOICE_CALL}])
    assert outcome.error is not None and outcome.attempts == FAST.max_attempts, outcome
    error = outcome.error
    assert (error.method, error.path, error.status, error.reason) == (
        "POST",
        "/account/1001/action-pushvoicecall",
        None,
        "ConnectError",
    )
    assert error.attempts == FAST.max_attempts


def test_each_items_query_and_account_are_its_own(platform, hook):
    outcomes = hook.call_many(
        Operations.list_contacts, [{"query": {"$top": 2}}, {"account_id": 1008}, {"query": {"$skip": 1}}]
    )
    assert [o.ok for o in outcomes] == [True, False, True]
    gets = [(r["path"], parse_qs(r["query"] or "")) for r in platform.control.requests() if r["method"] == "GET"]
    assert sorted(gets, key=str) == [
        ("/api/v2.1/account/1001/contact", {"$skip": ["1"]}),
        ("/api/v2.1/account/1001/contact", {"$top": ["2"]}),
        ("/api/v2.1/account/1008/contact", {}),
    ]


class PaceClock:
    """An ``AdaptivePace``'s clock that moves only when the pace sleeps: a run paced without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_answers_5xx_never_speed_the_pace_up_where_other_answers_do(platform):
    """A 5xx says the platform is overloaded: no reason to go faster. A 404 says it kept up (the item is wrong)."""
    clock = PaceClock()
    pace = AdaptivePace(start_rate=10, clock=clock, sleep=clock.sleep)
    platform.control.add_fault(kind="status", status=500, count=2, method="GET")
    outcomes, _ = run_bulk(platform, FAST, [{}, {}], Sleeps(), pace=pace)
    assert [(o.error.status, o.attempts) for o in outcomes if o.error] == [(500, 1), (500, 1)]  # 500: not resent
    assert pace.rate == 10
    (outcome,), _ = run_bulk(
        platform, FAST, [{"coupon_list_id": 999999}], Sleeps(), Operations.get_external_coupon_list, pace=pace
    )
    assert outcome.error is not None and outcome.error.status == 404
    assert pace.rate > 10


def test_an_item_with_keys_of_several_types_is_refused_by_name(platform, hook):
    """Keys that cannot be sorted together (a number beside text) still get the refusal naming the first, as text."""
    before = len(platform.control.requests())
    item = {"coupon_list_id": 2001, "coupon_code": "A1", 7: "seven", "zz": 1}
    with pytest.raises(MessagingPlatformValidationError) as caught:
        hook.call_many(Operations.delete_external_coupon_code, [item])
    assert caught.value.field == "calls[0].7"
    assert len(platform.control.requests()) == before
