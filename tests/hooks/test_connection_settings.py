"""
What ``settings_from_connection`` reads from a Messaging Platform connection, what it refuses by name, and what it
only warns about (a web app URL template that cannot give a link).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

import pytest

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.request import DEFAULT_TIMEOUT
from messaging_platform_provider.hooks.connection import settings_from_connection

BASE_URL = "https://platform.example.com/api/v2.1"


@dataclass
class Connection:
    """The four fields the hooks read of an Airflow connection."""

    host: str | None = None
    login: str | None = "key-settings-1"
    password: str | None = "secret-settings-1"
    extra: str | None = None


def connection(**extras: Any) -> Connection:
    return Connection(extra=json.dumps({"base_url": BASE_URL, **extras}))


def refusal(conn: Connection) -> MessagingPlatformValidationError:
    with pytest.raises(MessagingPlatformValidationError) as raised:
        settings_from_connection(conn)
    return raised.value


def test_without_timeout_extras_the_default_timeouts_apply():
    assert DEFAULT_TIMEOUT[0] != DEFAULT_TIMEOUT[1]  # so that a swapped default shows
    assert settings_from_connection(connection()).timeout == DEFAULT_TIMEOUT
    assert settings_from_connection(connection(), default_timeout=(2.5, 45.0)).timeout == (2.5, 45.0)


def test_the_timeout_extras_are_read_by_their_names():
    assert settings_from_connection(connection(connect_timeout=3, read_timeout="40")).timeout == (3.0, 40.0)
    assert settings_from_connection(connection(connect_timeout=4)).timeout == (4.0, DEFAULT_TIMEOUT[1])
    assert settings_from_connection(connection(read_timeout=50)).timeout == (DEFAULT_TIMEOUT[0], 50.0)
    # the names older connection forms saved the fields under (extra__<type>__...) are read too, of either type
    assert settings_from_connection(connection(extra__messagingplatform__connect_timeout=6)).timeout[0] == 6.0
    assert settings_from_connection(connection(extra__messaging_platform__connect_timeout=7)).timeout[0] == 7.0


@pytest.mark.parametrize("value", [0, "0", -1, "soon", [5]], ids=repr)
def test_a_timeout_that_is_not_a_positive_number_is_refused_naming_the_extra(value):
    error = refusal(connection(read_timeout=value))
    assert error.field == "read_timeout"
    assert f"{value!r} is not a positive number of seconds" in str(error)


@pytest.mark.parametrize(
    "login, password", [("key-settings-2", None), (None, "secret-settings-2"), ("key-settings-2", "")], ids=repr
)
def test_a_connection_without_both_key_and_secret_is_refused(login, password):
    error = refusal(Connection(login=login, password=password, extra=json.dumps({"base_url": BASE_URL})))
    assert error.field == "login/password"


def test_a_host_that_is_not_a_url_is_not_taken_for_the_base_url():
    """Only a host written as a full URL stands in for the ``base_url`` extra."""
    error = refusal(Connection(host="platform.example.com"))
    assert error.field == "base_url"
    assert "is not set" in str(error)
    assert settings_from_connection(Connection(host=BASE_URL)).base_url == BASE_URL


def test_a_bad_web_app_template_does_not_stop_the_connection_being_read(caplog):
    """
    The template only gives a link in Airflow's UI: a bad one is left out with a warning that names the extra and
    not its value, and the rest of the connection is read as usual.
    """
    template = "https://user-9:secret-settings-9@app.example.com/{campaign_id}"
    with caplog.at_level(logging.WARNING):
        settings = settings_from_connection(connection(web_app_campaign_url=template, read_timeout=50, account_id=7))
    assert (settings.base_url, settings.account_id, settings.timeout[1]) == (BASE_URL, 7, 50.0)
    assert settings.web_app_urls == {}
    (warning,) = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert "web_app_campaign_url: must not carry credentials" in warning
    assert "secret-settings-9" not in caplog.text and "user-9" not in caplog.text


def test_a_bad_web_app_template_does_not_hide_what_is_refused():
    error = refusal(Connection(login=None, extra=json.dumps({"base_url": BASE_URL, "web_app_campaign_url": "x{"})))
    assert error.field == "login/password"
