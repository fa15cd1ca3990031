"""The hook against the live emulator: what goes over the wire, and how answers and errors come back."""

from __future__ import annotations

import base64

import pytest

from messaging_platform_provider.client import MessagingPlatformApiError, RetryPolicy
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

FAST = RetryPolicy(max_attempts=4, backoff_base=0.01, backoff_max=0.05)


@pytest.fixture
def hook(platform) -> MessagingPlatformHook:
    return MessagingPlatformHook(retry_policy=FAST)


def test_basic_auth_and_json_headers(platform, hook):
    hook.create_campaign(name="Headers", campaign_type="Basic")
    hook.list_campaigns(only_mine=True)
    post, get = platform.control.requests()
    expected = "Basic " + base64.b64encode(f"{platform.seed.api_key}:{platform.seed.api_secret}".encode()).decode()
    for record in (post, get):
        assert record["headers"]["authorization"] == expected
        assert record["headers"]["accept"] == "application/json"
        assert record["headers"]["user-agent"].startswith("airflow-provider-messaging-platform/")
    assert post["headers"]["content-type"] == "application/json"
    assert post["method"] == "POST"
    assert post["path"] == f"/api/v2.1/account/{platform.seed.account_id}/campaign"
    assert post["json"] == {"Name": "Headers", "CampaignTypeId": 1}
    assert get["query"] == "onlyMine=true"


def test_campaign_crud_round_trip(platform, hook):
    created = hook.create_campaign(name="Launch", campaign_type=4, user_data="run-1")
    assert created["Name"] == "Launch" and created["CampaignTypeId"] == 4 and created["UserData"] == "run-1"
    assert created["AccountId"] == platform.seed.account_id
    assert "+" not in created["Created"] and not created["Created"].endswith("Z")
    updated = hook.update_campaign(created["Id"], name="Launch v2")
    assert updated["Name"] == "Launch v2"
    assert hook.get_campaign(created["Id"])["Name"] == "Launch v2"
    assert [c["Id"] for c in hook.list_campaigns()] == [created["Id"]]
    assert hook.delete_campaign(created["Id"]) is True
    assert hook.delete_campaign(created["Id"]) is False  # already gone counts as done
    methods = [(r["method"], r["status"]) for r in platform.control.requests()]
    assert methods == [("POST", 201), ("PUT", 200), ("GET", 200), ("GET", 200), ("DELETE", 200), ("DELETE", 404)]


def test_schedule_crud_round_trip(platform, hook):
    action = platform.seed.action_id
    weekly = hook.create_schedule(action, "Weekly", "09:30:00", "2026-12-01T08:00:00+02:00", week_day=["mon", "FRI"])
    assert weekly["ScheduleTypeId"] == 7 and weekly["WeekDay"].replace(" ", "") == "MON,FRI"
    assert platform.control.requests()[0]["json"] == {
        "ScheduleTypeId": 7,
        "RunAt": "09:30:00",
        "StartFrom": "2026-12-01T06:00:00",
        "WeekDay": "MON, FRI",
    }
    monthly = hook.update_schedule(action, weekly["Id"], "Monthly", "10:00:00", "2026-12-01", month_day=[1, 15])
    assert monthly["ScheduleTypeId"] == 8 and monthly["MonthDay"] == "1,15"
    assert [s["Id"] for s in hook.list_schedules(action)] == [weekly["Id"]]
    assert hook.get_schedule(action, weekly["Id"])["RunAt"] == "10:00:00"
    assert hook.delete_schedule(action, weekly["Id"]) is True
    assert hook.list_schedules(action) == []


def test_empty_list_is_204_and_an_empty_list(platform, hook):
    assert hook.list_campaigns() == []
    assert hook.list_schedules(platform.seed.action_id) == []
    assert [r["status"] for r in platform.control.requests()] == [204, 204]


def test_not_found_maps_to_api_error_with_details(platform, hook):
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.get_campaign(987654)
    err = caught.value
    assert (err.status, err.method) == (404, "GET")
    assert err.path == f"/account/{platform.seed.account_id}/campaign/987654"
    assert err.details and err.details[0].error_code_id == 404
    assert "HTTP 404" in str(err)


@pytest.mark.messaging_platform_allow_violations("bypasses the client-side checks to see the platform's own 400")
def test_platform_validation_error_carries_property_name(platform, hook):
    # Bypass the client-side checks to see the platform's own 400.
    body = {"ScheduleTypeId": 7, "RunAt": "09:00:00", "StartFrom": "2026-12-01T00:00:00"}
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.call("create_schedule", action_id=platform.seed.action_id, body=body)
    assert caught.value.status == 400
    assert [d.property_name for d in caught.value.details] == ["WeekDay"]
    assert "WeekDay" in str(caught.value)


def test_other_account_is_not_found(platform, hook):
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.list_campaigns(account_id=platform.seed.account_id + 1)
    assert caught.value.status == 404


def test_account_override_on_the_hook(platform):
    hook = MessagingPlatformHook(account_id=platform.seed.account_id + 7, retry_policy=FAST)
    with pytest.raises(MessagingPlatformApiError):
        hook.list_campaigns()
    assert platform.control.requests()[0]["path"] == f"/api/v2.1/account/{platform.seed.account_id + 7}/campaign"


def test_wrong_secret_is_401_and_the_secret_stays_out_of_the_error(platform, monkeypatch, caplog):
    wrong = "not-the-secret-" + "x" * 12
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(password=wrong))
    hook = MessagingPlatformHook(retry_policy=FAST)
    with pytest.raises(MessagingPlatformApiError) as caught:
        hook.list_campaigns()
    assert caught.value.status == 401
    assert len(platform.control.requests()) == 1  # 401 is not retried
    for text in (str(caught.value), repr(caught.value), caplog.text, repr(hook.client)):
        assert wrong not in text and platform.seed.api_secret not in text


def test_test_connection_reports_success_and_failure(platform, monkeypatch):
    ok, message = MessagingPlatformHook().test_connection()
    assert ok and str(platform.seed.account_id) in message
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(password="wrong-secret"))
    ok, message = MessagingPlatformHook().test_connection()
    assert not ok and "401" in message and "wrong-secret" not in message


def test_one_pooled_session_per_hook(platform, hook):
    assert hook.get_conn() is hook.get_conn()
    hook.list_campaigns()
    hook.list_campaigns()
    assert hook.client.session.adapters["http://"].poolmanager.pools  # the connection was kept for reuse
