"""
Reading one of our connections as Airflow does logs neither warning it used to log on every read:

- "Connection schemes (type: messaging_platform) shall not contain '_' according to RFC3986": Airflow writes a
  connection it reads as a URI (its secrets cache; in the API server, for every read through the execution API),
  and warns about a ``_`` in the type. The type is ``messagingplatform`` now; the former name still warns.
- "Skipping masking for a secret as it's too short (<5 chars)": Airflow offers every text extra to its secrets
  masker. An account id written as a URI's query value (``?account_id=1001``) arrives as the text "1001" (but on
  Airflow 3.1, which reads query values as JSON); in a JSON connection, or in a URI's ``__extra__``, it is a number.

Each case looks for both warnings in what Airflow logged (``Logged``); the cases that must warn (an account id as
text, the former type) show that the looking sees them. The last test follows the documented change of type.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from packaging.version import Version

from messaging_platform_emulator.connection import connection_uri
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.hooks.names import CONN_TYPE, LEGACY_CONN_TYPE
from tests.support.airflow_versions import AIRFLOW_VERSION, dag_bag
from tests.support.paths import TEST_DAGS

SCHEME_WARNING = "shall not contain '_' according to RFC3986"
SHORT_SECRET_WARNING = "Skipping masking for a secret as it's too short"
BASE_URL = "https://platform.example.com/api/v2.1"
SECRET = "log-noise-probe-secret-7c1d"
CONN_ID = "mp_log_noise"
#: Airflow 3.4 no longer warns about a ``_`` in a connection type (its ``get_uri`` dropped the check).
FORMER_TYPE_WARNS = AIRFLOW_VERSION < Version("3.4")


#: Where each of Airflow's secrets maskers lives (core and Task SDK), on 3.1+ and on 3.0.
MASKER_MODULES = (
    "airflow._shared.secrets_masker.secrets_masker",
    "airflow.sdk._shared.secrets_masker.secrets_masker",
    "airflow.utils.log.secrets_masker",
    "airflow.sdk.execution_time.secrets_masker",
)


def warn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each of Airflow's secrets maskers warns about a short secret once per process: let them warn again."""
    for name in MASKER_MODULES:
        module = sys.modules.get(name)
        if module is not None:
            monkeypatch.setattr(module.SecretsMasker, "_has_warned_short_secret", False)


class Logged:
    """
    Which of the two warnings Airflow logged since the last look. Its structlog output goes to the output stream of
    the moment it was set up, which pytest may capture apart from ``capfd``; its records reach ``caplog`` too: both
    are read.
    """

    def __init__(self, caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]) -> None:
        self.caplog = caplog
        self.capfd = capfd
        self.since()

    def since(self) -> dict[str, bool]:
        output = self.capfd.readouterr()
        text = "\n".join([self.caplog.text, output.out, output.err])
        self.caplog.clear()
        return {"scheme": SCHEME_WARNING in text, "short secret": SHORT_SECRET_WARNING in text}


def as_json(conn_type: str, account_id: Any) -> str:
    extra = {"base_url": BASE_URL, "account_id": account_id}
    return json.dumps({"conn_type": conn_type, "login": "probe-key", "password": SECRET, "extra": extra})


NEITHER = {"scheme": False, "short secret": False}
FORMS = {
    "JSON": (as_json(CONN_TYPE, 1001), NEITHER),
    "URI as the emulator prints it (__extra__)": (connection_uri(BASE_URL, "probe-key", SECRET, 1001), NEITHER),
    # What the old ways gave, an account id as text (a URI's query values give it on most Airflow versions) and the
    # type's former name: both still warn, so the looking is seen to work.
    "JSON with the account id as text": (as_json(CONN_TYPE, "1001"), {"scheme": False, "short secret": True}),
    "JSON of the former type": (as_json(LEGACY_CONN_TYPE, 1001), {"scheme": FORMER_TYPE_WARNS, "short secret": False}),
}


@pytest.mark.parametrize("form", list(FORMS))
def test_reading_a_connection_from_an_environment_variable(form, monkeypatch, caplog, capfd, airflow_db):
    value, expected = FORMS[form]
    monkeypatch.setenv(f"AIRFLOW_CONN_{CONN_ID.upper()}", value)
    from airflow.models import Connection

    logged = Logged(caplog, capfd)  # what came before is not this read's
    warn_again(monkeypatch)
    # As the API server reads it (the execution API, the REST API): the core model, written into its cache as a URI.
    core = Connection.get_connection_from_secrets(CONN_ID)
    by_api_server = logged.since()
    warn_again(monkeypatch)
    # As a task reads it: through the hook (the Task SDK's lookup; on Airflow 3.0 the core model's again).
    settings = MessagingPlatformHook(CONN_ID).settings
    by_task = logged.since()

    assert core.login == "probe-key" and (settings.base_url, settings.account_id) == (BASE_URL, 1001)
    assert {name: by_api_server[name] or by_task[name] for name in expected} == expected


def test_the_hook_of_the_former_type_is_ours_and_reads_the_connection(monkeypatch):
    from airflow.sdk import Connection

    monkeypatch.setenv(f"AIRFLOW_CONN_{CONN_ID.upper()}", as_json(LEGACY_CONN_TYPE, 1001))
    hook = Connection.get(CONN_ID).get_hook()
    assert isinstance(hook, MessagingPlatformHook) and type(hook).conn_type == LEGACY_CONN_TYPE
    assert (hook.settings.base_url, hook.settings.account_id) == (BASE_URL, 1001)


@pytest.fixture
def database_connection(airflow_db: None, platform: Any) -> Iterator[Callable[[str, Any], str]]:
    """Puts a connection into the metadata database (read through the execution API by a task); removes it after."""
    from airflow.models import Connection
    from airflow.utils.session import create_session

    def put(conn_type: str, account_id: Any) -> str:
        extra = json.dumps({"base_url": platform.base_url, "account_id": account_id})
        with create_session() as session:
            session.query(Connection).filter(Connection.conn_id == CONN_ID).delete()
            session.add(
                Connection(
                    conn_id=CONN_ID,
                    conn_type=conn_type,
                    login=platform.seed.api_key,
                    password=platform.seed.api_secret,
                    extra=extra,
                )
            )
        return CONN_ID

    yield put
    with create_session() as session:
        session.query(Connection).filter(Connection.conn_id == CONN_ID).delete()


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
@pytest.mark.parametrize(
    "conn_type, account_id, expected",
    [
        (CONN_TYPE, 1001, NEITHER),
        (LEGACY_CONN_TYPE, "1001", {"scheme": FORMER_TYPE_WARNS, "short secret": True}),  # as before: both are seen
    ],
    ids=["as written now", "former type, account id as text"],
)
def test_a_task_reading_a_database_connection_through_the_execution_api(
    conn_type, account_id, expected, database_connection, dag_runs, monkeypatch, caplog, capfd
):
    conn_id = database_connection(conn_type, account_id)
    dag = dag_bag(str(TEST_DAGS)).get_dag("messaging_platform_test_connection_reads")
    logged = Logged(caplog, capfd)
    warn_again(monkeypatch)
    run = dag.test(run_conf={"conn_id": conn_id})

    assert [ti.state for ti in run.get_task_instances()] == ["success"]
    assert logged.since() == expected


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_the_documented_change_of_type_keeps_everything_else(airflow_api, unique_conn_id):
    """docs/hook.md: ``PATCH /api/v2/connections/{id}?update_mask=conn_type`` moves a connection to the new name."""
    from tests.rotation.test_airflow_rest_api_errors import shown

    api = airflow_api.api()
    extra = json.dumps({"base_url": BASE_URL, "account_id": 1001})
    before = {"connection_id": unique_conn_id, "conn_type": LEGACY_CONN_TYPE, "description": "saved long ago"}
    api.create_connection({**before, "login": "probe-key", "password": SECRET, "extra": extra})
    try:
        api.update_connection(unique_conn_id, {"conn_type": CONN_TYPE}, conn_type=CONN_TYPE)
        after = shown(api, unique_conn_id)
    finally:
        api.delete_connection(unique_conn_id)
    assert after == {**before, "conn_type": CONN_TYPE, "login": "probe-key", "password": "***", "extra": extra}
