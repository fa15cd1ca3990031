"""
What the REST client of Airflow's API (``rotation/airflow_api.py``) says when a call fails, the paths of its calls
(on the stand-in server of test_airflow_rest_api.py), and its connection calls against a real Airflow API server.
An error names the call (method and path) and the answer (its status, or "no response") and keeps only the server's
``detail``: FastAPI's validation errors echo the whole request body, the password included, so of those only where
and what is kept.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi
from tests.rotation.test_airflow_rest_api import ISSUED, OK, Reply, fresh, masked, serving
from tests.support.airflow_api_harness import AirflowApiServer


def test_an_error_names_the_call_and_the_answer() -> None:
    error = AirflowApiError("PATCH", "/api/v2/connections/c1", 409, "Conflict")
    assert (error.method, error.path, error.status, error.detail) == (
        "PATCH",
        "/api/v2/connections/c1",
        409,
        "Conflict",
    )
    assert str(error) == "Airflow API PATCH /api/v2/connections/c1 failed with HTTP 409: Conflict"
    assert str(AirflowApiError("GET", "/x", 500, "")) == "Airflow API GET /x failed with HTTP 500"
    silent = AirflowApiError("GET", "/auth/token", None)
    assert (silent.status, silent.detail) == (None, "")
    assert str(silent) == "Airflow API GET /auth/token failed with no response"


SECRET = "echoed-password-7c1e5a"  # what FastAPI echoes as "input": never in an error (nothing here masks it)
LONG = "x" * 400


@pytest.mark.parametrize(
    ("reply", "detail"),
    [
        pytest.param(
            (404, {"detail": "The Connection `c` was not found"}), "The Connection `c` was not found", id="text"
        ),
        pytest.param((400, {"detail": LONG}), "x" * 300, id="text cut at 300"),
        pytest.param(
            (
                422,
                {
                    "detail": [
                        {
                            "type": "float_parsing",
                            "loc": ["body", "extra", "timeout"],
                            "msg": "Input should be a valid number",
                            "input": SECRET,
                        },
                        {
                            "type": "less_than_equal",
                            "loc": ["query", "limit"],
                            "msg": "Input should be <= 100",
                            "input": "500",
                        },
                    ]
                },
            ),
            "extra.timeout: Input should be a valid number; query.limit: Input should be <= 100",
            id="validation",
        ),
        pytest.param(
            (422, {"detail": [{"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}]}),
            "Field required",
            id="the whole body",
        ),
        pytest.param(
            (
                422,
                {"detail": [{"msg": "no location", "input": SECRET}, {"loc": ["body", "password"], "input": SECRET}]},
            ),
            "no location; password: ",
            id="no loc, no msg",
        ),
        pytest.param(
            (
                422,
                {"detail": [{"type": "bare", "input": SECRET}, "text, not a mapping", {"loc": [0, "b"], "msg": "m"}]},
            ),
            "; 0.b: m",
            id="neither",
        ),
        pytest.param(
            (422, {"detail": [{"loc": ["body", "x"], "msg": LONG}]}), ("x: " + LONG)[:300], id="list cut at 300"
        ),
        pytest.param(
            (409, {"detail": {"reason": "Unique constraint violation", "statement": f"INSERT ... {SECRET}"}}),
            "Conflict",
            id="not text: the reason",
        ),
        pytest.param((500, [SECRET]), "Internal Server Error", id="a list body"),
        pytest.param((502, "<html><h1>502 Bad Gateway</h1></html>"), "Bad Gateway", id="not JSON"),
        pytest.param((599, "<html>oops</html>"), "", id="not JSON, no reason"),
        pytest.param((599, {"error": SECRET}), "", id="no detail, no reason"),
        pytest.param((418, {"error": "x"}, "Teapot Trouble"), "Teapot Trouble", id="own reason"),
    ],
)
def test_an_error_keeps_only_the_detail_of_the_answer(reply: Any, detail: str) -> None:
    with serving({"POST /api/v2/connections": [reply]}) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED)
        with pytest.raises(AirflowApiError) as caught:
            api.create_connection({"connection_id": "c", "conn_type": "generic", "password": SECRET})
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == ("POST", "/api/v2/connections", reply[0], detail)
    suffix = f": {detail}" if detail else ""
    assert str(error) == f"Airflow API POST /api/v2/connections failed with HTTP {reply[0]}{suffix}"
    assert SECRET not in str(error)


# -- the paths of the calls ----------------------------------------------------------------------------------------


def test_the_base_url_may_have_a_path_and_a_trailing_slash() -> None:
    with serving({"GET /airflow/api/v2/x": [OK]}) as server:
        api = AirflowRestApi(f"{server.url}/airflow/", access_token=ISSUED)
        assert api.base_url == f"{server.url}/airflow"
        assert api.get("/api/v2/x") == {"ok": True}
    assert server.calls() == [("GET", "/airflow/api/v2/x")]
    assert AirflowRestApi("https://proxy.example/BOX/").base_url == "https://proxy.example/BOX"


def test_a_connection_id_goes_in_the_path_as_one_segment() -> None:
    path = "/api/v2/connections/team%2Fa%20b"
    routes: dict[str, list[Reply]] = {
        f"GET {path}": [(200, {"connection_id": "team/a b", "login": "k"})],
        f"PATCH {path}": [(200, {"connection_id": "team/a b", "login": "k2"})],
        f"DELETE {path}": [(204, None)],
    }
    with serving(routes) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED)
        assert api.get_connection("team/a b") == {"connection_id": "team/a b", "login": "k"}
        fields = {"login": "k2", "description": "d"}
        assert api.update_connection("team/a b", fields, conn_type="http") == {
            "connection_id": "team/a b",
            "login": "k2",
        }
        assert api.delete_connection("team/a b") is True
    assert server.calls() == [("GET", path), ("PATCH", path), ("DELETE", path)]
    patch = server.seen[1]
    assert patch.query == [("update_mask", "login"), ("update_mask", "description")]
    assert patch.body == {"connection_id": "team/a b", "conn_type": "http", "login": "k2", "description": "d"}


@pytest.mark.parametrize("call", ["get_connection", "update_connection", "delete_connection"])
def test_each_connection_call_names_its_method_and_path_when_it_fails(call: str) -> None:
    method = {"get_connection": "GET", "update_connection": "PATCH", "delete_connection": "DELETE"}[call]
    path = "/api/v2/connections/c1"
    with serving({f"{method} {path}": [(500, {"detail": "database is locked"})]}) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED)
        args: list[Any] = ["c1", {"login": "x"}] if call == "update_connection" else ["c1"]
        kwargs = {"conn_type": "generic"} if call == "update_connection" else {}
        with pytest.raises(AirflowApiError) as caught:
            getattr(api, call)(*args, **kwargs)
    error = caught.value
    assert (error.method, error.path, error.status, error.detail) == (method, path, 500, "database is locked")


def test_a_delete_of_what_is_not_there_is_false_only_when_allowed() -> None:
    path = "/api/v2/connections/gone"
    missing = (404, {"detail": "The Connection with connection_id: `gone` was not found"})
    with serving({f"DELETE {path}": [missing, missing, (500, {"detail": "boom"})]}) as server:
        api = AirflowRestApi(server.url, access_token=ISSUED)
        assert api.delete_connection("gone", missing_ok=True) is False
        with pytest.raises(AirflowApiError, match=r"DELETE /api/v2/connections/gone failed with HTTP 404"):
            api.delete_connection("gone")
        with pytest.raises(AirflowApiError, match="HTTP 500: boom"):
            api.delete_connection("gone", missing_ok=True)  # only "not there" is allowed
    assert len(server.seen) == 3


def test_get_names_its_method_when_it_fails() -> None:
    with serving({"GET /api/v2/x": [(404, {"detail": "nothing here"})]}) as server:
        with pytest.raises(AirflowApiError) as caught:
            AirflowRestApi(server.url, access_token=ISSUED).get("/api/v2/x", params={"a": "b"})
    assert (caught.value.method, caught.value.path) == ("GET", "/api/v2/x")
    assert server.seen[0].query == [("a", "b")]


# -- against a real Airflow API server -----------------------------------------------------------------------------


def shown(api: AirflowRestApi, conn_id: str) -> dict[str, Any]:
    """The fields of a connection the API shows on every Airflow version (3.3 adds ``team_name``)."""
    data = api.get_connection(conn_id)
    return {key: data[key] for key in ("connection_id", "conn_type", "description", "login", "password", "extra")}


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_connection_is_created_read_patched_and_deleted(airflow_api: AirflowApiServer, unique_conn_id: str) -> None:
    api, conn_id = airflow_api.api(), unique_conn_id
    password, new_password = fresh("pw"), fresh("pw")
    extra = json.dumps({"base_url": "http://platform.example"})
    body = {"connection_id": conn_id, "conn_type": "messagingplatform", "login": "key-1", "password": password}
    created = api.create_connection({**body, "description": "before", "extra": extra})
    assert masked(password)
    expected = {**body, "password": "***", "description": "before", "extra": extra}
    assert {key: created[key] for key in expected} == expected
    assert shown(api, conn_id) == expected

    # only the fields given change: not the type the API requires in the body
    patched = api.update_connection(conn_id, {"password": new_password, "description": "after"}, conn_type="http")
    assert masked(new_password)
    assert patched["description"] == "after" and patched["conn_type"] == "messagingplatform"
    assert shown(api, conn_id) == {**expected, "description": "after"}

    assert api.delete_connection(conn_id) is True
    path = f"/api/v2/connections/{conn_id}"
    with pytest.raises(AirflowApiError) as missing:
        api.get_connection(conn_id)
    error = missing.value
    assert (error.method, error.path, error.status) == ("GET", path, 404)
    assert error.detail == f"The Connection with connection_id: `{conn_id}` was not found"
    assert api.delete_connection(conn_id, missing_ok=True) is False
    with pytest.raises(AirflowApiError) as again:
        api.delete_connection(conn_id)
    assert (again.value.method, again.value.path, again.value.status) == ("DELETE", path, 404)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_create_the_server_refuses_says_why_without_the_body(
    airflow_api: AirflowApiServer, unique_conn_id: str
) -> None:
    api, secret = airflow_api.api(), fresh("pw")
    api.create_connection({"connection_id": unique_conn_id, "conn_type": "generic"})
    with pytest.raises(AirflowApiError) as taken:
        api.create_connection({"connection_id": unique_conn_id, "conn_type": "generic", "password": secret})
    assert (taken.value.method, taken.value.path, taken.value.status) == ("POST", "/api/v2/connections", 409)
    with pytest.raises(AirflowApiError) as invalid:
        api.create_connection({"conn_type": "generic", "port": "eighty", "password": secret})
    assert invalid.value.status == 422
    assert invalid.value.detail.startswith("connection_id: Field required; port: Input should be a valid integer")
    assert secret not in str(taken.value) + str(invalid.value)
    api.delete_connection(unique_conn_id)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_get_answers_the_decoded_json(airflow_api: AirflowApiServer, unique_conn_id: str) -> None:
    api = airflow_api.api()
    api.create_connection({"connection_id": unique_conn_id, "conn_type": "generic", "login": "listed"})
    page = api.get("/api/v2/connections", params={"connection_id_pattern": unique_conn_id})
    assert page["total_entries"] == 1
    assert [(c["connection_id"], c["login"]) for c in page["connections"]] == [(unique_conn_id, "listed")]
    api.delete_connection(unique_conn_id)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_the_default_connection_reaches_the_server(airflow_api: AirflowApiServer) -> None:
    """``airflow_api_default``, which the fixture points at the server (a URI without login: all-admins mode)."""
    api = AirflowRestApi.from_connection()
    assert api.base_url == airflow_api.url
    assert api.get("/api/v2/connections", params={"limit": 1})["total_entries"] >= 0
