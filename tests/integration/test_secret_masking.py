"""Secrets the platform returns are masked the moment they are read, and reach no log, XCom or output."""

from __future__ import annotations

import subprocess

import pytest

from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.airflow_versions import airflow_command, secrets_masker

redact = secrets_masker().redact


def test_every_secret_read_is_registered_with_the_masker(platform):
    hook = MessagingPlatformHook()
    created = hook.create_api_key("Masked")
    fetched = hook.get_api_key(created["Id"])
    changed = hook.change_api_key_secret(created["Id"])
    assert created["Secret"] == fetched["Secret"] != changed["Secret"]
    for secret in (created["Secret"], changed["Secret"], platform.seed.api_secret):
        assert redact(f"value={secret}") == "value=***"


def read_as_a_task_does(monkeypatch, caplog, capfd, extra: dict) -> str:
    """
    Read a connection of our type with ``extra`` through the hook, as a task does; answers everything logged or
    printed meanwhile (Airflow may log the masker's warning to a handler of its own, not only to ``caplog``).
    """
    import json
    import sys

    # Each masker warns once per process. Airflow 3.1 has two copies, the core's and the Task SDK's, and another test
    # may have used up the warning of the one that reads connections here: reset it in every masker loaded.
    modules = [module for name, module in list(sys.modules.items()) if name.endswith(".secrets_masker")]
    for masker in {secrets_masker().SecretsMasker, *(getattr(m, "SecretsMasker", None) for m in modules)}:
        if hasattr(masker, "_has_warned_short_secret"):
            monkeypatch.setattr(masker, "_has_warned_short_secret", False)
    conn = {"conn_type": "messagingplatform", "login": "probe-key", "password": "probe-secret-xyz", "extra": extra}
    monkeypatch.setenv("AIRFLOW_CONN_MASKING_PROBE", json.dumps(conn))
    capfd.readouterr()
    caplog.clear()
    settings = MessagingPlatformHook("masking_probe").settings
    assert settings.account_id == 42
    # The masker is the process's: another test of this worker may have masked a plain word ("secret", say), so the
    # text around the values is one no other test has.
    assert redact("masking-probe-account 42") == "masking-probe-account 42"
    assert redact(f"masking-probe-secret {conn['password']}") == "masking-probe-secret ***"
    captured = capfd.readouterr()
    return caplog.text + captured.out + captured.err


def test_a_connection_as_the_form_saves_it_makes_no_short_secret_warning(monkeypatch, caplog, capfd):
    """
    Airflow offers every text extra of a connection to the secrets masker when it reads one; one shorter than five
    characters logs "Skipping masking for a secret as it's too short" in every task, sensitive name or not. The
    form's time zone defaulted to "UTC"; now it is left out (UTC all the same), and the account id is a number.
    """
    from messaging_platform_provider.get_provider_info import get_provider_info

    (conn_type,) = [t for t in get_provider_info()["connection-types"] if t["connection-type"] == "messagingplatform"]
    defaults = {k: v["schema"]["default"] for k, v in conn_type["conn-fields"].items() if "default" in v["schema"]}
    assert all(not isinstance(v, str) or len(v) >= 5 for v in defaults.values()), defaults
    extra = {"base_url": "https://platform.example.com/api/v2.1", "account_id": 42, **defaults}
    # The control: a short text extra makes the warning, and this test sees it where Airflow writes it.
    assert "too short" in read_as_a_task_does(monkeypatch, caplog, capfd, {**extra, "account_id": "42"})
    assert "too short" not in read_as_a_task_does(monkeypatch, caplog, capfd, extra)


@pytest.mark.slow
def test_a_dag_run_leaves_no_secret_in_output_logs_or_xcom(home_scan, platform, airflow_db):
    """
    Run as users do, ``airflow dags test`` in its own process. The DAG makes the platform hand out three secrets;
    none may reach the output, the task logs or the metadata database (XCom, rendered fields).
    """
    out = subprocess.run(
        [*airflow_command(), "dags", "test", "messaging_platform_test_secret_masking"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = out.stdout + out.stderr
    assert out.returncode == 0, output[-3000:]
    assert "too short" not in output  # the connection's account id (1001) is no secret to mask
    hook = MessagingPlatformHook()
    (key,) = [k for k in hook.list_api_keys() if k["Label"].startswith("Masking probe")]
    current = hook.get_api_key(key["Id"])["Secret"]  # the secret after the change, as the DAG read it
    assert any(r["method"] == "PUT" for r in platform.control.requests())
    for secret in (current, platform.seed.api_secret):
        assert secret not in output
        assert home_scan.leaks([secret]) == [], "secret found"
