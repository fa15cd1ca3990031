"""Action schedule operators against the emulator: what goes over the wire and what lands in XCom."""

from __future__ import annotations

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.operators import (
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeleteScheduleOperator,
    MessagingPlatformGetScheduleOperator,
    MessagingPlatformListSchedulesOperator,
    MessagingPlatformUpdateScheduleOperator,
)
from tests.support.operator_context import (
    assert_wire_headers,
    clear_requests,
    fails_without_retry,
    refused,
    run,
    sent,
    task_context,
)

SCHEDULES = "/api/v2.1/account/1001/action/5001/schedule"
DEFINITION = ("schedule_type", "run_at", "start_from", "end_after", "week_day", "month_day", "extra")


def make_schedule(schedule_type: str = "Daily", run_at: str = "08:00:00", **kwargs) -> dict:
    return MessagingPlatformHook().create_schedule(5001, schedule_type, run_at, "2026-12-01T00:00:00", **kwargs)


def weekly(**kwargs) -> MessagingPlatformCreateScheduleOperator:
    values = {
        "task_id": "s",
        "action_id": 5001,
        "schedule_type": "Weekly",
        "run_at": "09:30:00",
        "start_from": "2026-12-01T08:00:00+02:00",
        "week_day": ["mon", "Thursday"],
    }
    values.update(kwargs)
    return MessagingPlatformCreateScheduleOperator(**values)


def test_the_seed_is_what_the_paths_below_assume(platform):
    assert (platform.seed.account_id, platform.seed.action_id) == (1001, 5001)


# -- create ---------------------------------------------------------------------------------------


def test_create_schedule_sends_the_schedule_request_and_returns_the_schedule(platform):
    result = run(weekly(end_after="2027-01-31T23:00:00Z"))
    lookup, post = platform.control.requests()
    assert sent(lookup) == ("GET", SCHEDULES, "")
    assert_wire_headers(platform, lookup, with_body=False)
    assert sent(post) == ("POST", SCHEDULES, "")
    assert_wire_headers(platform, post, with_body=True)
    assert post["json"] == {
        "ScheduleTypeId": 7,
        "RunAt": "09:30:00",
        "StartFrom": "2026-12-01T06:00:00",
        "EndAfter": "2027-01-31T23:00:00",
        "WeekDay": "MON, THU",
    }
    assert post["status"] == 201
    assert result["Id"] == 7001
    assert (result["AccountId"], result["ActionId"], result["ScheduleTypeId"]) == (1001, 5001, 7)
    assert (result["RunAt"], result["StartFrom"], result["EndAfter"]) == (
        "09:30:00",
        "2026-12-01T06:00:00",
        "2027-01-31T23:00:00",
    )
    assert result["WeekDay"].replace(" ", "") == "MON,THU"
    assert result["ProcessStatus"] == "Pending"


def test_create_monthly_schedule_from_a_templated_action_id(platform):
    op = MessagingPlatformCreateScheduleOperator(
        task_id="s", action_id="5001", schedule_type=8, run_at="10:00:00", start_from="2026-12-01", month_day="15,1"
    )
    result = run(op)
    post = platform.control.requests()[-1]
    assert sent(post) == ("POST", SCHEDULES, "")
    assert post["json"] == {
        "ScheduleTypeId": 8,
        "RunAt": "10:00:00",
        "StartFrom": "2026-12-01T00:00:00",
        "MonthDay": "15,1",
    }
    assert result["MonthDay"] == "15,1"


def test_create_schedule_twice_with_the_same_context_posts_once(platform):
    op = weekly()
    context = task_context(op)
    first = run(op, context)
    second = run(op, context)
    assert second["Id"] == first["Id"] == 7001
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert [s["Id"] for s in MessagingPlatformHook().list_schedules(5001)] == [7001]


@pytest.mark.parametrize(
    "kwargs",
    [
        {},  # Weekly: WeekDay given, MonthDay not applicable
        {"schedule_type": "Daily", "week_day": None},  # neither WeekDay nor MonthDay applies
    ],
)
def test_create_schedule_adopts_an_identical_schedule_instead_of_adding_one(platform, kwargs):
    """docs/retry-safe-creates.md: an identical schedule that already existed is adopted, not duplicated."""
    op = weekly(**kwargs)
    first = run(op, task_context(op))
    second = run(op, task_context(op))  # a fresh task state store: only the definition can find it
    assert second["Id"] == first["Id"]
    assert [r["method"] for r in platform.control.requests()].count("POST") == 1
    assert len(MessagingPlatformHook().list_schedules(5001)) == 1


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"week_day": None}, "week_day"),
        ({"week_day": ["MON", "Funday"]}, "week_day"),
        ({"run_at": "9:30"}, "run_at"),
        ({"schedule_type": "Hourly"}, "schedule_type"),
        ({"start_from": "next tuesday"}, "start_from"),
        ({"end_after": "2026-11-30T00:00:00"}, "end_after"),
        ({"month_day": 3}, "month_day"),
    ],
)
def test_create_schedule_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        run(weekly(**kwargs))
    assert platform.control.requests() == []


def test_schedule_operators_template_fields():
    assert set(MessagingPlatformCreateScheduleOperator.template_fields) >= {"account_id", "action_id", *DEFINITION}
    assert set(MessagingPlatformUpdateScheduleOperator.template_fields) >= {
        "account_id", "action_id", "schedule_id", *DEFINITION,
    }  # fmt: skip
    for cls in (MessagingPlatformGetScheduleOperator, MessagingPlatformDeleteScheduleOperator):
        assert set(cls.template_fields) >= {"account_id", "action_id", "schedule_id"}
    assert set(MessagingPlatformListSchedulesOperator.template_fields) >= {"account_id", "action_id"}


# -- list / get -----------------------------------------------------------------------------------


def test_list_schedules(platform):
    first, second = make_schedule(), make_schedule("Monthly", month_day=[1])
    clear_requests(platform)
    result = run(MessagingPlatformListSchedulesOperator(task_id="l", action_id=5001))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", SCHEDULES, "")
    assert_wire_headers(platform, record, with_body=False)
    assert [s["Id"] for s in result] == [first["Id"], second["Id"]] == [7001, 7002]
    assert [s["ScheduleTypeId"] for s in result] == [6, 8]


def test_list_schedules_empty_is_an_empty_list(platform):
    assert run(MessagingPlatformListSchedulesOperator(task_id="l", action_id="5001")) == []
    assert platform.control.requests()[0]["status"] == 204


def test_get_schedule(platform):
    made = make_schedule()
    clear_requests(platform)
    result = run(MessagingPlatformGetScheduleOperator(task_id="g", action_id=5001, schedule_id=made["Id"]))
    (record,) = platform.control.requests()
    assert sent(record) == ("GET", f"{SCHEDULES}/7001", "")
    assert (result["Id"], result["ScheduleTypeId"], result["RunAt"]) == (7001, 6, "08:00:00")
    assert "ProcessStatus" in result


def test_get_schedule_with_account_override(platform):
    op = MessagingPlatformGetScheduleOperator(task_id="g", action_id=5001, schedule_id=7001, account_id="1002")
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404
    assert sent(platform.control.requests()[0]) == ("GET", "/api/v2.1/account/1002/action/5001/schedule/7001", "")


# -- update ---------------------------------------------------------------------------------------


def test_update_schedule_sends_the_whole_definition(platform):
    made = make_schedule()
    clear_requests(platform)
    op = MessagingPlatformUpdateScheduleOperator(
        task_id="u",
        action_id=5001,
        schedule_id=str(made["Id"]),
        schedule_type="Monthly",
        run_at="07:15:00",
        start_from="2026-12-02T00:00:00",
        month_day=[1, 15],
    )
    result = run(op)
    (record,) = platform.control.requests()
    assert sent(record) == ("PUT", f"{SCHEDULES}/7001", "")
    assert_wire_headers(platform, record, with_body=True)
    assert record["json"] == {
        "ScheduleTypeId": 8,
        "RunAt": "07:15:00",
        "StartFrom": "2026-12-02T00:00:00",
        "MonthDay": "1,15",
    }
    assert (result["Id"], result["ScheduleTypeId"], result["MonthDay"], result["RunAt"]) == (
        7001,
        8,
        "1,15",
        "07:15:00",
    )


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"schedule_type": "Monthly"}, "month_day"),
        ({"schedule_type": "Daily", "week_day": "MON"}, "week_day"),
        ({"schedule_type": "Daily", "run_at": "25:00:00"}, "run_at"),
    ],
)
def test_update_schedule_bad_input_fails_before_any_request(platform, kwargs, field):
    with refused(field):
        op = MessagingPlatformUpdateScheduleOperator(
            task_id="u",
            action_id=5001,
            schedule_id=7001,
            **{"run_at": "08:00:00", "start_from": "2026-12-01", **kwargs},
        )
        run(op)
    assert platform.control.requests() == []


# -- delete ---------------------------------------------------------------------------------------


def test_delete_schedule_true_then_false(platform):
    made = make_schedule()
    clear_requests(platform)
    op = MessagingPlatformDeleteScheduleOperator(task_id="d", action_id=5001, schedule_id=made["Id"])
    assert run(op) is True
    assert run(op) is False
    records = platform.control.requests()
    assert [sent(r) for r in records] == [("DELETE", f"{SCHEDULES}/7001", "")] * 2
    assert [r["status"] for r in records] == [200, 404]
    assert MessagingPlatformHook().list_schedules(5001) == []


def test_delete_schedule_missing_not_ok_fails(platform):
    op = MessagingPlatformDeleteScheduleOperator(task_id="d", action_id=5001, schedule_id=7999, missing_ok=False)
    with fails_without_retry(MessagingPlatformApiError) as caught:
        run(op)
    assert caught.value.status == 404
