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

from tests.integration.conftest import DemoRun
from tests.support.airflow_versions import dag_bag, param_validation_error
from tests.support.paths import EXAMPLE_DAGS, REPO

DAGS = EXAMPLE_DAGS
DAG_FILES = sorted(DAGS.glob("messaging_platform_*.py"))

# A param named like this names something in one account (an id, a channel, a phone number, a receiver's URL):
# no default can be right for every account.
ACCOUNT_SPECIFIC = re.compile(r"(^|_)(ids?|channel|long_code|call_to|phone|url)$")
# The integer params that may have a default: sizes and durations, never ids.
INTEGERS_WITH_DEFAULTS = {"page_size", "wait_timeout_seconds"}
# Ids the emulator seeds (docs/emulator.md): account, action, campaign, contact list, root group, contact, keyword.
EMULATOR_IDS = re.compile(r"\b(1001|5001|3001|4001|4101|6001|8001)\b")

LONG_CODE = "+15125550100"  # the long code of the emulator's seeded account
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


@pytest.mark.slow
@pytest.mark.xdist_group("demo")
@pytest.mark.parametrize("dag_file", DAG_FILES, ids=lambda p: p.stem)
def test_example_dag_runs_to_success(demo_run: DemoRun, dag_file):
    """
    Run as users run it: ``airflow dags test <dag id> --conf <their ids>``, in the demo (``scripts/demo.py``), which
    gives each DAG the ids the emulator seeded. It succeeds after calling the platform, and the demo's scan of the
    output, the task logs and the metadata database finds no secret that went over the wire.
    """
    row = demo_run.rows.get(dag_file.stem)
    assert row is not None, demo_run.tail
    assert row.state == "success", demo_run.tail
    assert row.calls > 0, row.line  # it reached the emulator
    assert demo_run.scan_clean, demo_run.tail
