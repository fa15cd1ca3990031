"""
Every example DAG imports cleanly, asks for what differs per account through params (no default that only the
emulator has), and runs to success against the emulator with its ids given as a user gives them, with no secret
leaking.
"""

from __future__ import annotations

import copy
import re
import warnings
from typing import Any

import pytest

from tests.support.airflow_versions import airflow_logs_at_level, dag_bag, param_validation_error
from tests.support.paths import EXAMPLE_DAGS, REPO

DAGS = EXAMPLE_DAGS
DAG_FILES = sorted(DAGS.glob("messaging_platform_*.py"))
#: The example that writes the rotated key through Airflow's REST API: it needs the session's Airflow API server.
ROTATION_EXAMPLE = "messaging_platform_api_key_rotation"

# A param named like this names something in one account (an id, a channel, a phone number, a receiver's URL):
# no default can be right for every account.
ACCOUNT_SPECIFIC = re.compile(r"(^|_)(ids?|channel|long_code|call_to|phone|url)$")
# The integer params that may have a default: sizes and durations, never ids.
INTEGERS_WITH_DEFAULTS = {"page_size", "wait_timeout_seconds"}
# Ids the emulator seeds (docs/emulator.md): account, action, campaign, contact list, root group, contact, keyword.
EMULATOR_IDS = re.compile(r"\b(1001|5001|3001|4001|4101|6001|8001)\b")

LONG_CODE = "+15125550100"  # the emulator places calls from any E.164 long code
CALL_TO = "+15550100007"
RECEIVER = "https://receiver.example.com/messaging-platform/keyword"


def load_dags():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        return dag_bag(str(DAGS))


def required_params(dag: Any) -> list[str]:
    return [name for name in dag.params if not dag.params.get_param(name).has_value]


def test_dag_files_import_without_errors_and_are_named_by_dag_id():
    bag = load_dags()
    assert bag.import_errors == {}
    assert DAG_FILES, "no example DAGs found"
    assert sorted(bag.dag_ids) == [p.stem for p in DAG_FILES]


def test_no_example_dag_has_a_default_for_a_value_that_names_something_in_an_account():
    bag = load_dags()
    defaulted = {
        (dag_id, name): dag.params.get_param(name).value
        for dag_id, dag in bag.dags.items()
        for name in dag.params
        if ACCOUNT_SPECIFIC.search(name) and dag.params.get_param(name).has_value
    }
    assert defaulted == {}
    integer_defaults = {
        name
        for dag in bag.dags.values()
        for name in dag.params
        if dag.params.get_param(name).schema.get("type") == "integer" and dag.params.get_param(name).has_value
    }
    assert integer_defaults <= INTEGERS_WITH_DEFAULTS


def test_the_values_a_user_must_give_are_required_params_and_a_trigger_without_one_names_it():
    ParamValidationError = param_validation_error()

    bag = load_dags()
    required = {(dag_id, name) for dag_id, dag in bag.dags.items() for name in required_params(dag)}
    assert required == {
        ("messaging_platform_campaign_launch", "channel"),
        ("messaging_platform_campaign_launch", "keyword_id"),
        ("messaging_platform_campaign_launch", "callback_url"),
        ("messaging_platform_hook_walkthrough", "from_long_code"),
        ("messaging_platform_hook_walkthrough", "call_to"),
        ("messaging_platform_schedule_reconcile", "action_id"),
        ("messaging_platform_voice_call_push", "contact_list_id"),
        ("messaging_platform_voice_call_push", "from_long_code"),
    }
    valid = {"channel": 7, "keyword_id": 12, "callback_url": RECEIVER, "action_id": 34, "contact_list_id": 56}
    valid |= {"from_long_code": LONG_CODE, "call_to": CALL_TO}
    for dag_id, missing in sorted(required):
        params = copy.deepcopy(bag.dags[dag_id].params)  # what Airflow validates a trigger's conf against
        for name in required_params(bag.dags[dag_id]):
            if name != missing:
                params[name] = valid[name]
        with pytest.raises(ParamValidationError, match=f"param {missing}:"):
            params.validate()


def test_every_param_is_described_in_the_dag_docs():
    undocumented = [
        (dag_id, name)
        for dag_id, dag in load_dags().dags.items()
        for name in dag.params
        if f"``{name}``" not in (dag.doc_md or "")
    ]
    assert undocumented == []


def test_no_example_dag_or_data_file_names_an_id_only_the_emulator_has():
    files = sorted(p for p in DAGS.rglob("*") if p.suffix in {".py", ".yaml", ".csv"})
    hits = [
        f"{path.relative_to(REPO)}:{number}: {line.strip()}"
        for path in files
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if EMULATOR_IDS.search(line)
    ]
    assert hits == []


def conf_for(dag_id: str, seed: Any) -> dict[str, Any]:
    """What a user passes when triggering each example; here the account's ids are the emulator's seed."""
    confs: dict[str, dict[str, Any]] = {
        "messaging_platform_campaign_launch": {
            "channel": seed.resources["channel_id"],
            "keyword_id": seed.resources["keyword_id"],
            "callback_url": RECEIVER,
        },
        "messaging_platform_hook_walkthrough": {"from_long_code": LONG_CODE, "call_to": CALL_TO},
        "messaging_platform_schedule_reconcile": {"action_id": seed.action_id},
        "messaging_platform_voice_call_push": {
            "contact_list_id": seed.resources["contact_list_id"],
            "from_long_code": LONG_CODE,
        },
    }
    return confs.get(dag_id, {})


@pytest.mark.parametrize(
    "dag_file",
    [
        pytest.param(p, marks=[pytest.mark.slow, pytest.mark.xdist_group("airflow_api_server")])
        if p.stem == ROTATION_EXAMPLE
        else p
        for p in DAG_FILES
    ],
    ids=lambda p: p.stem,
)
def test_example_dag_runs_to_success(home_scan, platform, airflow_db, capfd, dag_file, request, monkeypatch):
    if dag_file.stem == ROTATION_EXAMPLE:
        request.getfixturevalue("rotation_example_connections")  # API server, airflow_api_default, the DB connection
    monkeypatch.setenv("AIRFLOW_VAR_MESSAGING_PLATFORM_WELCOME_LONG_CODE", LONG_CODE)  # the keyword example's
    bag = load_dags()
    dag = bag.get_dag(dag_file.stem)
    # No logical date: the default of the REST API and of `airflow dags trigger`, so no `ds` in the context.
    with airflow_logs_at_level():
        run = dag.test(run_conf=conf_for(dag_file.stem, platform.seed) or None, logical_date=None)
    captured = capfd.readouterr()
    assert run.state == "success", captured.out[-3000:] + captured.err[-3000:]
    assert platform.control.requests(), "the DAG sent nothing to the emulator"
    assert platform.seed.api_secret not in captured.out + captured.err
    for ti in run.get_task_instances():
        assert ti.state in ("success", "skipped"), (ti.task_id, ti.state)
    # XCom, rendered fields and task logs all live under AIRFLOW_HOME (SQLite database and log folder).
    assert home_scan.leaks([platform.seed.api_secret]) == []
