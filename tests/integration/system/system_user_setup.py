"""
What a user sets up in the system test's deployment before running the examples, through Airflow's REST API as
the UI would: the platform connections (the default one, and the one the key rotation example replaces), the
connection to Airflow's own API, and the Variables the examples read.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from messaging_platform_provider.hooks.names import CONN_TYPE

if TYPE_CHECKING:
    from tests.integration.system.system_deployment import Deployment

ROTATED_CONN_ID = "messaging_platform_rotated"
WELCOME_LONG_CODE = "+15125550100"  # the emulator places voice calls from any E.164 long code
#: the web app page of a push voice call, in the default connection's ``web_app_push_voice_call_url``
VOICE_CALL_PAGE = "https://app.example.com/accounts/{account_id}/voice-calls/{action_id}"


def set_up_as_a_user(d: Deployment) -> None:
    """The connections and the Variables the examples use (the passwords never printed)."""
    from tests.support.airflow_api_harness import manager_from_uri

    extra = json.dumps({"base_url": d.seed["base_url"], "account_id": d.seed["account_id"]})
    # The default connection names the web app's voice call page: the created calls link to it (scenario 7).
    linked = {**json.loads(extra), "web_app_push_voice_call_url": VOICE_CALL_PAGE}
    d.rest.post(
        "/api/v2/connections",
        {
            "connection_id": "messaging_platform_default",
            "conn_type": CONN_TYPE,
            "login": d.seed["api_key"],
            "password": d.seed["api_secret"],
            "extra": json.dumps(linked),
        },
    )
    d.rest.post(
        "/api/v2/connections",
        {"connection_id": "airflow_api_default", "conn_type": "http", "host": "127.0.0.1", "port": d.api_port},
    )
    d.rest.post("/api/v2/variables", {"key": "messaging_platform_welcome_long_code", "value": WELCOME_LONG_CODE})
    # The on-call alert example's notifier calls from this long code to this number when a task fails.
    d.rest.post("/api/v2/variables", {"key": "messaging_platform_on_call_long_code", "value": WELCOME_LONG_CODE})
    d.rest.post("/api/v2/variables", {"key": "messaging_platform_on_call_phone", "value": "+15550100000"})
    with manager_from_uri(d.emulator_uri) as manager:  # the key the rotation example replaces
        key = manager.create_api_key("Workload key")
    d.extra_secrets.add(key["Secret"])
    d.rest.post(
        "/api/v2/connections",
        {
            "connection_id": ROTATED_CONN_ID,
            "conn_type": CONN_TYPE,
            "login": key["Key"],
            "password": key["Secret"],
            "extra": extra,
        },
    )
