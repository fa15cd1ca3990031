"""
``AirflowConnectionTarget.write`` against a real Airflow API server: the rotated connection gets the new key and
secret, and keeps its type, description and extra. The end-to-end rotation tests check it too, by running the DAG;
this one needs no metadata database in the test process, so mutation runs judge ``write`` with it.
"""

from __future__ import annotations

import json

import pytest

from messaging_platform_provider.hooks.names import CONN_TYPE, LEGACY_CONN_TYPE
from messaging_platform_provider.rotation import AirflowConnectionTarget, Credential
from tests.rotation.test_airflow_rest_api import fresh, masked
from tests.rotation.test_airflow_rest_api_errors import shown
from tests.support.airflow_api_harness import AirflowApiServer


@pytest.mark.xdist_group("airflow_api_server")
@pytest.mark.parametrize("conn_type", [CONN_TYPE, LEGACY_CONN_TYPE])  # the type it found stays, the former too
def test_write_stores_the_new_key_and_secret_and_changes_nothing_else(
    airflow_api: AirflowApiServer, unique_conn_id: str, conn_type: str
) -> None:
    api = airflow_api.api()
    extra = json.dumps({"base_url": "https://platform.example/api/v2.1", "account_id": 1001})
    kept = {"connection_id": unique_conn_id, "conn_type": conn_type, "description": "the workload's key"}
    api.create_connection({**kept, "login": "old-key", "password": fresh("old"), "extra": extra})
    new_secret = fresh("new")

    AirflowConnectionTarget(unique_conn_id).write(Credential("new-key", new_secret))  # through airflow_api_default

    assert shown(api, unique_conn_id) == {**kept, "login": "new-key", "password": "***", "extra": extra}
    assert masked(new_secret)
    api.delete_connection(unique_conn_id)
