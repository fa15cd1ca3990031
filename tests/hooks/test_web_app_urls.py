"""
The connection extras that give the web app's URL templates (``hooks/web_app_urls.py``): read by
``settings_from_connection``, refused by name when they cannot give a link, and filled with ids only.
"""

from __future__ import annotations

from typing import Any

import pytest

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.get_provider_info import get_provider_info
from messaging_platform_provider.hooks.connection import settings_from_connection
from messaging_platform_provider.hooks.names import CONN_TYPE
from messaging_platform_provider.hooks.web_app_urls import WEB_APP_URLS, web_app_link
from tests.hooks.test_connection_settings import connection

CAMPAIGN = "https://app.example.com/accounts/{account_id}/campaigns/{campaign_id}"


def refusal(**extras: Any) -> MessagingPlatformValidationError:
    with pytest.raises(MessagingPlatformValidationError) as raised:
        settings_from_connection(connection(**extras))
    return raised.value


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
def test_a_placeholder_the_page_cannot_fill_is_refused_naming_the_extra_and_the_ones_it_can(
    extra, template, placeholder
):
    error = refusal(**{extra: template})
    assert error.field == extra
    assert f"has the placeholder {placeholder}" in str(error)
    assert error.allowed == [f"{{{name}}}" for name in WEB_APP_URLS[extra]]


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
def test_a_template_that_cannot_give_a_link_is_refused_naming_the_extra_without_repeating_it(template, problem):
    error = refusal(web_app_campaign_url=template)
    assert error.field == "web_app_campaign_url"
    assert problem in str(error)
    assert "secret-1" not in str(error)


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
