"""
An Airflow connection as a rotation target.

Workers in Airflow 3 cannot write the metadata database, so the write goes through the REST API of the API server
(``PATCH /api/v2/connections/{id}`` with ``update_mask=login&update_mask=password``), reached through its own Airflow
connection. The REST API redacts passwords, so the read is the one workers do: ``BaseHook.get_connection`` (the
execution API, or an environment variable or secrets backend that shadows the database: exactly what DAGs see).
Before a key is made, ``shadowed_by`` compares that read with what the REST API holds; the lease of the connection
lives beside it in the database (``lease.AirflowConnectionLease``).
"""

from __future__ import annotations

import os
from functools import cached_property

from messaging_platform_provider.rotation import DEFAULT_AIRFLOW_API_CONN_ID
from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi
from messaging_platform_provider.rotation.credentials import Credential
from messaging_platform_provider.rotation.lease import AirflowConnectionLease
from messaging_platform_provider.rotation.targets import TargetNotConfigured


class AirflowConnectionTarget:
    """
    :param conn_id: the connection whose login (API key) and password (secret) are rotated; it must live in the
        metadata database (an ``AIRFLOW_CONN_*`` variable or a secrets backend would shadow what the API writes:
        ``shadowed_by`` sees that before any key is made, the read-back after the write).
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
        """
        The REST client; ``TargetNotConfigured`` when its connection is not defined or has no usable URL: the
        rotation writes through the API server, and a retry cannot make that connection appear.
        """
        from messaging_platform_provider.version_compat import AirflowNotFoundException

        try:
            return AirflowRestApi.from_connection(self.airflow_api_conn_id)
        except (AirflowNotFoundException, ValueError) as exc:
            raise TargetNotConfigured(
                f"the connection {self.airflow_api_conn_id!r} to Airflow's REST API, which the rotation writes "
                f"{self.conn_id!r} through, is not usable: {exc}"
            ) from None

    def read(self) -> Credential | None:
        from messaging_platform_provider.version_compat import AirflowNotFoundException, BaseHook

        try:
            conn = BaseHook.get_connection(self.conn_id)  # masks the password on the way
        except AirflowNotFoundException:
            raise TargetNotConfigured(f"the connection {self.conn_id!r} is not defined") from None
        if not conn.login or not conn.password:
            return None
        return Credential(conn.login, conn.password)

    def write(self, credential: Credential) -> None:
        conn_type = self.api.get_connection(self.conn_id)["conn_type"]
        self.api.update_connection(
            self.conn_id, {"login": credential.key, "password": credential.secret}, conn_type=conn_type
        )

    def lease(self) -> AirflowConnectionLease:
        return AirflowConnectionLease(self.api, self.conn_id)

    def shadowed_by(self, current: Credential | None) -> str | None:
        """
        Why consumers would not see what ``write`` stores, or ``None``: an ``AIRFLOW_CONN_`` variable here, a
        connection missing from the metadata database, or a login there other than the one consumers read
        (``current``; a secrets backend). The REST API redacts the password, so only the login is compared.
        """
        variable = f"AIRFLOW_CONN_{self.conn_id.upper()}"
        if variable in os.environ:
            return f"the environment variable {variable} shadows the metadata database"
        try:
            stored = self.api.get_connection(self.conn_id)
        except AirflowApiError as exc:
            if exc.status != 404:
                raise
            return "the connection is not in the metadata database (a secrets backend or a variable provides it)"
        if (stored.get("login") or "") != (current.key if current is not None else ""):
            return "consumers read another key than the metadata database holds (a secrets backend shadows it)"
        return None
