"""
The receiver as a deployment serves it: mounted by our plugin (its entry point) into a real ``airflow api-server``,
the session's (``tests/support/airflow_api_server.py``), which is started with a callback token and a SQLite store.
The system test (``make system-test``) posts to the same mount with a PostgreSQL store.
"""

from __future__ import annotations

import pytest
import requests

from messaging_platform_provider.callbacks.plugin import URL_PREFIX
from messaging_platform_provider.callbacks.receiver import DEFAULT_MAX_BODY_BYTES, DEFAULT_PATH
from messaging_platform_provider.callbacks.store import CallbackStore
from tests.support.airflow_api_server import callbacks_database_url
from tests.support.callback_helpers import TOKEN, callback, post

#: Where the receiver takes callbacks in Airflow's API server: ``/messaging-platform/callbacks``.
MOUNT = URL_PREFIX + DEFAULT_PATH


def stored_ids(server) -> list[str]:
    store = CallbackStore(callbacks_database_url(server))
    try:
        return store.transaction_ids()
    finally:
        store.close()


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_airflow_api_server_mounts_the_receiver_through_the_plugin_entry_point(airflow_api_server):
    good, wrong = callback(6), callback(6, token="not-the-token")
    assert post(airflow_api_server.url + MOUNT, good).status_code == 200
    assert post(airflow_api_server.url + MOUNT, wrong).status_code == 401
    ids = stored_ids(airflow_api_server)
    assert good["TransactionId"] in ids and wrong["TransactionId"] not in ids
    assert TOKEN not in airflow_api_server.log_path.read_text(errors="replace")


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_airflows_server_passes_the_receivers_answers_through_unchanged(airflow_api_server):
    """What the platform decides on (resend or not) reaches it as the receiver wrote it, past Airflow's middleware."""
    url = airflow_api_server.url + MOUNT
    body = callback(1)
    post(url, body)
    assert post(url, body).json() == {"status": "duplicate", "TransactionId": body["TransactionId"]}
    not_json = requests.post(url, data=b"{not json", headers={"Content-Type": "application/json"}, timeout=30)
    assert (not_json.status_code, not_json.json()["detail"][0]["type"]) == (422, "json_invalid")
    too_large = post(url, {**callback(1), "Message": "x" * DEFAULT_MAX_BODY_BYTES})
    assert (too_large.status_code, too_large.json()) == (
        413,
        {"detail": f"the body is larger than {DEFAULT_MAX_BODY_BYTES} bytes"},
    )
    health = requests.get(airflow_api_server.url + URL_PREFIX + "/health", timeout=30)
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    assert stored_ids(airflow_api_server).count(body["TransactionId"]) == 1
