"""Network conditions: a latency on every platform request, and a per-account rate limit answered 429."""

from __future__ import annotations

import time

import pytest

from messaging_platform_emulator.cli import main as cli_main
from messaging_platform_emulator.conditions import Conditions, NetworkConditions, retry_after_header
from messaging_platform_emulator.server import EmulatorServer


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_each_account_has_a_bucket_that_refills_at_the_rate():
    clock = FakeClock()
    limits = NetworkConditions(Conditions(rate_limit=10, burst=2), clock=clock)
    path = "/api/v2.1/account/1001/campaign"
    assert [limits.admit(path), limits.admit(path)] == [None, None]
    assert limits.admit(path) == pytest.approx(0.1)  # the next token is a tenth of a second away
    assert limits.admit("/api/v2.1/account/1002/campaign") is None  # another account: its own bucket
    clock.now += 0.1
    assert limits.admit(path) is None
    clock.now += 60
    assert [limits.admit(path) for _ in range(3)][-1] is not None  # a quiet spell refills up to the burst only
    assert limits.limited == 2
    limits.set(Conditions())
    assert all(limits.admit(path) is None for _ in range(100)) and limits.limited == 0


def test_the_default_burst_is_one_seconds_worth_and_retry_after_is_whole_seconds():
    assert Conditions(rate_limit=200).bucket_size == 200
    assert Conditions(rate_limit=0.5).bucket_size == 1
    assert [retry_after_header(w) for w in (0.004, 1.0, 1.2)] == ["1", "1", "2"]


def test_beyond_the_limit_a_request_is_answered_429_with_retry_after_and_the_platform_does_nothing(emu):
    emu.server.control.set_conditions(rate_limit=2, burst=3)
    answers = [emu.api("POST", emu.campaigns, json={"Name": f"c{i}", "CampaignTypeId": 1}) for i in range(5)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429, 429]
    assert answers[3].headers["Retry-After"] == "1"
    [error] = answers[3].json()
    assert "rate limit" in error["ErrorMessage"]
    assert emu.server.control.conditions()["limited"] == 2
    records = emu.server.control.requests()
    assert [(r["status"], r["fault"]) for r in records[-2:]] == [(429, "rate_limit"), (429, "rate_limit")]
    time.sleep(0.6)  # one token back
    assert len(emu.api("GET", emu.campaigns).json()) == 3  # the refused creates made nothing
    assert emu.server.control.reset() and emu.server.control.conditions()["rate_limit"] is None


def test_a_refused_request_uses_up_no_fault_rule(emu):
    emu.server.control.set_conditions(rate_limit=1, burst=1)
    emu.server.control.add_fault("status", status=500)
    assert emu.api("GET", emu.campaigns).status_code == 500  # the one token, then the rule
    assert emu.api("GET", emu.campaigns).status_code == 429
    assert emu.server.control.faults() == []


def test_latency_is_waited_on_platform_requests_only(emu):
    emu.server.control.set_conditions(latency=0.3)
    started = time.monotonic()
    assert emu.api("GET", emu.campaigns).status_code == 204
    assert time.monotonic() - started >= 0.3
    # The control routes are never delayed: with a latency (60 s) far beyond the control client's read timeout
    # (10 s), a health check that waited it would fail instead of answering.
    emu.server.control.set_conditions(latency=60)
    assert emu.server.control.health() == {"status": "ok"}
    emu.server.control.set_conditions()


def test_conditions_given_at_start_come_back_on_reset():
    start = Conditions(latency=0.01, rate_limit=50, burst=5)
    with EmulatorServer(conditions=start) as server:
        assert server.control.conditions() == {"latency": 0.01, "rate_limit": 50.0, "burst": 5, "limited": 0}
        server.control.set_conditions()
        assert server.control.conditions()["rate_limit"] is None
        server.control.reset()
        assert server.control.conditions()["rate_limit"] == 50.0


@pytest.mark.parametrize(("flag", "value"), [("--latency", "-1"), ("--rate-limit", "0"), ("--burst", "0")])
def test_the_cli_refuses_a_bad_condition_naming_its_flag(flag, value, capsys):
    with pytest.raises(SystemExit):
        cli_main([flag, value])
    assert f"error: {flag}:" in capsys.readouterr().err
