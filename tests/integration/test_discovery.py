"""
Airflow finds the provider through its entry point: hook, connection type and form fields, under the type's name
and its former name (connections saved with ``messaging_platform`` keep their hook and form).
"""

from __future__ import annotations

import pytest
from airflow.providers_manager import ProvidersManager

from tests.support.airflow_versions import hook_info, plugin_import_errors

TYPES = [
    ("messagingplatform", "messaging_platform.MessagingPlatformHook", "Messaging Platform"),
    (
        "messaging_platform",
        "legacy_type.MessagingPlatformLegacyTypeHook",
        "Messaging Platform (former type messaging_platform)",
    ),
]


@pytest.mark.parametrize("conn_type, hook_class, hook_name", TYPES, ids=[t[0] for t in TYPES])
def test_providers_manager_sees_hook_and_connection_type(conn_type, hook_class, hook_name):
    assert "airflow-provider-messaging-platform" in ProvidersManager().providers
    info = hook_info(conn_type)
    assert info is not None
    assert info.hook_class_name == f"messaging_platform_provider.hooks.{hook_class}"
    assert info.connection_type == conn_type  # the hook class says the type it is listed under
    assert info.connection_id_attribute_name == "messaging_platform_conn_id"
    assert info.hook_name == hook_name


def test_airflow_providers_list_shows_it(capsys):
    """``airflow providers list``, parsed and run by Airflow's CLI in this process."""
    from airflow.cli import cli_parser

    args = cli_parser.get_parser().parse_args(["providers", "list", "--output", "plain"])
    args.func(args)
    assert "airflow-provider-messaging-platform" in capsys.readouterr().out


def test_airflow_loads_the_callback_plugin_once():
    """
    One copy of the distribution on the path: an editable install used to leave ``src/*.egg-info`` beside the
    package, and every Airflow component logged "Plugin 'messaging_platform_callbacks' already registered".
    """
    from importlib.metadata import distributions

    from airflow import plugins_manager

    ours = [d for d in distributions() if d.metadata["Name"] == "airflow-provider-messaging-platform"]
    assert len(ours) == 1, [str(getattr(d, "_path", d)) for d in ours]
    plugins_manager.ensure_plugins_loaded()
    names = [p["name"] for p in plugins_manager.get_plugin_info()]
    assert names.count("messaging_platform_callbacks") == 1
    assert not [e for e in plugin_import_errors().values() if "messaging_platform" in e]


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
@pytest.mark.parametrize("conn_type", [t[0] for t in TYPES])
def test_the_connection_form_shows_our_fields_on_this_airflow(airflow_api, conn_type):
    """What the UI's connection form is built from (before 3.2 from the hook's methods, then from conn-fields)."""
    meta = airflow_api.api().get("/ui/connections/hook_meta")
    (ours,) = [m for m in meta if m["connection_type"] == conn_type]
    fields = {name.rsplit("__", 1)[-1]: value["schema"] for name, value in (ours["extra_fields"] or {}).items()}
    assert {name: schema["title"] for name, schema in fields.items()} == {
        "account_id": "Account ID",
        "base_url": "Base URL",
        "timezone": "Platform time zone",
        "allow_insecure_http": "Allow plain http",
        "web_app_campaign_url": "Web app: campaign URL",
        "web_app_schedule_url": "Web app: schedule URL",
        "web_app_push_voice_call_url": "Web app: push voice call URL",
    }
    assert "integer" in fields["account_id"]["type"] and "string" in fields["base_url"]["type"]
    standard = ours["standard_fields"]
    assert standard["login"]["title"] == "API key" and standard["password"]["title"] == "API secret"
    assert standard["host"]["hidden"] is True and standard["port"]["hidden"] is True
