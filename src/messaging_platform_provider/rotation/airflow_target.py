"""
An Airflow connection as a rotation target.

Workers in Airflow 3 cannot write the metadata database, so the write goes through the REST API of the API server
(``PATCH /api/v2/connections/{id}`` with ``update_mask=login&update_mask=password``), reached through its own Airflow
connection. The REST API redacts passwords, so the read is the one workers do: ``BaseHook.get_connection`` (the
execution API, or an environment variable or secrets backend that shadows the database: exactly what DAGs see).
"""

from __future__ import annotations

from functools import cached_property

from messaging_platform_provider.rotation.airflow_api import DEFAULT_AIRFLOW_API_CONN_ID, AirflowRestApi
from messaging_platform_provider.rotation.credentials import Credential


class AirflowConnectionTarget:
    """
    :param conn_id: the connection whose login (API key) and password (secret) are rotated; it must live in the
        metadata database (an ``AIRFLOW_CONN_*`` variable or a secrets backend would shadow what the API writes:
        the rotation sees that on read-back and rolls back).
    :param airflow_api_conn_id: connection to Airflow's REST API (see ``AirflowRestApi.from_connection``).
    """

    def __init__(self, conn_id: str, airflow_api_conn_id: str = DEFAULT_AIRFLOW_API_CONN_ID) -> None:
        self.conn_id = conn_id
        self.airflow_api_conn_id = airflow_api_conn_id

    def __repr__(self) -> str:
        return f"AirflowConnectionTarget({self.conn_id!r}, {self.airflow_api_conn_id!r})"

    @property
    def name(self) -> str:
        return f"Airflow connection {self.conn_id!r}"

    @cached_property
    def api(self) -> AirflowRestApi:
        return AirflowRestApi.from_connection(self.airflow_api_conn_id)

    def read(self) -> Credential | None:
        from messaging_platform_provider.compat import BaseHook

        conn = BaseHook.get_connection(self.conn_id)  # masks the password on the way
        if not conn.login or not conn.password:
            return None
        return Credential(conn.login, conn.password)

    def write(self, credential: Credential) -> None:
        conn_type = self.api.get_connection(self.conn_id)["conn_type"]
        self.api.update_connection(
            self.conn_id, {"login": credential.key, "password": credential.secret}, conn_type=conn_type
        )
