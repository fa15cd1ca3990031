"""Fault injection: error statuses, 429 with Retry-After, delays, dropped connections."""

from __future__ import annotations

import time

import pytest
import requests


def test_status_fault_answers_once_with_a_platform_error(emu):
    rule = emu.ok("POST", "/faults", json={"kind": "status"})
    assert (rule["kind"], rule["status"], rule["count"]) == ("status", 503, 1)
    response = emu.api("GET", emu.campaigns)
    assert response.status_code == 503
    [error] = response.json()
    assert set(error) == {"ErrorCodeId", "ErrorMessage", "ObjectType", "PropertyName"}
    assert emu.api("GET", emu.campaigns).status_code == 204
    assert emu.ok("GET", "/faults") == []


def test_rules_match_method_and_path_and_count_down(emu):
    emu.ok(
        "POST", "/faults", json={"kind": "status", "status": 502, "count": 2, "method": "post", "path": "/campaign$"}
    )
    assert emu.api("GET", emu.campaigns).status_code == 204  # method does not match
    assert emu.api("POST", emu.schedules, json=emu.schedule_body()).status_code == 201  # path does not match
    assert emu.ok("GET", "/faults")[0]["count"] == 2
    assert emu.api("POST", emu.campaigns, json={"Name": "x", "CampaignTypeId": 1}).status_code == 502
    assert emu.ok("GET", "/faults")[0]["count"] == 1
    assert emu.api("POST", emu.campaigns, json={"Name": "x", "CampaignTypeId": 1}).status_code == 502
    assert emu.api("POST", emu.campaigns, json={"Name": "x", "CampaignTypeId": 1}).status_code == 201
    assert len(emu.api("GET", emu.campaigns).json()) == 1


def test_rules_fire_in_the_order_added(emu):
    emu.ok("POST", "/faults", json={"kind": "status", "status": 500})
    emu.ok("POST", "/faults", json={"kind": "status", "status": 504})
    assert [emu.api("GET", emu.campaigns).status_code for _ in range(3)] == [500, 504, 204]


def test_retry_after_answers_429_with_header(emu):
    emu.ok("POST", "/faults", json={"kind": "retry_after", "retry_after": 7})
    response = emu.api("GET", emu.campaigns)
    assert (response.status_code, response.headers["Retry-After"]) == (429, "7")
    assert isinstance(response.json(), list)


def test_delay_then_normal_answer(emu):
    emu.ok("POST", "/faults", json={"kind": "delay", "delay": 0.3})
    started = time.monotonic()
    response = emu.api("POST", emu.campaigns, json={"Name": "slow", "CampaignTypeId": 1})
    assert response.status_code == 201
    assert time.monotonic() - started >= 0.3


def test_drop_closes_the_connection_without_committing(emu):
    emu.ok("POST", "/faults", json={"kind": "drop", "method": "POST"})
    with pytest.raises(requests.exceptions.ConnectionError):
        emu.api("POST", emu.campaigns, json={"Name": "lost", "CampaignTypeId": 1})
    assert emu.api("GET", emu.campaigns).status_code == 204
    dropped = emu.ok("GET", "/requests")[0]
    assert (dropped["method"], dropped["status"], dropped["fault"]) == ("POST", None, "drop")


def test_commit_then_drop_commits_but_answers_nothing(emu):
    emu.ok("POST", "/faults", json={"kind": "commit_then_drop"})
    with pytest.raises(requests.exceptions.ConnectionError):
        emu.api("POST", emu.campaigns, json={"Name": "committed", "CampaignTypeId": 1})
    assert [c["Name"] for c in emu.api("GET", emu.campaigns).json()] == ["committed"]
    first = emu.ok("GET", "/requests")[0]
    assert (first["status"], first["fault"]) == (None, "commit_then_drop")


def test_a_rule_with_a_probability_fires_on_that_share_of_matching_requests(emu):
    rule = {"kind": "status", "status": 503, "count": 10_000, "probability": 0.2, "seed": 7, "method": "GET"}
    emu.ok("POST", "/faults", json=rule)
    statuses = [emu.api("GET", emu.campaigns).status_code for _ in range(400)]
    faulted = statuses.count(503)
    assert set(statuses) == {503, 204}
    assert 0.14 * 400 <= faulted <= 0.26 * 400, faulted  # seeded: the same share on every run
    assert emu.ok("GET", "/faults")[0]["count"] == 10_000 - faulted  # only the requests it fired on count
    emu.ok("DELETE", "/faults")
    emu.ok("POST", "/faults", json=rule)
    assert [emu.api("GET", emu.campaigns).status_code for _ in range(400)] == statuses  # the seed repeats it


def test_control_endpoints_are_never_faulted(emu):
    emu.ok("POST", "/faults", json={"kind": "drop", "count": 5})
    assert emu.ok("GET", "/health") == {"status": "ok"}
    assert emu.ok("GET", "/faults")[0]["count"] == 5
    assert emu.ok("DELETE", "/faults") == {"cleared": 1}
    assert emu.api("GET", emu.campaigns).status_code == 204


@pytest.mark.parametrize(
    "rule",
    [
        {"kind": "explode"},
        {"kind": "status", "status": 200},
        {"kind": "status", "count": 0},
        {"kind": "drop", "path": "("},
        {"kind": "status", "probability": 0},
        {"kind": "status", "probability": 1.5},
    ],
)
def test_bad_rules_are_rejected(emu, rule):
    assert emu.control("POST", "/faults", json=rule).status_code == 422


def test_reset_clears_faults(emu):
    emu.ok("POST", "/faults", json={"kind": "status"})
    emu.ok("POST", "/reset")
    assert emu.ok("GET", "/faults") == []


@pytest.mark.parametrize(
    "path",
    ["/api-key", "/external-couponlist", "/action-pushvoicecall", "/contactlist/4001/group", "/contact", "/callback"],
)
def test_faults_apply_to_every_resource(emu, path):
    emu.ok("POST", "/faults", json={"kind": "status", "status": 502, "path": path.replace("/", r"\/") + "$"})
    assert emu.api("GET", emu.at(path)).status_code == 502
    assert emu.api("GET", emu.at(path)).status_code in (200, 204)


def test_commit_then_drop_of_a_key_rotation_still_rotates(emu):
    emu.ok("POST", "/faults", json={"kind": "commit_then_drop", "method": "PUT"})
    with pytest.raises(requests.exceptions.ConnectionError):
        emu.api("PUT", emu.at("/api-key/1"))
    assert emu.api("GET", emu.campaigns).status_code == 401  # the seeded secret was replaced
