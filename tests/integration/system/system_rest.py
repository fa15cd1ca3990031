"""
The client of Airflow's REST API the scenarios use, as a user calls it (a token from ``GET /auth/token``, the simple
auth manager in all-admins mode); the emulator's control endpoints are called with its ``EmulatorControl``. Errors
name the call and the status, never a body: FastAPI's validation errors echo the request, a connection's password
included.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import quote

import requests


class RestError(Exception):
    def __init__(self, method: str, path: str, status: int | None, detail: str = "") -> None:
        self.status = status
        super().__init__(f"{method} {path}: " + (f"HTTP {status}" if status is not None else "no answer") + detail)


def _detail(response: requests.Response) -> str:
    try:
        detail = response.json().get("detail")
    except (ValueError, AttributeError):
        return ""
    if isinstance(detail, str):
        return f" ({detail[:200]})"
    if isinstance(detail, list):  # validation errors: their locations and messages only, never the input
        return " (" + "; ".join(f"{d.get('loc')}: {d.get('msg')}" for d in detail if isinstance(d, dict))[:300] + ")"
    return ""


class AirflowRest:
    """``GET``/``POST``/``PATCH`` on the API server; transient failures (no answer, 502-504) are retried."""

    def __init__(self, base_url: str, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.session = requests.Session()
        self._token: str | None = None

    def token(self) -> str:
        if self._token is None:
            response = self.session.get(f"{self.base_url}/auth/token", timeout=self.timeout)
            if response.status_code >= 400:
                raise RestError("GET", "/auth/token", response.status_code)
            self._token = str(response.json()["access_token"])
        return self._token

    def call(self, method: str, path: str, *, json: Any = None, params: Any = None, expect: int = 0) -> Any:
        """The decoded answer; ``expect`` also accepts that status (409 for "exists already")."""
        for attempt in range(4):
            try:
                response = self.session.request(
                    method,
                    self.base_url + path,
                    json=json,
                    params=params,
                    headers={"Authorization": f"Bearer {self.token()}"},
                    timeout=self.timeout,
                )
            except requests.RequestException as exc:
                if attempt == 3:
                    raise RestError(method, path, None, f" ({type(exc).__name__})") from None
                time.sleep(0.5 * (attempt + 1))
                continue
            if response.status_code == 401 and attempt == 0:
                self._token = None  # expired: ask again
                continue
            if response.status_code in (502, 503, 504) and attempt < 3:
                time.sleep(0.5 * (attempt + 1))
                continue
            if response.status_code >= 400 and response.status_code != expect:
                raise RestError(method, path, response.status_code, _detail(response))
            return response.json() if response.content else None
        raise AssertionError("unreachable")

    def get(self, path: str, **params: Any) -> Any:
        return self.call("GET", path, params=params or None)

    def post(self, path: str, body: Any, expect: int = 0) -> Any:
        return self.call("POST", path, json=body, expect=expect)

    def patch(self, path: str, body: Any) -> Any:
        return self.call("PATCH", path, json=body)

    # -- what the scenarios ask often ------------------------------------------------------------------------

    def trigger(self, dag_id: str, conf: dict[str, Any] | None = None) -> str:
        """``POST /dags/{id}/dagRuns`` with ``logical_date`` null, as the UI's trigger form does; the run id."""
        run = self.post(f"/api/v2/dags/{dag_id}/dagRuns", {"logical_date": None, "conf": conf or {}})
        return str(run["dag_run_id"])

    def unpause(self, dag_id: str) -> None:
        self.patch(f"/api/v2/dags/{dag_id}", {"is_paused": False})

    def reparse(self, dag_id: str) -> None:
        """Ask the DAG processor to parse the DAG's file now (the UI's "Reparse DAG" button)."""
        token = self.get(f"/api/v2/dags/{dag_id}")["file_token"]
        self.call("PUT", f"/api/v2/parseDagFile/{token}", expect=409)

    def dag_run(self, dag_id: str, run_id: str) -> dict[str, Any]:
        run: dict[str, Any] = self.get(f"/api/v2/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}")
        return run

    def fail_run(self, dag_id: str, run_id: str) -> None:
        """Mark a run failed, as the UI's button does: its unfinished tasks fail, and a deferred one's trigger ends."""
        self.patch(f"/api/v2/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}", {"state": "failed"})

    def dag_runs(self, dag_id: str) -> list[dict[str, Any]]:
        runs: list[dict[str, Any]] = self.get(f"/api/v2/dags/{dag_id}/dagRuns", limit=100)["dag_runs"]
        return runs

    def task_instances(self, dag_id: str, run_id: str) -> list[dict[str, Any]]:
        path = f"/api/v2/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances"
        tis: list[dict[str, Any]] = self.get(path, limit=100)["task_instances"]
        return tis

    def xcom(self, dag_id: str, run_id: str, task_id: str) -> Any:
        path = (
            f"/api/v2/dags/{dag_id}/dagRuns/{quote(run_id, safe='')}/taskInstances/{task_id}/xcomEntries/return_value"
        )
        return self.get(path, deserialize="true", stringify="false")["value"]
