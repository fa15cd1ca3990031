"""Provider metadata read by Airflow's ProvidersManager through the ``apache_airflow_provider`` entry point."""

from __future__ import annotations

from typing import Any

from messaging_platform_provider import __version__
from messaging_platform_provider.hooks.names import CONN_TYPE, LEGACY_CONN_TYPE


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
                    "messaging_platform_provider.hooks.legacy_type",
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
        "notifications": ["messaging_platform_provider.notifications.voice_call.MessagingPlatformVoiceCallNotifier"],
        "extra-links": [
            "messaging_platform_provider.operators.links.MessagingPlatformCampaignLink",
            "messaging_platform_provider.operators.links.MessagingPlatformPushVoiceCallLink",
            "messaging_platform_provider.operators.links.MessagingPlatformScheduleLink",
        ],
        "connection-types": [
            _connection_type(
                CONN_TYPE,
                "messaging_platform_provider.hooks.messaging_platform.MessagingPlatformHook",
                "Messaging Platform",
            ),
            # The type's former name, for the connections saved with it (docs/hook.md).
            _connection_type(
                LEGACY_CONN_TYPE,
                "messaging_platform_provider.hooks.legacy_type.MessagingPlatformLegacyTypeHook",
                "Messaging Platform (former type messaging_platform)",
            ),
        ],
    }


def _connection_type(conn_type: str, hook_class_name: str, hook_name: str) -> dict[str, Any]:
    """One of our connection types: the type's name and its former name have the same form."""
    return {
        "hook-class-name": hook_class_name,
        "hook-name": hook_name,
        "connection-type": conn_type,
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
                "description": "Zone that date-times are converted to before they are sent (IANA name; empty: UTC).",
            },
            # The web app's URL paths are the platform's, not the API's: each page's whole URL, with placeholders.
            "web_app_campaign_url": {
                "label": "Web app: campaign URL",
                "schema": {"type": ["string", "null"]},
                "description": "Link to a created campaign in the platform's web app, with {account_id} and "
                "{campaign_id}; empty: no link.",
            },
            "web_app_schedule_url": {
                "label": "Web app: schedule URL",
                "schema": {"type": ["string", "null"]},
                "description": "Link to a created schedule, with {account_id}, {action_id} and {schedule_id}; "
                "empty: no link.",
            },
            "web_app_push_voice_call_url": {
                "label": "Web app: push voice call URL",
                "schema": {"type": ["string", "null"]},
                "description": "Link to a created push voice call, with {account_id} and {action_id}; empty: no link.",
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
