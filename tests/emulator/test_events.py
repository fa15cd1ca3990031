"""
Simulated events fire callbacks: fan-out to every active record of the type, the account's token, a new GUID per
callback, redelivery with the same TransactionId when the receiver fails, bounded, in the background.

The receiver is ``CallbackSink`` (conftest.py), a bare recording HTTP server, not the provider's receiver.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from datetime import datetime, timezone
from typing import Any

import httpx

from tests.support.waiting import wait_until

TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$")  # UTC, no offset
#: How long a test waits for something that takes milliseconds on an idle machine: generous for a loaded one.
PATIENCE = 30.0


def record(emu, callback_type: int, url: str, active: bool = True) -> dict[str, Any]:
    return emu.created(emu.at("/callback"), {"CallbackType": callback_type, "URL": url, "Active": active})


def attach_join(emu) -> int:
    campaign = emu.create_campaign(Name="Join", SubscriptionId=7)
    response = emu.api("POST", emu.at("/channel/22/keyword/JOIN/campaign"), json=campaign["Id"])
    assert response.status_code == 200, response.text
    return int(campaign["Id"])


def settle(emu, count: int, timeout: float = PATIENCE) -> list[dict[str, Any]]:
    """The deliveries once ``count`` of them are no longer pending (polled every 20 ms, up to ``timeout``)."""
    deadline = time.monotonic() + timeout
    while True:
        deliveries = emu.ok("GET", "/events/deliveries")
        if len([d for d in deliveries if d["state"] != "pending"]) >= count:
            return list(deliveries)
        assert time.monotonic() < deadline, f"fewer than {count} deliveries ended after {timeout:g} s: {deliveries}"
        time.sleep(0.02)


def fast_retries(emu, **policy: Any) -> None:
    emu.ok("POST", "/events/delivery-policy", json={"backoff_seconds": 0.05, "backoff_max_seconds": 0.2, **policy})


def test_a_keyword_text_fans_out_to_every_active_keyword_record(emu, sink):
    campaign_id = attach_join(emu)
    first = record(emu, 1, sink.url + "/a")
    second = record(emu, 1, sink.url + "/b")
    record(emu, 1, sink.url + "/inactive", active=False)
    record(emu, 3, sink.url + "/dialog")
    before = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)  # the timestamps are to the second
    response = emu.control("POST", "/events/keyword", json={"keyword": "join", "phone_number": "+15550100004"})
    assert response.status_code == 202
    fired = response.json()
    assert [d["callback_id"] for d in fired["deliveries"]] == [first["Id"], second["Id"]]
    settle(emu, 2)
    after = datetime.now(timezone.utc).replace(tzinfo=None)
    assert sorted(sink.paths) == ["/a", "/b"]
    token = emu.ok("GET", "/seed")["callback_token"]
    for body in sink.bodies:
        assert body["CallbackToken"] == token and body["CallbackType"] == 1 and body["AccountId"] == emu.account
        assert body["CallbackURL"] == sink.url + sink.paths[sink.bodies.index(body)]
        assert str(uuid.UUID(body["TransactionId"])) == body["TransactionId"]
        assert TIMESTAMP.match(body["CallbackTimestamp"])
        assert before <= datetime.fromisoformat(body["CallbackTimestamp"]) <= after  # the real time of the event
        assert {k: body[k] for k in ("CampaignId", "ChannelId", "ContactId", "Keyword", "KeywordId")} == {
            "CampaignId": campaign_id,
            "ChannelId": 22,
            "ContactId": 6005,  # +15550100004 is the fifth seeded contact
            "Keyword": "JOIN",
            "KeywordId": 8001,
        }
        assert body["PhoneNumber"] == "+15550100004" and body["SubscriptionId"] == 7
    assert sink.bodies[0]["TransactionId"] != sink.bodies[1]["TransactionId"]  # each callback its own GUID


def test_a_keyword_fires_only_when_callbacks_are_enabled_and_a_campaign_is_attached(emu, sink):
    record(emu, 1, sink.url)
    assert emu.control("POST", "/events/keyword", json={"keyword": "JOIN"}).status_code == 409  # no campaign
    emu.ok("POST", "/keywords", json={"name": "QUIET"})  # CallbackRequired false
    assert emu.control("POST", "/events/keyword", json={"keyword": "QUIET"}).status_code == 409
    assert emu.control("POST", "/events/keyword", json={"keyword": "NOPE"}).status_code == 404
    assert emu.ok("GET", "/events/deliveries") == []


def test_a_failing_receiver_gets_the_same_callback_again_with_backoff(emu, sink):
    attach_join(emu)
    record(emu, 1, sink.url)
    fast_retries(emu, max_attempts=5)
    sink.script = [500, 503, 404]
    emu.ok("POST", "/events/keyword", json={"keyword": "JOIN"})
    [delivery] = settle(emu, 1)
    assert delivery["state"] == "delivered"
    assert [a["status"] for a in delivery["attempts"]] == [500, 503, 404, 200]
    assert len({json.dumps(b, sort_keys=True) for b in sink.bodies}) == 1  # the same body, TransactionId included
    gaps = [b["time"] - a["time"] for a, b in zip(delivery["attempts"], delivery["attempts"][1:], strict=False)]
    assert gaps[0] >= 0.045 and gaps[1] >= 0.095 and gaps[2] >= 0.19  # 0.05 s doubling, capped at 0.2 s
    assert delivery["payload"]["CallbackToken"] == "***"


def test_redelivery_is_bounded_and_a_dead_receiver_is_recorded_as_failed(emu, sink, closed_port):
    attach_join(emu)
    record(emu, 1, sink.url)
    record(emu, 1, f"http://127.0.0.1:{closed_port}/nobody-listens")
    fast_retries(emu, max_attempts=3)
    sink.script = [500] * 10
    emu.ok("POST", "/events/keyword", json={"keyword": "JOIN"})
    deliveries = settle(emu, 2)
    assert [d["state"] for d in deliveries] == ["failed", "failed"]
    assert [a["status"] for a in deliveries[0]["attempts"]] == [500, 500, 500]
    assert [a["error"] for a in deliveries[1]["attempts"]] == ["ConnectError"] * 3
    assert len(sink.bodies) == 3


def test_the_control_request_does_not_wait_for_a_slow_receiver(emu, sink):
    attach_join(emu)
    record(emu, 1, sink.url)
    # One try, which the emulator waits up to two minutes for: longer than the control call is given below.
    emu.ok("POST", "/events/delivery-policy", json={"max_attempts": 1, "timeout_seconds": 120})
    sink.answering.clear()  # the receiver takes the callback and answers only when the test lets it
    try:
        response = emu.control("POST", "/events/keyword", json={"keyword": "JOIN"})  # given 10 s
    except httpx.TimeoutException:
        raise AssertionError("the control call waited (10 s, and counting) for the held delivery") from None
    assert response.status_code == 202, response.text
    [started] = response.json()["deliveries"]
    assert started["state"] == "pending" and started["attempts"] == []
    # The callback reached the receiver, which holds its answer: the delivery is under way, and still pending.
    assert sink.received.acquire(timeout=PATIENCE), "the callback did not reach the receiver"
    assert emu.ok("GET", f"/events/deliveries/{started['id']}")["state"] == "pending"
    sink.answering.set()
    [delivery] = settle(emu, 1)
    assert delivery["state"] == "delivered" and [a["status"] for a in delivery["attempts"]] == [200]


def test_dialog_stop_and_incoming_message_payloads(emu, sink):
    for callback_type in (3, 6, 11):
        record(emu, callback_type, f"{sink.url}/{callback_type}")
    emu.ok("POST", "/events/dialog", json={"phone_number": "+15550100002", "answer": True, "question_text": "Q?"})
    emu.ok("POST", "/events/stop", json={"contact_id": 6010})
    emu.ok("POST", "/events/incoming-message", json={"phone_number": "+15559999999", "message": "Hi there"})
    settle(emu, 3)
    by_path = dict(zip(sink.paths, sink.bodies, strict=True))
    dialog, stop, incoming = by_path["/3"], by_path["/6"], by_path["/11"]
    assert dialog["CallbackType"] == 3 and dialog["Answer"] is True and dialog["ContactId"] == 6003
    assert dialog["QuestionText"] == "Q?" and dialog["ContactAccountId"] == emu.account
    assert dialog["ContactAccountName"] == "Demo account" and "DialogCampaignId" in dialog
    assert stop["CallbackType"] == 6 and stop["ContactId"] == 6010 and stop["PhoneNumber"] == "+15550100009"
    assert stop["SubscriptionId"] == 1 and stop["ChannelId"] == 22
    assert incoming["Message"] == "Hi there" and incoming["ContactId"] is None  # not a contact (yet)
    assert incoming["ChannelCode"] == "55222" and incoming["AccountName"] == "Demo account"


def test_a_new_account_is_announced_to_its_parent(emu, sink):
    record(emu, 8, sink.url)
    fired = emu.ok("POST", "/events/new-account", json={"name": "Branch office", "wait": True})
    assert fired["deliveries"][0]["state"] == "delivered"
    [body] = sink.bodies
    new_id = fired["account"]["account_id"]
    assert body["CallbackType"] == 8 and body["AccountId"] == new_id and new_id != emu.account
    assert body["Name"] == "Branch office" and body["ParentId"] == emu.account
    assert body["CallbackToken"] == emu.ok("GET", "/seed")["callback_token"]  # the receiving account's token


def test_unknown_contact_or_account_is_refused(emu, sink):
    assert emu.control("POST", "/events/stop", json={"contact_id": 1}).status_code == 404
    assert emu.control("POST", "/events/dialog", json={"answer": "x", "account_id": 42}).status_code == 404
    assert emu.control("POST", "/events/dialog", json={"phone_number": "+1"}).status_code == 422  # no answer


def test_reset_forgets_deliveries_and_policy(emu, sink):
    attach_join(emu)
    record(emu, 1, sink.url)
    fast_retries(emu, max_attempts=2)
    emu.ok("POST", "/events/keyword", json={"keyword": "JOIN", "wait": True})
    assert len(emu.ok("GET", "/events/deliveries")) == 1
    emu.ok("POST", "/reset")
    assert emu.ok("GET", "/events/deliveries") == []
    assert emu.ok("GET", "/events/delivery-policy")["max_attempts"] == 5


def test_a_reset_stops_the_deliveries_still_running(emu, sink):
    attach_join(emu)
    record(emu, 1, sink.url)
    emu.ok(
        "POST", "/events/delivery-policy", json={"max_attempts": 20, "backoff_seconds": 0.2, "backoff_max_seconds": 0.2}
    )
    sink.script = [500] * 20
    delivery = emu.server.emulator.delivery
    running_before = set(delivery._tasks)  # another test's delivery, if any, still ending
    emu.ok("POST", "/events/keyword", json={"keyword": "JOIN"})
    assert sink.received.acquire(timeout=PATIENCE), "the callback did not reach the receiver"
    emu.server.control.reset()  # the delivery waits out its backoff, then finds the emulator reset
    wait_until(lambda: not set(delivery._tasks) - running_before, "the delivery ended")
    # Twenty tries were allowed: ended after the one the reset found under way at most, it stopped at the reset.
    assert len(sink.bodies) <= 2
