"""EmulatorControl, the control routes as methods: each method against the session's real server."""

from __future__ import annotations

import pytest

from messaging_platform_emulator import EmulatorServer
from messaging_platform_emulator.control_client import EmulatorControl, EmulatorControlError


@pytest.fixture
def control(emu) -> EmulatorControl:
    return emu.server.control


def test_the_server_gives_one_client_of_its_own_root_url(emulator_server: EmulatorServer):
    assert emulator_server.control is emulator_server.control
    assert emulator_server.control.url == emulator_server.url


def test_a_client_built_from_a_root_url_with_a_trailing_slash(emu):
    with EmulatorControl(emu.server.url + "/") as control:
        assert control.health() == {"status": "ok"}
        assert control.seed()["account_id"] == emu.account


def test_seed_and_reset(emu, control):
    seed = control.seed()
    assert seed["base_url"] == emu.server.base_url
    assert (seed["account_id"], seed["api_key"], seed["keyword_id"]) == (emu.account, emu.seed.api_key, 8001)
    gone = control.create_account("Gone after reset")
    assert control.reset() == seed
    with pytest.raises(EmulatorControlError) as unknown:
        control.add_contacts(1, account_id=gone["account_id"])
    assert unknown.value.status == 404


def test_connections(control):
    counts = control.connections()
    assert set(counts) == {"opened", "open", "peak_open"} and counts["open"] >= 1


def test_accounts(emu, control):
    created = control.create_account("Tenant B", api_key="tenant-b-key", api_secret="tenant-b-secret")
    assert (created["api_key"], created["api_secret"]) == ("tenant-b-key", "tenant-b-secret")
    assert created["account_id"] > emu.account
    with pytest.raises(EmulatorControlError) as taken:
        control.create_account("Tenant C", api_key="tenant-b-key")
    assert (taken.value.status, taken.value.message) == (409, "an API key with that key already exists")


def test_a_refused_body_raises_with_the_status_and_the_validation_errors(control):
    with pytest.raises(EmulatorControlError) as refused:
        control.create_account("")
    assert refused.value.status == 422
    assert "name" in refused.value.message  # FastAPI's validation errors, as the route answered them
    assert "POST /_emulator/accounts answered 422" in str(refused.value)


def test_channels(emu, control):
    long_code = control.add_channel("+15125550101")
    assert long_code == {"channel_id": 24, "account_id": emu.account, "code": "+15125550101", "long_code": True}
    other = control.create_account("Tenant B")
    short_code = control.add_channel("55333", account_id=other["account_id"])
    assert (short_code["account_id"], short_code["long_code"]) == (other["account_id"], False)
    with pytest.raises(EmulatorControlError) as taken:
        control.add_channel("+15125550101")
    assert (taken.value.status, taken.value.message) == (409, "a channel with code +15125550101 already exists")
    for bad in ("15125550101", "+1", "CODE"):
        with pytest.raises(EmulatorControlError) as refused:
            control.add_channel(bad)
        assert refused.value.status == 422
    with pytest.raises(EmulatorControlError) as unknown:
        control.add_channel("+15125550102", account_id=999)
    assert unknown.value.status == 404


def test_contacts_keywords_and_api_keys(emu, control):
    added = control.add_contacts(5)
    assert (added["account_id"], added["count"], added["total"]) == (emu.account, 5, 30)
    with pytest.raises(EmulatorControlError) as unknown:
        control.add_contacts(1, account_id=42)
    assert (unknown.value.status, unknown.value.message) == (404, "account 42 does not exist")

    keyword = control.add_keyword("SALE", callback_required=True)
    assert (keyword["Name"], keyword["ChannelId"], keyword["CallbackRequired"]) == ("SALE", 22, True)
    with pytest.raises(EmulatorControlError) as taken:
        control.add_keyword("sale", channel_id=22)
    assert taken.value.status == 409

    master = control.add_api_key()
    assert (master["TypeId"], master["Label"], master["AccountId"]) == (1, "Master key", emu.account)
    common = control.add_api_key(type_id=2, label="Spare")
    assert (common["TypeId"], common["Label"]) == (2, "Spare") and common["Secret"]


def test_faults_and_the_request_record(emu, control):
    rule = control.add_fault("status", status=500, count=2, method="get", path="/campaign$")
    assert (rule["kind"], rule["status"], rule["count"], rule["method"]) == ("status", 500, 2, "GET")
    assert control.faults() == [rule]
    assert emu.api("GET", emu.campaigns).status_code == 500
    assert control.clear_faults() == 1
    assert control.faults() == []
    assert emu.api("GET", emu.campaigns).status_code == 204

    faulted, served = control.requests()
    assert (faulted["fault"], faulted["status"], served["fault"], served["status"]) == ("status", 500, None, 204)
    assert control.requests(since=faulted["seq"]) == [served]
    assert control.clear_requests() == 2
    assert control.requests() == []


def test_clock(control):
    frozen = control.set_clock(scale=0)
    assert frozen["scale"] == 0
    assert control.clock() == frozen
    later = control.set_clock(advance_seconds=3600)
    assert later["now"] > frozen["now"]


def test_schedule_lifecycle(emu, control):
    assert control.schedule_behaviour() == {"pending_seconds": 0.2, "processing_seconds": 0.3, "outcome": "Completed"}
    changed = control.set_schedule_behaviour(pending_seconds=60, outcome="Failed")
    assert changed == {"pending_seconds": 60.0, "processing_seconds": 0.3, "outcome": "Failed"}
    assert control.schedule_behaviour() == changed

    schedule = emu.create_schedule()
    restarted = control.set_one_schedule_behaviour(schedule["Id"], pending_seconds=0, processing_seconds=600)
    assert restarted["Id"] == schedule["Id"]
    assert control.abort_schedule(schedule["Id"])["ProcessStatus"] == "Aborted"
    with pytest.raises(EmulatorControlError) as ended:
        control.abort_schedule(schedule["Id"])
    assert ended.value.status == 409
    with pytest.raises(EmulatorControlError) as missing:
        control.abort_schedule(999999)
    assert (missing.value.status, missing.value.message) == (404, "schedule 999999 does not exist")


def test_events_and_deliveries(emu, control, sink):
    assert control.delivery_policy()["max_attempts"] == 5
    policy = control.set_delivery_policy(max_attempts=1, backoff_seconds=0.05, timeout_seconds=10)
    assert (policy["max_attempts"], policy["backoff_seconds"], policy["timeout_seconds"]) == (1, 0.05, 10)
    assert control.delivery_policy() == policy
    campaign = emu.create_campaign()
    emu.api("POST", emu.at("/channel/22/keyword/JOIN/campaign"), json=campaign["Id"]).raise_for_status()
    for callback_type in (1, 3, 6, 8, 11):
        emu.created(emu.at("/callback"), {"CallbackType": callback_type, "URL": sink.url, "Active": True})

    keyword = control.keyword_event("join", channel_id=22, contact_id=6002, wait=True)
    [delivered] = keyword["deliveries"]
    assert (keyword["event"]["Keyword"], keyword["event"]["ContactId"], delivered["state"]) == (
        "JOIN",
        6002,
        "delivered",
    )
    dialog = control.dialog_event("yes", phone_number="+15550100003", question_text="Q?", wait=True)
    assert (dialog["event"]["Answer"], dialog["event"]["ContactId"]) == ("yes", 6004)
    stop = control.stop_event(contact_id=6010, subscription_id=3, wait=True)
    assert (stop["event"]["ContactId"], stop["event"]["SubscriptionId"]) == (6010, 3)
    message = control.incoming_message_event("Hello", account_id=emu.account, wait=True)
    assert message["event"]["Message"] == "Hello"
    branch = control.new_account_event("Branch", wait=True)
    assert (branch["event"]["ParentId"], branch["account"]["account_id"]) == (emu.account, branch["event"]["AccountId"])
    with pytest.raises(EmulatorControlError) as unknown:
        control.keyword_event("NOPE")
    assert (unknown.value.status, unknown.value.message) == (404, "no keyword 'NOPE'")

    deliveries = control.deliveries()
    assert [d["callback_type"] for d in deliveries] == [1, 3, 6, 11, 8]
    assert all(d["state"] == "delivered" for d in deliveries) and len(sink.bodies) == 5
    assert control.deliveries(since=deliveries[2]["id"]) == deliveries[3:]
    assert control.delivery(delivered["id"]) == deliveries[0]
    assert control.clear_deliveries() == 5
    with pytest.raises(EmulatorControlError) as gone:
        control.delivery(delivered["id"])
    assert gone.value.status == 404


def test_any_route_by_path(control):
    assert control.request("GET", "/nope").status_code == 404
    assert control.call("GET", "/health") == {"status": "ok"}
    with pytest.raises(EmulatorControlError) as missing:
        control.call("GET", "/nope")
    assert (missing.value.status, missing.value.message) == (404, "Not Found")
