"""
The receiver's settings are read from Airflow's ``[messaging_platform_callbacks]`` section on every supported Airflow
(before 3.2 through ``airflow.configuration``), and the provider's own environment variables come first.
"""

from __future__ import annotations

import airflow  # noqa: F401  (the section is read where Airflow is imported: the plugin, tasks, triggers)
import pytest

from messaging_platform_provider.callbacks.settings import (
    redact_url,
    resolve_bind_tokens,
    resolve_database_url,
    resolve_tokens,
)

SECTION = "AIRFLOW__MESSAGING_PLATFORM_CALLBACKS__"


@pytest.fixture(autouse=True)
def no_provider_env(monkeypatch):
    for name in ("MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL", "MESSAGING_PLATFORM_CALLBACK_TOKENS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("MESSAGING_PLATFORM_CALLBACK_BIND_TOKENS", raising=False)


def test_airflows_section_is_read(monkeypatch, tmp_path):
    url = f"sqlite:///{tmp_path / 'from-airflow-config.db'}"
    monkeypatch.setenv(SECTION + "DATABASE_URL", url)
    monkeypatch.setenv(SECTION + "TOKENS", "1001:tok-a, 1002:tok-b")
    monkeypatch.setenv(SECTION + "BIND_TOKENS", "False")
    assert resolve_database_url() == url
    assert resolve_tokens() == ["1001:tok-a", "1002:tok-b"]
    assert resolve_bind_tokens() is False


def test_the_providers_own_variables_come_before_airflows_section(monkeypatch, tmp_path):
    monkeypatch.setenv(SECTION + "DATABASE_URL", f"sqlite:///{tmp_path / 'airflow.db'}")
    monkeypatch.setenv("MESSAGING_PLATFORM_CALLBACKS_DATABASE_URL", f"sqlite:///{tmp_path / 'own.db'}")
    monkeypatch.setenv(SECTION + "BIND_TOKENS", "False")
    monkeypatch.setenv("MESSAGING_PLATFORM_CALLBACK_BIND_TOKENS", "true")
    assert resolve_database_url().endswith("own.db")
    assert resolve_bind_tokens() is True


def test_a_bad_value_in_airflows_section_is_an_error_not_ignored(monkeypatch):
    monkeypatch.setenv(SECTION + "BIND_TOKENS", "maybe")
    with pytest.raises(ValueError, match="bind_tokens must be true or false"):
        resolve_bind_tokens()


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://app:s3cr3t@db:5432/callbacks", "postgresql://app:***@db:5432/callbacks"),
        ("postgresql://s3cr3t@db/callbacks", "postgresql://***@db/callbacks"),  # a token as the user part
        (
            "postgresql://db/callbacks?sslmode=require&password=s3cr3t",
            "postgresql://db/callbacks?sslmode=require&password=***",
        ),
        ("sqlite:////var/lib/callbacks@2026.db", "sqlite:////var/lib/callbacks@2026.db"),  # no credentials: as is
    ],
)
def test_a_database_url_is_shown_without_its_secrets(url, shown):
    assert redact_url(url) == shown
