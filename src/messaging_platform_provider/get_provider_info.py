"""Provider metadata read by Airflow's ProvidersManager through the ``apache_airflow_provider`` entry point."""

from __future__ import annotations

from typing import Any

from messaging_platform_provider import __version__


def get_provider_info() -> dict[str, Any]:
    return {
        "package-name": "airflow-provider-messaging-platform",
        "name": "Messaging Platform",
        "description": "Account-Scoped Messaging Platform API v2.1: campaigns, coupons, schedules, voice calls, "
        "contacts, API keys and callbacks.",
        "versions": [__version__],
        "integrations": [
            {
                "integration-name": "Messaging Platform",
                "tags": ["service"],
            }
        ],
        "operators": [
            {
                "integration-name": "Messaging Platform",
                "python-modules": [
                    "messaging_platform_provider.operators.api_keys",
                    "messaging_platform_provider.operators.callbacks",
                    "messaging_platform_provider.operators.campaigns",
                    "messaging_platform_provider.operators.contacts",
                    "messaging_platform_provider.operators.coupon_lists",
                    "messaging_platform_provider.operators.rotation",
                    "messaging_platform_provider.operators.schedules",
                    "messaging_platform_provider.operators.voice_calls",
                ],
            }
        ],
        "sensors": [
            {
                "integration-name": "Messaging Platform",
                "python-modules": [
                    "messaging_platform_provider.sensors.callback",
                    "messaging_platform_provider.sensors.schedule",
                ],
            }
        ],
        "hooks": [
            {
                "integration-name": "Messaging Platform",
                "python-modules": [
                    "messaging_platform_provider.hooks.messaging_platform",
                    "messaging_platform_provider.hooks.messaging_platform_async",
                ],
            }
        ],
        "triggers": [
            {
                "integration-name": "Messaging Platform",
                "python-modules": [
                    "messaging_platform_provider.triggers.callback",
                    "messaging_platform_provider.triggers.schedule",
                ],
            }
        ],
        "connection-types": [
            {
                "hook-class-name": "messaging_platform_provider.hooks.messaging_platform.MessagingPlatformHook",
                "hook-name": "Messaging Platform",
                "connection-type": "messaging_platform",
                "conn-fields": {
                    "account_id": {
                        "label": "Account ID",
                        "schema": {"type": ["integer", "null"]},
                        "description": "Default account for every call; a task can override it.",
                    },
                    "base_url": {
                        "label": "Base URL",
                        "schema": {"type": ["string", "null"]},
                        "description": "Service root, ending in /api/v2.1.",
                    },
                    "allow_insecure_http": {
                        "label": "Allow plain http",
                        "schema": {"type": ["boolean", "null"], "default": False},
                        "description": "Allow an http:// base URL or callback URL to a host that is not loopback, "
                        "which sends the API key and secret (the callback token) in clear. Loopback needs no opt-in.",
                    },
                    "timezone": {
                        "label": "Platform time zone",
                        # No default: Airflow offers every text extra to its log masker, which warns in every task
                        # about one shorter than 5 characters ("UTC"). Left empty, the zone is UTC.
                        "schema": {"type": ["string", "null"]},
                        "description": "Zone that date-times are converted to before they are sent (IANA name; "
                        "empty: UTC).",
                    },
                },
                "ui-field-behaviour": {
                    "hidden-fields": ["host", "schema", "port", "extra"],
                    "relabeling": {"login": "API key", "password": "API secret"},
                    "placeholders": {
                        "login": "32-hex API key",
                        "password": "secret of the API key",
                        "account_id": "1001",
                        "timezone": "UTC",
                        "base_url": "https://platform.example.com/api/v2.1",
                    },
                },
            }
        ],
    }
