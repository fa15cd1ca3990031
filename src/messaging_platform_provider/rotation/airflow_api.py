"""
A small client of Airflow 3's REST API (``/api/v2``), reached through its own Airflow connection.

Only what rotation needs: a token, and listing, reading, creating, patching and deleting connections (the target and
its lease). No HTTP provider is needed. Error text never carries a request body: FastAPI's validation errors echo the
body (the password included), so only their location and message are kept.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from messaging_platform_provider.rotation import DEFAULT_AIRFLOW_API_CONN_ID
from messaging_platform_provider.rotation.credentials import mask

_TRANSIENT = {502, 503, 504}
_MAX_DETAIL = 300


class AirflowApiError(Exception):
    """A call to Airflow's REST API failed; ``status`` is ``None`` when no answer arrived."""

    def __init__(self, method: str, path: str, status: int | None, detail: str = "") -> None:
        self.method = method
        self.path = path
        self.status = status
        self.detail = detail
        what = f"HTTP {status}" if status is not None else "no response"
        super().__init__(f"Airflow API {method} {path} failed with {what}" + (f": {detail}" if detail else ""))


def _detail(response: requests.Response) -> str:
    """The error's ``detail`` without any echoed input (validation errors repeat the whole request body)."""
    try:
        data = response.json()
    except ValueError:
        return response.reason or ""
    detail = data.get("detail") if isinstance(data, Mapping) else None
    if isinstance(detail, str):
        return detail[:_MAX_DETAIL]
    if isinstance(detail, list):
        parts = []
        for item in detail:
            if isinstance(item, Mapping):
                where = ".".join(str(p) for p in item.get("loc", []) if p != "body")
                parts.append(f"{where}: {item.get('msg', '')}" if where else str(item.get("msg", "")))
        return "; ".join(parts)[:_MAX_DETAIL]
    return response.reason or ""


def base_url_of(
    host: str | None,
    *,
    schema: str | None = None,
    port: int | None = None,
    scheme: Any = None,
    conn_type: str | None = None,
) -> str:
    """
    The API server's root URL from a connection's fields: a full URL in ``host``, or host and port with the
    scheme from extra ``scheme``, ``schema`` or the connection type (``https://host`` as a URI gives type https).
    """
    if not host:
        raise ValueError("the Airflow API connection needs the API server's URL (or host) in its host field")
    if "://" in host:
        url = host
    else:
        web = ("http", "https")
        chosen = str(scheme or (schema if schema in web else None) or (conn_type if conn_type in web else "http"))
        url = f"{chosen}://{host}" + (f":{port}" if port else "")
    url = url.rstrip("/")
    return url[: -len("/api/v2")] if url.endswith("/api/v2") else url


def _verify_setting(value: Any) -> bool | str:
    """The extra ``verify``: true/false (JSON, or text in any case as a URI gives it), else a CA bundle's path."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value if isinstance(value, str) else bool(value)


class AirflowRestApi:
    """
    :param base_url: root of the API server (``http://127.0.0.1:8080``).
    :param username: with ``password``, a token is asked with ``POST /auth/token``; without, ``GET /auth/token``
        (the simple auth manager in all-admins mode).
    :param access_token: a token issued beforehand; used as is.
    """

    def __init__(
        self,
        base_url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        access_token: str | None = None,
        timeout: tuple[float, float] = (5.0, 30.0),
        attempts: int = 3,
        verify: bool | str = True,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._username = username
        self._password = password
        mask(password)
        mask(access_token)
        self._token = access_token
        self._fixed_token = access_token is not None
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.session = requests.Session()
        self.session.verify = verify

    def __repr__(self) -> str:
        parts = urlsplit(self.base_url)  # scheme, host and port only: a host field may carry user:password@
        port = f":{parts.port}" if parts.port else ""
        return f"AirflowRestApi(base_url='{parts.scheme}://{parts.hostname}{port}')"

    @classmethod
    def from_connection(cls, conn_id: str = DEFAULT_AIRFLOW_API_CONN_ID) -> AirflowRestApi:
        """
        Build from an Airflow connection: host = the API server's URL (or host, with port and ``schema`` or extra
        ``scheme`` http/https); login/password optional (empty login: all-admins mode, ``GET /auth/token``);
        extra ``access_token`` (a token issued beforehand), ``verify`` (TLS: true or false, JSON or text; or a CA
        bundle path),
        ``timeout`` (seconds).
        """
        from messaging_platform_provider.version_compat import BaseHook

        conn = BaseHook.get_connection(conn_id)
        extra = conn.extra_dejson
        timeout = float(extra.get("timeout", 30))
        return cls(
            base_url_of(
                conn.host, schema=conn.schema, port=conn.port, scheme=extra.get("scheme"), conn_type=conn.conn_type
            ),
            username=conn.login or None,
            password=conn.password or None,
            access_token=extra.get("access_token") or None,
            timeout=(min(5.0, timeout), timeout),
            verify=_verify_setting(extra.get("verify", True)),
        )

    def close(self) -> None:
        self.session.close()

    # -- auth ------------------------------------------------------------------------------------------------

    def token(self, *, renew: bool = False) -> str:
        if self._token and (not renew or self._fixed_token):
            return self._token
        if self._username:
            body = {"username": self._username, "password": self._password or ""}
            response = self._send("POST", "/auth/token", json=body, auth=False)
        else:
            response = self._send("GET", "/auth/token", auth=False)
        token = response.json().get("access_token") if response.content else None
        if not token:
            raise AirflowApiError(response.request.method or "GET", "/auth/token", response.status_code, "no token")
        mask(token)
        self._token = str(token)
        return self._token

    # -- transport -------------------------------------------------------------------------------------------

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Any = None,
        json: Any = None,
        auth: bool = True,
        retry: bool = True,
    ) -> requests.Response:
        renewed = False
        attempt = 0
        while True:
            attempt += 1
            headers = {"Accept": "application/json"}
            if auth:
                headers["Authorization"] = f"Bearer {self.token()}"
            try:
                response = self.session.request(
                    method, self.base_url + path, params=params, json=json, headers=headers, timeout=self.timeout
                )
            except requests.RequestException as exc:
                if retry and attempt < self.attempts:
                    time.sleep(0.2 * attempt)
                    continue
                raise AirflowApiError(method, path, None, type(exc).__name__) from None
            if response.status_code == 401 and auth and not renewed and not self._fixed_token:
                renewed = True
                self.token(renew=True)
                continue
            if response.status_code in _TRANSIENT and retry and attempt < self.attempts:
                time.sleep(0.2 * attempt)
                continue
            if response.status_code >= 400:
                raise AirflowApiError(method, path, response.status_code, _detail(response))
            return response

    def get(self, path: str, params: Any = None) -> Any:
        """``GET`` any path of the API (``/api/v2/...``) and return the decoded JSON."""
        return self._send("GET", path, params=params).json()

    # -- connections -----------------------------------------------------------------------------------------

    @staticmethod
    def _connection_path(conn_id: str) -> str:
        return f"/api/v2/connections/{quote(conn_id, safe='')}"

    def get_connection(self, conn_id: str) -> dict[str, Any]:
        """The connection as the API shows it (the password comes back redacted as ``***``)."""
        data: dict[str, Any] = self._send("GET", self._connection_path(conn_id)).json()
        return data

    def create_connection(self, connection: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/v2/connections``; ``connection`` holds ``connection_id``, ``conn_type`` and any other field."""
        mask(connection.get("password"))
        data: dict[str, Any] = self._send("POST", "/api/v2/connections", json=dict(connection), retry=False).json()
        return data

    def update_connection(self, conn_id: str, fields: Mapping[str, Any], *, conn_type: str) -> dict[str, Any]:
        """``PATCH`` only the given fields (``update_mask``); the API requires ``connection_id`` and ``conn_type``."""
        mask(fields.get("password"))
        body = {"connection_id": conn_id, "conn_type": conn_type, **fields}
        data: dict[str, Any] = self._send(
            "PATCH", self._connection_path(conn_id), params=[("update_mask", name) for name in fields], json=body
        ).json()
        return data

    def delete_connection(self, conn_id: str, *, missing_ok: bool = False) -> bool:
        """``DELETE`` the connection; ``False`` when it was not there (404) and ``missing_ok``."""
        try:
            self._send("DELETE", self._connection_path(conn_id))
        except AirflowApiError as exc:
            if missing_ok and exc.status == 404:
                return False
            raise
        return True
