"""
Where the REST client of Airflow's API (``rotation/airflow_api.py``) finds the API server and how it logs in: the
root URL from a connection's fields (``base_url_of``), the client built from an Airflow connection
(``from_connection``, read from ``AIRFLOW_CONN_*`` variables here), TLS verification, and a ``repr`` that shows no
credential of the URL.
"""

from __future__ import annotations

import json
import ssl
from pathlib import Path
from typing import Any

import pytest

from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi, base_url_of
from tests.rotation.test_airflow_rest_api import ISSUED, OK, Reply, fresh, masked, naps, serving
from tests.support.certificates import issue_certificate

__all__ = ["naps"]  # the fixture, shared with test_airflow_rest_api.py


@pytest.mark.parametrize(
    ("host", "fields", "url"),
    [
        pytest.param("http://127.0.0.1:8080", {}, "http://127.0.0.1:8080", id="a URL"),
        pytest.param(
            "https://airflow.example/api/v2/",
            {"schema": "http", "port": 9999, "scheme": "http", "conn_type": "http"},
            "https://airflow.example",
            id="a URL wins, /api/v2 and the slash dropped",
        ),
        pytest.param("https://proxy.example/BOX/", {}, "https://proxy.example/BOX", id="a path kept"),
        pytest.param(
            "http://airflow.example/API/V2", {}, "http://airflow.example/API/V2", id="paths are case-sensitive"
        ),
        pytest.param("airflow.example", {}, "http://airflow.example", id="a host: http"),
        pytest.param(
            "airflow.example", {"port": 8080, "conn_type": "generic"}, "http://airflow.example:8080", id="port"
        ),
        pytest.param(
            "airflow.example", {"scheme": "https", "conn_type": "http"}, "https://airflow.example", id="extra"
        ),
        pytest.param(
            "airflow.example", {"scheme": "http", "conn_type": "https"}, "http://airflow.example", id="extra 2"
        ),
        pytest.param(
            "airflow.example", {"schema": "https", "conn_type": "generic"}, "https://airflow.example", id="schema"
        ),
        pytest.param(
            "airflow.example", {"schema": "http", "conn_type": "https"}, "http://airflow.example", id="schema 2"
        ),
        pytest.param(
            "airflow.example",
            {"schema": "airflow_db", "port": 8443, "conn_type": "https"},
            "https://airflow.example:8443",
            id="a schema that is no scheme: the connection type",
        ),
        pytest.param("airflow.example/api/v2", {"conn_type": "https"}, "https://airflow.example", id="host with path"),
    ],
)
def test_the_root_url_from_a_connections_fields(host: str, fields: dict[str, Any], url: str) -> None:
    assert base_url_of(host, **fields) == url


@pytest.mark.parametrize("host", [None, ""])
def test_a_connection_without_a_host_names_what_is_missing(host: str | None) -> None:
    needs = r"^the Airflow API connection needs the API server's URL \(or host\) in its host field$"
    with pytest.raises(ValueError, match=needs):
        base_url_of(host, conn_type="https")


def test_the_repr_shows_where_but_no_credential() -> None:
    api = AirflowRestApi("https://user:hunter2-secret@airflow.example:8443/base/", password="pw-unshown")
    assert repr(api) == "AirflowRestApi(base_url='https://airflow.example:8443')"
    assert repr(AirflowRestApi("http://airflow.example/")) == "AirflowRestApi(base_url='http://airflow.example')"


# -- from an Airflow connection ------------------------------------------------------------------------------------


def define(monkeypatch: pytest.MonkeyPatch, conn_id: str, value: dict[str, Any] | str) -> None:
    """The connection ``conn_id`` as an ``AIRFLOW_CONN_`` variable: a URI, or the JSON form of a dict."""
    monkeypatch.setenv(f"AIRFLOW_CONN_{conn_id.upper()}", value if isinstance(value, str) else json.dumps(value))


@pytest.mark.parametrize(
    ("connection", "url"),
    [
        pytest.param("https://airflow.example:8443", "https://airflow.example:8443", id="URI: the type is the scheme"),
        pytest.param("http://airflow.example:8080/api/v2", "http://airflow.example:8080", id="URI with a path"),
        pytest.param(
            {"conn_type": "generic", "host": "https://airflow.example/api/v2/"}, "https://airflow.example", id="URL"
        ),
        pytest.param(
            {"conn_type": "generic", "host": "airflow.example", "schema": "https", "port": 8443},
            "https://airflow.example:8443",
            id="schema and port",
        ),
        pytest.param(
            {"conn_type": "generic", "host": "airflow.example", "extra": {"scheme": "https"}},
            "https://airflow.example",
            id="extra scheme",
        ),
    ],
)
def test_the_server_of_an_airflow_connection(monkeypatch: pytest.MonkeyPatch, connection: Any, url: str) -> None:
    define(monkeypatch, "api_where", connection)
    api = AirflowRestApi.from_connection("api_where")
    assert (api.base_url, api.timeout, api.attempts, api.session.verify) == (url, (5.0, 30.0), 3, True)


@pytest.mark.parametrize(("timeout", "pair"), [(60, (5.0, 60.0)), ("2.5", (2.5, 2.5)), (30, (5.0, 30.0))])
def test_the_timeout_of_an_airflow_connection(monkeypatch: pytest.MonkeyPatch, timeout: Any, pair: Any) -> None:
    """``timeout`` is the read timeout; connecting takes at most 5 s of it."""
    define(monkeypatch, "api_slow", {"conn_type": "http", "host": "airflow.example", "extra": {"timeout": timeout}})
    assert AirflowRestApi.from_connection("api_slow").timeout == pair


def test_a_login_of_an_airflow_connection_takes_the_token(monkeypatch: pytest.MonkeyPatch) -> None:
    password, token = fresh("pw"), fresh("tok")
    routes: dict[str, list[Reply]] = {"POST /auth/token": [(201, {"access_token": token})], "GET /api/v2/x": [OK]}
    with serving(routes) as server:
        define(monkeypatch, "api_login", {"conn_type": "http", "host": server.url, "login": "al", "password": password})
        assert AirflowRestApi.from_connection("api_login").get("/api/v2/x") == {"ok": True}
    assert masked(password)
    assert server.calls() == [("POST", "/auth/token"), ("GET", "/api/v2/x")]
    assert server.seen[0].body == {"username": "al", "password": password}
    assert server.seen[1].headers["authorization"] == f"Bearer {token}"


def test_an_airflow_connection_without_login_is_all_admins_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    routes: dict[str, list[Reply]] = {"GET /auth/token": [(201, {"access_token": fresh("tok")})], "GET /api/v2/x": [OK]}
    with serving(routes) as server:
        define(monkeypatch, "api_admins", {"conn_type": "http", "host": server.url, "login": "", "password": ""})
        assert AirflowRestApi.from_connection("api_admins").get("/api/v2/x") == {"ok": True}
    assert server.calls() == [("GET", "/auth/token"), ("GET", "/api/v2/x")]


def test_a_token_in_the_extra_of_an_airflow_connection_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    token = fresh("tok")
    with serving({"GET /api/v2/x": [OK]}) as server:
        connection = {"conn_type": "http", "host": server.url, "login": "al", "extra": {"access_token": token}}
        define(monkeypatch, "api_token", connection)
        assert AirflowRestApi.from_connection("api_token").get("/api/v2/x") == {"ok": True}
    assert masked(token)
    assert server.calls() == [("GET", "/api/v2/x")]
    assert server.seen[0].headers["authorization"] == f"Bearer {token}"


# -- TLS -----------------------------------------------------------------------------------------------------------


@pytest.fixture
def private_ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ssl.SSLContext, Path]:
    """A server's TLS context with a certificate of a private CA, and the CA's bundle; no bundle named by variable."""
    from cryptography.hazmat.primitives import serialization

    for name in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
        monkeypatch.delenv(name, raising=False)
    ca = issue_certificate("Rotation test private CA")
    cert, key = issue_certificate("127.0.0.1", issuer=ca)
    bundle, chain, key_file = tmp_path / "ca.pem", tmp_path / "server.pem", tmp_path / "server.key"
    bundle.write_bytes(ca[0].public_bytes(serialization.Encoding.PEM))
    chain.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    plain = serialization.NoEncryption()
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, plain))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(chain, key_file)
    return context, bundle


@pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning")  # verify: false, on purpose
def test_the_server_certificate_is_verified_unless_told_otherwise(
    private_ca: tuple[ssl.SSLContext, Path], monkeypatch: pytest.MonkeyPatch, naps: list[float]
) -> None:
    context, bundle = private_ca
    with serving({"GET /api/v2/x": [OK]}, tls=context) as server:
        for api in (AirflowRestApi(server.url, access_token=ISSUED), from_connection(monkeypatch, server.url, {})):
            with pytest.raises(AirflowApiError) as caught:
                api.get("/api/v2/x")
            assert (caught.value.status, caught.value.detail) == (None, "SSLError")
        assert AirflowRestApi(server.url, access_token=ISSUED, verify=str(bundle)).get("/api/v2/x") == {"ok": True}
        assert from_connection(monkeypatch, server.url, {"verify": str(bundle)}).get("/api/v2/x") == {"ok": True}
        assert from_connection(monkeypatch, server.url, {"verify": False}).get("/api/v2/x") == {"ok": True}
        # as a URI's query gives it: text, in any case
        assert from_connection(monkeypatch, server.url, {"verify": " False"}).get("/api/v2/x") == {"ok": True}
        with pytest.raises(AirflowApiError) as caught:
            from_connection(monkeypatch, server.url, {"verify": "TRUE"}).get("/api/v2/x")
        assert (caught.value.status, caught.value.detail) == (None, "SSLError")
    assert len(server.seen) == 4  # the refused handshakes never got as far as a request
    assert naps == [0.2, 0.4] * 3


def from_connection(monkeypatch: pytest.MonkeyPatch, url: str, extra: dict[str, Any]) -> AirflowRestApi:
    connection = {"conn_type": "http", "host": url, "extra": {"access_token": ISSUED, **extra}}
    define(monkeypatch, "api_tls", connection)
    return AirflowRestApi.from_connection("api_tls")
