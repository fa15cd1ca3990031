"""
Retry-safe creates from the inside: the token each task instance gets (mapped or not), what is kept in the task
state store between tries (its keys and values are read back by the next try, also after an upgrade), and that
every read, search and create of a retry goes to the account the call names. Against the emulator; the store is
an in-memory stand-in for Airflow's task state store.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.tasks.state import VariableTaskState, once_for_task
from tests.support.operator_context import InMemoryStore


def context(map_index: int | None, store: Any = None) -> dict[str, Any]:
    """The part of an Airflow task context that ``once_for_task`` reads."""
    ti = SimpleNamespace(dag_id="dag", task_id="create", run_id="run-1", map_index=map_index)
    return {"ti": ti, "task_state_store": store}


@pytest.mark.parametrize(
    ("map_index", "token"),
    # sha256 of dag, task, run and map index joined by U+001F, first 16 hex digits (-1: not mapped)
    [(None, "479868dc318c1bd6"), (-1, "479868dc318c1bd6"), (0, "33394bd87b2a80c2"), (1, "18f804ba16b829c2")],
    ids=["not-mapped", "minus-1", "map-0", "map-1"],
)
def test_each_task_instance_gets_its_own_token(map_index, token):
    store = InMemoryStore()
    once = once_for_task(context(map_index, store))
    assert (once.token, once.store) == (token, store)


def test_without_airflows_store_the_state_is_kept_in_a_variable_named_for_the_token():
    once = once_for_task(context(1))
    assert isinstance(once.store, VariableTaskState)
    assert once.store.variable == "messaging_platform_task_state_18f804ba16b829c2"


def test_a_token_built_outside_a_task_keeps_the_store_given():
    store = InMemoryStore()
    assert CreateOnce.for_task("dag", "create", "run-1", store=store) == CreateOnce("479868dc318c1bd6", store)


def test_what_a_create_keeps_for_the_next_try(platform):
    """The id it made and the highest id there was before it (0: none)."""
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    hook.create_campaign(name="First", campaign_type="Basic", once=CreateOnce("0000000000000a01", store))
    hook.create_campaign(name="Second", campaign_type="Basic", once=CreateOnce("0000000000000a02", store))
    assert store.data == {
        "messaging_platform:create_campaign:0000000000000a01": {"id": 3001, "watermark": 0},
        "messaging_platform:create_campaign:0000000000000a02": {"id": 3002, "watermark": 3001},
    }


def test_a_retry_keeps_the_watermark_its_first_try_stored(platform):
    """Its first try stored the watermark and was refused before anything was made; another campaign appeared since."""
    hook = MessagingPlatformHook()
    hook.create_campaign(name="Before", campaign_type="Basic")  # 3001
    key = "messaging_platform:create_campaign:0000000000000b01"
    store = InMemoryStore()
    store.set(key, {"watermark": 3001})
    hook.create_campaign(name="Someone else's", campaign_type="Basic")  # 3002
    made = hook.create_campaign(name="Mine", campaign_type="Basic", once=CreateOnce("0000000000000b01", store))
    assert made["Id"] == 3003
    assert store.data == {key: {"id": 3003, "watermark": 3001}}


def test_every_call_of_a_retry_goes_to_the_account_the_call_names(platform):
    """The hook's own account does not exist here: a call that forgot the account named would get 404."""
    account = platform.seed.account_id
    hook = MessagingPlatformHook(account_id=account + 7)
    store = InMemoryStore()
    once = CreateOnce("0000000000000c01", store)
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/campaign$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_campaign(name="Mine", campaign_type="Basic", once=once, account_id=account)
    found = hook.create_campaign(name="Mine", campaign_type="Basic", once=once, account_id=account)  # by marker
    store.set("messaging_platform:create_campaign:0000000000000c01", {"id": found["Id"], "watermark": 0})
    again = hook.create_campaign(name="Mine", campaign_type="Basic", once=once, account_id=account)  # by stored id
    assert found["Id"] == again["Id"] == 3001
    campaigns = f"/api/v2.1/account/{account}/campaign"
    assert [(r["method"], r["path"]) for r in platform.control.requests()] == [
        ("GET", campaigns),  # first try: anything made earlier?
        ("POST", campaigns),  # made, answer dropped
        ("GET", campaigns),  # the retry finds it by its marker
        ("GET", f"{campaigns}/3001"),  # and reads it
        ("GET", f"{campaigns}/3001"),  # the next try reads the stored id
    ]


def test_a_create_found_in_the_list_but_gone_when_read_is_returned_as_listed(platform):
    hook = MessagingPlatformHook()
    once = CreateOnce("0000000000000d01")
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/campaign$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_campaign(name="Mine", campaign_type="Basic", once=once)
    platform.control.add_fault(kind="status", status=404, method="GET", path="/campaign/3001$", count=1)
    found = hook.create_campaign(name="Mine", campaign_type="Basic", once=once)
    assert (found["Id"], found["Name"], found["UserData"]) == (3001, "Mine", "[af:0000000000000d01]")
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1


def test_the_memory_store_reads_back_what_was_set_and_the_default_for_what_was_not():
    """The stand-in for a task state store that rotation uses when it runs outside a task."""
    from messaging_platform_provider.client.once import MemoryStateStore

    store = MemoryStateStore()
    store.set("rotation", {"step": "stored"})
    assert store.get("rotation") == {"step": "stored"}
    assert store.get("missing") is None
    assert store.get("missing", {"fresh": True}) == {"fresh": True}


def test_a_retry_adopts_the_schedule_its_first_try_made_though_it_asks_for_a_later_time(platform):
    """
    "Once, now": each try computes its own time, so the retry's request differs from what the first try made.
    Found by the matrix run, when a second passed between the walkthrough test's two tries; in production the
    retry delay makes them differ every time.
    """
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    once = CreateOnce("0000000000000e01", store)
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/schedule$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_schedule(5001, "OneTime", "10:00:00", "2026-12-01T10:00:00", once=once)
    again = hook.create_schedule(5001, "OneTime", "10:05:00", "2026-12-01T10:05:00", once=once)
    assert (again["RunAt"], again["StartFrom"][:19]) == ("10:00:00", "2026-12-01T10:00:00")  # the first try's
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert len(hook.list_schedules(5001)) == 1


def test_a_retry_whose_own_create_was_lost_is_found_by_the_next_try(platform):
    """Try 1 is refused before anything is made, try 2 (another time) is made and loses its answer, try 3 adopts it."""
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    once = CreateOnce("0000000000000e02", store)
    platform.control.add_fault(kind="status", status=503, method="POST", path="/schedule$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_schedule(5001, "OneTime", "10:00:00", "2026-12-01T10:00:00", once=once)
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/schedule$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_schedule(5001, "OneTime", "10:05:00", "2026-12-01T10:05:00", once=once)
    third = hook.create_schedule(5001, "OneTime", "10:10:00", "2026-12-01T10:10:00", once=once)
    assert third["RunAt"] == "10:05:00"
    assert [r["method"] for r in platform.control.requests()].count("POST") == 2  # the refused one and the lost one
    assert [s["RunAt"] for s in hook.list_schedules(5001)] == ["10:05:00"]


def test_the_store_keeps_a_digest_of_a_callbacks_fields_never_its_url(platform):
    """A callback URL may carry a token: the state store (an Airflow Variable before 3.3) must not hold it."""
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    url = "https://hooks.example.com/in?token=s3cr3t-callback-token"
    hook.create_callback("Keyword", url, once=CreateOnce("0000000000000e03", store))
    kept = str(store.data)
    assert "s3cr3t-callback-token" not in kept and "hooks.example.com" not in kept
    (state,) = store.data.values()
    assert sorted(state) == ["id", "sent", "watermark"] and len(state["sent"]) == 32


def test_a_retry_never_adopts_a_newer_schedule_its_first_try_did_not_send(platform):
    """
    Try 1 is refused before anything is made; then someone else adds a different schedule to the action. Try 2 finds
    a schedule newer than its watermark, but not the one its first try sent: it makes its own.
    """
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    once = CreateOnce("0000000000000e04", store)
    platform.control.add_fault(kind="status", status=503, method="POST", path="/schedule$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_schedule(5001, "OneTime", "10:00:00", "2026-12-01T10:00:00", once=once)
    other = hook.create_schedule(5001, "Daily", "18:00:00", "2026-12-01T00:00:00")
    mine = hook.create_schedule(5001, "OneTime", "10:00:00", "2026-12-01T10:00:00", once=once)
    assert mine["Id"] != other["Id"] and mine["RunAt"] == "10:00:00"
    assert sorted(s["RunAt"] for s in hook.list_schedules(5001)) == ["10:00:00", "18:00:00"]


# -- what a create keeps when the platform's list or the request is not plain JSON -----------------------------------

#: a push voice call that rings a listed number and those in a file
VOICE_CHANNELS = ["+15125550100"]
VOICE_TARGETS = ["+15125550111"]
VOICE_MESSAGE = "Your parcel is on its way."


def test_a_match_field_json_has_no_form_for_is_kept_as_the_text_the_request_sent(platform):
    """
    ``extra`` may hold a known field in a form JSON cannot write (a URL object): the request sends its text, as any
    request does, and the digest the store keeps is of that text, so the retry of a create whose answer was lost
    finds it rather than ringing everyone again.
    """
    hook = MessagingPlatformHook()
    once = CreateOnce("0000000000000f01", InMemoryStore())
    extra = {"TargetsUrl": httpx.URL("https://files.example.com/more-targets.csv")}
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/action-pushvoicecall$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_push_voice_call(
            VOICE_CHANNELS, targets=VOICE_TARGETS, message=VOICE_MESSAGE, extra=extra, once=once
        )
    again = hook.create_push_voice_call(
        VOICE_CHANNELS, targets=VOICE_TARGETS, message=VOICE_MESSAGE, extra=extra, once=once
    )
    assert again["TargetsUrl"] == "https://files.example.com/more-targets.csv"
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1


def test_a_listed_entry_without_a_numeric_id_does_not_stop_the_create_nor_set_its_watermark():
    """A list answer holding an entry without a usable ``Id``: the create goes on, its watermark the highest Id."""
    from messaging_platform_provider.client.once import create_once
    from messaging_platform_provider.client.operations import Operations

    store = InMemoryStore()
    asked: list[str] = []

    def call(operation: Any, **kwargs: Any) -> Any:
        asked.append(operation.name)
        if operation is Operations.list_push_voice_calls:
            return [{"Id": 7, "Message": "older"}, {"Message": "no id"}, {"Id": None}, {"Id": "pending"}]
        assert operation is Operations.create_push_voice_call
        return {"Id": 8}

    body = {"Channels": VOICE_CHANNELS, "Targets": VOICE_TARGETS, "Message": VOICE_MESSAGE}
    made = create_once(
        call,
        Operations.create_push_voice_call,
        body,
        CreateOnce("0000000000000f02", store),
        account_id=1001,
        path_params={},
    )
    assert made == {"Id": 8}
    assert asked == ["list_push_voice_calls", "create_push_voice_call"]
    (state,) = store.data.values()
    assert (state["id"], state["watermark"]) == (8, 7)
