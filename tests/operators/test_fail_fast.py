"""
What a retry cannot change fails the task on its first try, whatever its ``retries``; a transient failure is still
retried. Under ``dag.test()``, with Airflow's own retry machinery (tests/integration/dags/..._fail_fast.py).
"""

from __future__ import annotations

import pytest

from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    retry_cannot_help,
)
from tests.support.airflow_versions import dag_bag
from tests.support.paths import TEST_DAGS


@pytest.fixture
def fail_fast_run(platform, dag_runs):
    platform.control.add_fault(kind="status", status=409, method="GET", path="/action-pushvoicecall$", count=1)
    platform.control.add_fault(kind="status", status=500, method="GET", path="/campaign$", count=1)
    dag = dag_bag(str(TEST_DAGS)).get_dag("messaging_platform_test_fail_fast")
    run = dag.test()
    return {ti.task_id: (ti.state, ti.try_number) for ti in run.get_task_instances()}, platform.control.requests()


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_what_a_retry_cannot_change_fails_on_the_first_try_and_a_transient_error_is_retried(fail_fast_run):
    tries, requests = fail_fast_run
    assert tries == {
        "bad_week_day": ("failed", 1),  # WEDS: refused before any request
        "missing_campaign": ("failed", 1),  # 404
        "refused_list": ("failed", 1),  # 409
        "transient_list": ("success", 2),  # 500 on the first try, retried by Airflow
    }
    assert not any("/schedule" in r["path"] for r in requests)  # the typo never reached the platform
    assert [r["status"] for r in requests if r["path"].endswith("/campaign/999999")] == [404]
    assert [r["status"] for r in requests if r["path"].endswith("/campaign")] == [500, 204]  # 204: no campaigns yet


@pytest.mark.parametrize(
    ("status", "cannot_help"),
    [(None, False), (408, False), (429, False), (500, False), (503, False)]
    + [(400, True), (401, True), (403, True), (404, True), (409, True), (422, True)],
)
def test_which_answers_a_retry_cannot_change(status, cannot_help):
    error = MessagingPlatformApiError(method="GET", path="/campaign", status=status)
    assert retry_cannot_help(error) is cannot_help


def test_bad_input_cannot_be_helped_by_a_retry_and_other_errors_are_left_to_airflow():
    assert retry_cannot_help(MessagingPlatformValidationError("week_day", "'WEDS' is not a day"))
    assert not retry_cannot_help(TimeoutError("read timed out"))
