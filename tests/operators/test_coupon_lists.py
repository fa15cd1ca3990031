"""External coupon list operators against the emulator: what goes over the wire and what lands in XCom."""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, RetryPolicy
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformDeleteExternalCouponCodeOperator,
    MessagingPlatformDeleteExternalCouponCodesOperator,
    MessagingPlatformDeleteExternalCouponListOperator,
    MessagingPlatformGetExternalCouponListOperator,
    MessagingPlatformListExternalCouponCodesOperator,
    MessagingPlatformListExternalCouponListsOperator,
    MessagingPlatformUpdateExternalCouponListOperator,
)
from messaging_platform_provider.version_compat import AirflowException, AirflowFailException
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

LISTS = "/api/v2.1/account/1001/external-couponlist"
BODY_FIELDS = ("name", "description", "inheritable", "coupon_codes", "extra")


def make_list(name: str = "Codes", codes: list[str] | None = None) -> dict:
    return MessagingPlatformHook().create_external_coupon_list(name=name, coupon_codes=codes or ["A1", "B2"])


# -- create ---------------------------------------------------------------------------------------


def test_create_external_coupon_list_sends_codes_and_marker_and_returns_the_list(platform):
    op = MessagingPlatformCreateExternalCouponListOperator(
        task_id="cl", name="Spring codes", description="for spring", inheritable=True, coupon_codes=("A1", "B2", "A1")
    )
    result = run(op)
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", LISTS, "")
    assert_wire_headers(platform, lookup, with_body=False)
    assert sent(post) == ("POST", LISTS, "")
    assert_wire_headers(platform, post, with_body=True)
    marker = "[af:d03a3b6d0aca4de8]"  # sha256("d␟cl␟r1␟-1"), first 16 hex digits: dag, task, run, map index
    assert post["json"] == {
        "Name": "Spring codes",
        "Description": f"for spring {marker}",
        "Inheritable": True,
        "CouponCodes": ["A1", "B2"],  # duplicates dropped before sending
    }
    assert post["status"] == 201
    assert result["Id"] == 2001 and result["AccountId"] == 1001  # the emulator numbers coupon lists from 2001
    assert (result["Name"], result["Inheritable"], result["TotalCodesAvailable"]) == ("Spring codes", True, 2)
    assert strip_marker(result["Description"]) == "for spring"


def test_create_external_coupon_list_twice_with_the_same_context_posts_once(platform):
    op = MessagingPlatformCreateExternalCouponListOperator(task_id="cl", name="Once", coupon_codes=["X"])
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second == first
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert MessagingPlatformHook().list_external_coupon_lists() == [first]


def test_create_external_coupon_list_retry_without_stored_id_finds_it_by_marker(platform):
    op = MessagingPlatformCreateExternalCouponListOperator(task_id="cl", name="Once")
    first = run(op, task_context(op))
    clear_requests(platform)
    second = run(op, task_context(op))
    assert second == first
    assert [sent(r) for r in platform.control.requests()] == [("GET", LISTS, ""), ("GET", f"{LISTS}/{first['Id']}", "")]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": " "}, "name"),
        ({"name": "Long", "coupon_codes": ["x" * 101]}, "coupon_codes"),
        ({"name": "Blank", "coupon_codes": ["A1", ""]}, "coupon_codes"),
    ],
)
def test_create_external_coupon_list_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformCreateExternalCouponListOperator(task_id="cl", **kwargs)
        run(op)
    assert platform.control.requests() == []


def test_coupon_list_operators_template_fields():
    assert set(MessagingPlatformCreateExternalCouponListOperator.template_fields) >= {"account_id", *BODY_FIELDS}
    assert set(MessagingPlatformUpdateExternalCouponListOperator.template_fields) >= {
        "account_id", "coupon_list_id", *BODY_FIELDS,
    }  # fmt: skip
    for cls in (MessagingPlatformGetExternalCouponListOperator, MessagingPlatformDeleteExternalCouponListOperator):
        assert set(cls.template_fields) >= {"account_id", "coupon_list_id"}
    assert "account_id" in MessagingPlatformListExternalCouponListsOperator.template_fields


# -- list / get -----------------------------------------------------------------------------------


def test_list_external_coupon_lists(platform):
    first, second = make_list("One"), make_list("Two", ["Z9"])
    clear_requests(platform)
    result = run(MessagingPlatformListExternalCouponListsOperator(task_id="l"))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", LISTS, "")
    assert_wire_headers(platform, record, with_body=False)
    assert result == [first, second]
    assert [c["TotalCodesAvailable"] for c in result] == [2, 1]


def test_list_external_coupon_lists_empty_is_an_empty_list(platform):
    assert run(MessagingPlatformListExternalCouponListsOperator(task_id="l")) == []
    assert platform.control.requests()[0]["status"] == 204


def test_list_external_coupon_lists_account_override(platform):
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(MessagingPlatformListExternalCouponListsOperator(task_id="l", account_id=2002))
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("GET", "/api/v2.1/account/2002/external-couponlist", "")


def test_get_external_coupon_list(platform):
    made = make_list()
    clear_requests(platform)
    result = run(MessagingPlatformGetExternalCouponListOperator(task_id="g", coupon_list_id=str(made["Id"])))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{LISTS}/{made['Id']}", "")
    assert result == made


# -- update ---------------------------------------------------------------------------------------


def test_update_external_coupon_list_changes_fields_and_adds_codes(platform):
    made = make_list()
    clear_requests(platform)
    op = MessagingPlatformUpdateExternalCouponListOperator(
        task_id="u",
        coupon_list_id=made["Id"],
        description="more",
        coupon_codes=["C3", "A1"],
        extra={"Inheritable": True},
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{LISTS}/{made['Id']}", "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == {"Description": "more", "CouponCodes": ["C3", "A1"], "Inheritable": True}
    assert result["Id"] == made["Id"]
    assert (result["Name"], result["Description"], result["Inheritable"]) == ("Codes", "more", True)
    assert result["TotalCodesAvailable"] == 3  # A1 was already there


@pytest.mark.parametrize(
    ("kwargs", "field"), [({}, "body"), ({"name": ""}, "name"), ({"coupon_codes": [None]}, "coupon_codes")]
)
def test_update_external_coupon_list_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformUpdateExternalCouponListOperator(task_id="u", coupon_list_id=1, **kwargs)
        run(op)
    assert platform.control.requests() == []


# -- delete ---------------------------------------------------------------------------------------


def test_delete_external_coupon_list_true_then_false(platform):
    made = make_list()
    clear_requests(platform)
    op = MessagingPlatformDeleteExternalCouponListOperator(task_id="d", coupon_list_id=made["Id"])
    assert run(op) is True
    assert run(op) is False
    records = platform.control.requests()
    assert [sent(r) for r in records] == [("DELETE", f"{LISTS}/{made['Id']}", "")] * 2
    assert [r["status"] for r in records] == [200, 404]
    assert MessagingPlatformHook().list_external_coupon_lists() == []


def test_delete_external_coupon_list_missing_not_ok_fails(platform):
    op = MessagingPlatformDeleteExternalCouponListOperator(task_id="d", coupon_list_id=999, missing_ok=False)
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404


# -- codes of a list (platform facts) ----------------------------------------------------------------


def test_list_external_coupon_codes(platform):
    made = make_list(codes=["A1", "B2"])
    clear_requests(platform)
    result = run(MessagingPlatformListExternalCouponCodesOperator(task_id="codes", coupon_list_id=made["Id"]))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{LISTS}/{made['Id']}/code", "")
    assert_wire_headers(platform, record, with_body=False)
    assert sorted(c["CouponCode"] for c in result) == ["A1", "B2"]
    assert {c["ListId"] for c in result} == {made["Id"]}


def test_delete_external_coupon_code_true_then_false(platform):
    made = make_list(codes=["A1", "B2"])
    clear_requests(platform)
    op = MessagingPlatformDeleteExternalCouponCodeOperator(task_id="dc", coupon_list_id=made["Id"], coupon_code="A1")
    assert run(op) is True
    assert run(op) is False
    first, second = platform.control.requests()
    assert sent(first) == ("DELETE", f"{LISTS}/{made['Id']}/code/A1", "")
    assert (first["status"], second["status"]) == (200, 404)
    codes = MessagingPlatformHook().list_external_coupon_codes(made["Id"])
    assert [c["CouponCode"] for c in codes] == ["B2"]


# -- many codes at once ------------------------------------------------------------------------------


def test_delete_external_coupon_codes_deletes_each_once_and_counts_those_already_gone(platform):
    made = make_list(codes=["A1", "B2", "C3", "D4"])
    clear_requests(platform)
    op = MessagingPlatformDeleteExternalCouponCodesOperator(
        task_id="dcs", coupon_list_id=made["Id"], coupon_codes=["A1", "B2", "A1", "Z9", "C3"]
    )
    assert run(op) == {"deleted": 3, "already_gone": ["Z9"]}
    records = platform.control.requests()
    assert sorted(sent(r)[1].rsplit("/", 1)[1] for r in records) == ["A1", "B2", "C3", "Z9"]  # a repeat is sent once
    assert {sent(r)[0] for r in records} == {"DELETE"}
    codes = MessagingPlatformHook().list_external_coupon_codes(made["Id"])
    assert [c["CouponCode"] for c in codes] == ["D4"]


def test_delete_external_coupon_codes_tries_every_code_then_fails_without_retry_on_a_refusal(platform):
    made = make_list(codes=["A1", "B2", "C3"])
    platform.control.add_fault(kind="status", status=403, count=1, method="DELETE", path="/code/B2$")
    op = MessagingPlatformDeleteExternalCouponCodesOperator(
        task_id="dcs", coupon_list_id=made["Id"], coupon_codes=["A1", "B2", "C3"]
    )
    with pytest.raises(AirflowFailException, match=r"1 of 3 codes were not deleted .*'B2'.*403"):
        run(op)
    codes = MessagingPlatformHook().list_external_coupon_codes(made["Id"])
    assert [c["CouponCode"] for c in codes] == ["B2"]  # the others were deleted before the task failed
    assert run(op) == {"deleted": 1, "already_gone": ["A1", "C3"]}  # a retry deletes what is left


def test_delete_external_coupon_codes_keeps_the_retries_when_a_retry_can_help(platform):
    made = make_list(codes=["A1", "B2"])
    platform.control.add_fault(kind="status", status=503, count=20, method="DELETE", path="/code/B2$")
    op = MessagingPlatformDeleteExternalCouponCodesOperator(
        task_id="dcs", coupon_list_id=made["Id"], coupon_codes=["A1", "B2"]
    )
    # As many tries as by default, without its seconds of backoff: this test is about what the task does after them.
    op.hook.retry_policy = RetryPolicy(backoff_base=0.01, backoff_max=0.05)
    with pytest.raises(AirflowException, match="1 of 2 codes") as caught:
        run(op)
    assert not isinstance(caught.value, AirflowFailException)  # 503: Airflow's retries are kept
    platform.control.clear_faults()
    assert run(op) == {"deleted": 1, "already_gone": ["A1"]}  # the retry: what the first try deleted is found gone


@pytest.mark.parametrize(
    ("codes", "field"),
    [
        ("A1,B2", "coupon_codes"),
        ({"codes": ["A1"]}, "coupon_codes"),
        (7, "coupon_codes"),
        (["A1", ""], "coupon_codes[1]"),
        (["A1", ".."], "coupon_codes[1]"),
    ],
    ids=["text", "mapping", "number", "empty-code", "dot-segment"],
)
def test_delete_external_coupon_codes_refuses_bad_codes_by_their_place_before_any_request(platform, codes, field):
    with refused(field):
        MessagingPlatformDeleteExternalCouponCodesOperator(task_id="dcs", coupon_list_id=2001, coupon_codes=codes)
    templated = MessagingPlatformDeleteExternalCouponCodesOperator(
        task_id="dcs", coupon_list_id=2001, coupon_codes="{{ params.codes }}"
    )
    templated.coupon_codes = codes  # as rendered when the task runs
    with refused(field):
        run(templated)
    assert platform.control.requests() == []


@pytest.mark.parametrize(
    ("rendered", "field"),
    [
        ({"coupon_list_id": ""}, "coupon_list_id"),
        ({"account_id": "abc"}, "account_id"),
        ({"coupon_codes": ["A1", b"B2"]}, "coupon_codes[1]"),  # from an upstream task: checked when the task runs
    ],
    ids=["list-id", "account-id", "bytes-code"],
)
def test_delete_external_coupon_codes_names_a_bad_rendered_value_as_written(platform, rendered, field):
    op = MessagingPlatformDeleteExternalCouponCodesOperator(
        task_id="dcs", coupon_list_id="{{ params.list }}", account_id="{{ params.account }}", coupon_codes=["A1"]
    )
    op.coupon_list_id, op.account_id = 2001, None
    for name, value in rendered.items():  # as rendered when the task runs
        setattr(op, name, value)
    with refused(field):
        run(op)
    assert platform.control.requests() == []
