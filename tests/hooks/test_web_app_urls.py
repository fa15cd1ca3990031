"""
The connection extras that give the web app's URL templates (``hooks/web_app_urls.py``): read by
``settings_from_connection``, dropped with a warning naming the extra when they cannot give a link (the connection
still works), and filled with ids only.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest

from messaging_platform_provider.get_provider_info import get_provider_info
from messaging_platform_provider.hooks.connection import settings_from_connection
from messaging_platform_provider.hooks.names import CONN_TYPE
from messaging_platform_provider.hooks.web_app_urls import WEB_APP_URLS, web_app_link
from tests.hooks.test_connection_settings import connection

CAMPAIGN = "https://app.example.com/accounts/{account_id}/campaigns/{campaign_id}"


def dropped(caplog: pytest.LogCaptureFixture, extra: str, value: Any, **other_extras: Any) -> str:
    """
    Reads a connection whose ``extra`` holds ``value``, a template that cannot give a link: the read succeeds
    without that template, and logs one warning for it, whose text is returned.
    """
    with caplog.at_level(logging.WARNING, logger="messaging_platform_provider.hooks.web_app_urls"):
        settings = settings_from_connection(connection(**{extra: value}, **other_extras))
    assert extra not in settings.web_app_urls
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert extra in warnings[0]
    if isinstance(value, str):
        assert value.strip() not in warnings[0]
    return warnings[0]


def test_without_the_extras_there_are_no_templates():
    assert settings_from_connection(connection()).web_app_urls == {}
    assert settings_from_connection(connection(web_app_campaign_url="", web_app_schedule_url=None)).web_app_urls == {}


def test_each_extra_is_read_by_its_name_and_by_the_form_name():
    schedule = "https://app.example.com/a/{account_id}/actions/{action_id}/schedules/{schedule_id}"
    call = "http://localhost:8080/#/voice/{action_id}"
    extras = {
        "web_app_campaign_url": f"  {CAMPAIGN} ",
        f"extra__{CONN_TYPE}__web_app_schedule_url": schedule,  # as a connection form before Airflow 3.2 saves it
        "web_app_push_voice_call_url": call,
    }
    settings = settings_from_connection(connection(**extras))
    assert settings.web_app_urls == {
        "web_app_campaign_url": CAMPAIGN,
        "web_app_schedule_url": schedule,
        "web_app_push_voice_call_url": call,
    }


@pytest.mark.parametrize(
    "extra, template, placeholder",
    [
        ("web_app_campaign_url", "https://app.example.com/campaigns/{id}", "{id}"),
        ("web_app_campaign_url", "https://app.example.com/campaigns/{campaignId}", "{campaignId}"),
        ("web_app_push_voice_call_url", "https://app.example.com/calls/{schedule_id}", "{schedule_id}"),
        ("web_app_schedule_url", "https://app.example.com/s/{schedule_id:>8}", "{schedule_id}"),
        ("web_app_schedule_url", "https://app.example.com/s/{}", "{}"),
    ],
)
def test_a_placeholder_the_page_cannot_fill_drops_the_template_naming_the_extra_and_the_ones_it_can(
    caplog, extra, template, placeholder
):
    warning = dropped(caplog, extra, template)
    assert f"{extra}: has the placeholder {placeholder}" in warning
    assert f"(allowed: {', '.join(f'{{{name}}}' for name in WEB_APP_URLS[extra])})" in warning


@pytest.mark.parametrize(
    "template, problem",
    [
        ("app.example.com/campaigns/{campaign_id}", "is not an absolute URL with a host"),
        ("ftp://app.example.com/{campaign_id}", "is not an absolute URL with a host"),
        ("https:///campaigns/{campaign_id}", "is not an absolute URL with a host"),
        ("https://app.example.com/campaigns/{campaign_id", "has a brace that opens or closes no placeholder"),
        ("https://app.example.com/campaigns/campaign_id}", "has a brace that opens or closes no placeholder"),
        ("https://key-1:secret-1@app.example.com/{campaign_id}", "must not carry credentials"),
        (42, "must be a URL template as text, got int"),
    ],
    ids=repr,
)
def test_a_template_that_cannot_give_a_link_is_dropped_with_a_warning_that_does_not_repeat_it(
    caplog, template, problem
):
    warning = dropped(caplog, "web_app_campaign_url", template)
    assert f"web_app_campaign_url: {problem}" in warning
    assert "secret-1" not in warning


def test_a_bad_template_costs_only_its_own_page(caplog):
    """The other pages keep their templates, and the one bad extra gets one warning."""
    schedule = "https://app.example.com/a/{account_id}/actions/{action_id}/schedules/{schedule_id}"
    with caplog.at_level(logging.WARNING, logger="messaging_platform_provider.hooks.web_app_urls"):
        settings = settings_from_connection(
            connection(
                web_app_campaign_url=CAMPAIGN,
                web_app_schedule_url=schedule,
                web_app_push_voice_call_url="https://app.example.com/calls/{campaign_id}",
            )
        )
    assert settings.web_app_urls == {"web_app_campaign_url": CAMPAIGN, "web_app_schedule_url": schedule}
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert "web_app_push_voice_call_url: has the placeholder {campaign_id}" in warnings[0]


def test_a_link_is_the_template_with_each_id_percent_encoded():
    assert web_app_link("web_app_campaign_url", CAMPAIGN, {"account_id": 1001, "campaign_id": 3001}) == (
        "https://app.example.com/accounts/1001/campaigns/3001"
    )
    assert web_app_link("web_app_campaign_url", CAMPAIGN, {"account_id": "10 01", "campaign_id": "a/b?c"}) == (
        "https://app.example.com/accounts/10%2001/campaigns/a%2Fb%3Fc"
    )
    literal = "https://app.example.com/#/{{campaigns}}/{campaign_id}"
    assert (
        web_app_link("web_app_campaign_url", literal, {"campaign_id": 7}) == "https://app.example.com/#/{campaigns}/7"
    )


@pytest.mark.parametrize("account", [None, ""], ids=repr)
def test_a_placeholder_without_a_value_gives_no_link_rather_than_a_wrong_one(account):
    assert web_app_link("web_app_campaign_url", CAMPAIGN, {"account_id": account, "campaign_id": 3001}) == ""
    without_account = "https://app.example.com/campaigns/{campaign_id}"
    assert web_app_link("web_app_campaign_url", without_account, {"account_id": account, "campaign_id": 3001}) == (
        "https://app.example.com/campaigns/3001"
    )


def test_the_connection_form_has_a_field_for_each_extra():
    for conn_type in get_provider_info()["connection-types"]:
        fields = conn_type["conn-fields"]
        for extra, names in WEB_APP_URLS.items():
            assert fields[extra]["schema"]["type"] == ["string", "null"]
            assert all(f"{{{name}}}" in fields[extra]["description"] for name in names)
