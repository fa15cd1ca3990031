"""
Creates never duplicate when Airflow retries a task whose create was committed but whose answer was lost.

The DAG in tests/integration/dags runs every create operator with one retry; the emulator commits each create and
drops the answer (``commit_then_drop``). Airflow's own retry machinery and task state store do the rest.
"""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.airflow_versions import dag_bag
from tests.support.operator_context import InMemoryStore
from tests.support.paths import TEST_DAGS

#: create task id -> (path of its POST, how to find what it made)
CREATES = {
    "campaign": ("/campaign$", lambda h: [c for c in h.list_campaigns() if c["Name"] == "Retry-safe campaign"]),
    "coupon_list": (
        "/external-couponlist$",
        lambda h: [c for c in h.list_external_coupon_lists() if c["Name"] == "Retry-safe codes"],
    ),
    "api_key": ("/api-key$", lambda h: [k for k in h.list_api_keys() if k["Label"].startswith("Retry-safe key")]),
    "schedule": ("/action/5001/schedule$", lambda h: h.list_schedules(5001)),
    "voice_call": ("/action-pushvoicecall$", lambda h: h.list_push_voice_calls()),
    "callback": ("/callback$", lambda h: h.list_callbacks()),
    "contact": ("/contact$", lambda h: [c for c in h.list_contacts() if c["Email"] == "retry-safe@example.com"]),
    "coupon_definition": (
        "/coupon$",
        lambda h: [h.get_coupon_definition(c["Id"]) for c in h.list_campaigns() if c["Name"] == "Retry-safe campaign"],
    ),
}


@pytest.mark.xdist_group("dag_runs")
def test_every_create_operator_survives_a_lost_answer_with_exactly_one_resource(platform, dag_runs):
    for path, _ in CREATES.values():
        platform.control.add_fault(kind="commit_then_drop", method="POST", path=path, count=1)
    dag = dag_bag(str(TEST_DAGS)).get_dag("messaging_platform_test_retry_safe_creates")
    run = dag.test()

    tries = {ti.task_id: (ti.state, ti.try_number) for ti in run.get_task_instances()}
    assert tries == {task_id: ("success", 2) for task_id in CREATES}  # every first try lost its answer
    records = platform.control.requests()
    dropped = [r for r in records if r["fault"] == "commit_then_drop"]
    assert len(dropped) == len(CREATES)
    hook = MessagingPlatformHook()
    for task_id, (path, made) in CREATES.items():
        assert len(made(hook)) == 1, task_id
        posts = [r for r in records if r["method"] == "POST" and r["path"].endswith(path.rstrip("$"))]
        assert len(posts) == 1, f"{task_id}: the retry sent the create again"


def test_without_protection_the_same_fault_duplicates(platform):
    """The contrast: a plain create resent after the lost answer makes a second campaign."""
    hook = MessagingPlatformHook()
    platform.control.add_fault(kind="commit_then_drop", method="POST", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_campaign(name="Unprotected", campaign_type="Basic")
    hook.create_campaign(name="Unprotected", campaign_type="Basic")
    assert len(hook.list_campaigns()) == 2


def test_a_stored_id_is_read_back_without_listing_or_posting(platform):
    hook = MessagingPlatformHook()
    store = InMemoryStore()
    once = CreateOnce("0123456789abcdef", store)
    first = hook.create_campaign(name="Stored", campaign_type="Basic", once=once)
    before = len(platform.control.requests())
    again = hook.create_campaign(name="Stored", campaign_type="Basic", once=once)
    assert again["Id"] == first["Id"]
    assert [(r["method"], r["path"].rsplit("/", 1)[-1]) for r in platform.control.requests()[before:]] == [
        ("GET", str(first["Id"]))
    ]
    assert first["UserData"] == "[af:0123456789abcdef]"


def test_user_data_keeps_the_users_text_before_the_marker(platform):
    created = MessagingPlatformHook().create_campaign(
        name="Mine", campaign_type="Basic", user_data="crm-42", once=CreateOnce("feedfacefeedface")
    )
    assert created["UserData"] == "crm-42 [af:feedfacefeedface]"


def test_another_task_instance_creates_its_own(platform):
    hook = MessagingPlatformHook()
    a = CreateOnce.for_task("dag", "create", "run-1")
    b = CreateOnce.for_task("dag", "create", "run-2")
    # sha256 of dag, task, run and map index joined by U+001F, first 16 hex digits
    assert (a.token, b.token) == ("479868dc318c1bd6", "76f550ed8ab9fd88")
    mapped = [CreateOnce.for_task("dag", "create", "run-1", i).token for i in (0, 1)]
    assert mapped == ["33394bd87b2a80c2", "18f804ba16b829c2"]
    first = hook.create_campaign(name="Same name", campaign_type="Basic", once=a)
    second = hook.create_campaign(name="Same name", campaign_type="Basic", once=b)
    assert first["Id"] != second["Id"]


def test_an_api_key_found_again_comes_back_with_its_secret(platform):
    hook = MessagingPlatformHook()
    once = CreateOnce("abcabcabcabcabc1")  # no store: found through the marker in Label
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/api-key$", count=1)
    with pytest.raises(MessagingPlatformApiError):
        hook.create_api_key("Rotation target", once=once)
    key = hook.create_api_key("Rotation target", once=once)
    assert key["Secret"] and key["Label"] == "Rotation target [af:abcabcabcabcabc1]"
    assert sum(k["Label"].startswith("Rotation target") for k in hook.list_api_keys()) == 1


def test_an_identical_older_voice_call_is_not_adopted(platform):
    """Content alone must not swallow a new call: only what appeared after the first try's watermark counts."""
    hook = MessagingPlatformHook()
    call = {"channels": ["+15125550100"], "targets": ["+15555550123"], "message": "Daily reminder"}
    yesterday = hook.create_push_voice_call(**call)
    today = hook.create_push_voice_call(**call, once=CreateOnce("1111222233334444", InMemoryStore()))
    assert today["Id"] != yesterday["Id"]


def test_a_coupon_definition_whose_answer_was_lost_is_adopted_in_the_account_named_on_the_call(platform):
    """One per campaign: the retry finds the definition its first try made, in the account the call names (not the
    hook's, which does not exist here) and sends no second create."""
    account = platform.seed.account_id
    hook = MessagingPlatformHook(account_id=account + 7)
    campaign = hook.create_campaign(name="Coupons", campaign_type="Coupon", account_id=account)
    once = CreateOnce("c0c0c0c0c0c0c0c0", InMemoryStore())
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/coupon$", count=1)
    before = len(platform.control.requests())
    with pytest.raises(MessagingPlatformApiError):
        hook.create_coupon_definition(campaign["Id"], "Static", static_code="SAVE10", once=once, account_id=account)
    adopted = hook.create_coupon_definition(
        campaign["Id"], "Static", static_code="SAVE10", once=once, account_id=account
    )
    assert adopted["StaticCode"] == "SAVE10"
    coupon = f"/api/v2.1/account/{account}/campaign/{campaign['Id']}/coupon"
    assert [(r["method"], r["path"], r["status"]) for r in platform.control.requests()[before:]] == [
        ("GET", coupon, 404),  # none before the first try
        ("POST", coupon, None),  # made, its answer dropped: no status recorded
        ("GET", coupon, 200),  # the retry finds it
    ]


def test_a_coupon_definition_without_a_state_store_is_sent_as_is(platform):
    hook = MessagingPlatformHook()
    campaign = hook.create_campaign(name="Coupons", campaign_type="Coupon")
    before = len(platform.control.requests())
    once = CreateOnce("0d0d0d0d0d0d0d0d")  # no store: no lookup first
    made = hook.create_coupon_definition(campaign["Id"], "Static", static_code="SAVE10", once=once)
    assert made["StaticCode"] == "SAVE10"
    assert [r["method"] for r in platform.control.requests()[before:]] == ["POST"]


@pytest.mark.xdist_group("dag_runs")
def test_mapped_instances_with_identical_values_each_create_their_own(platform, dag_runs):
    """Every mapped instance has its own marker (the map index is part of it), even when the values are equal."""
    from airflow.models.xcom import XComModel
    from airflow.utils.session import create_session

    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/campaign$", count=3)
    platform.control.add_fault(kind="commit_then_drop", method="POST", path="/action-pushvoicecall$", count=2)
    dag = dag_bag(str(TEST_DAGS)).get_dag("messaging_platform_test_mapped_creates")
    run = dag.test()

    tries = sorted((ti.task_id, ti.map_index, ti.state, ti.try_number) for ti in run.get_task_instances())
    assert tries == [
        ("campaigns", 0, "success", 2),
        ("campaigns", 1, "success", 2),
        ("campaigns", 2, "success", 2),
        ("voice_calls", 0, "success", 2),
        ("voice_calls", 1, "success", 2),
    ]
    with create_session() as session:
        rows = session.execute(XComModel.get_many(run_id=run.run_id, dag_ids=dag.dag_id, key="return_value")).scalars()
        ids = {(row.task_id, row.map_index): XComModel.deserialize_value(row)["Id"] for row in rows}
    hook = MessagingPlatformHook()
    campaigns = [c for c in hook.list_campaigns() if c["Name"] == "Mapped campaign"]
    calls = [c for c in hook.list_push_voice_calls() if c["Message"] == "Mapped call"]
    assert sorted(ids[("campaigns", i)] for i in range(3)) == sorted(c["Id"] for c in campaigns)
    assert len(set(ids.values())) == 5 and len(campaigns) == 3 and len(calls) == 2
    assert sorted(ids[("voice_calls", i)] for i in range(2)) == sorted(c["Id"] for c in calls)
    assert len({c["UserData"] for c in campaigns}) == 3  # three markers
    posts = [r for r in platform.control.requests() if r["method"] == "POST"]
    assert len(posts) == 5  # one create per instance; every retry found its own
