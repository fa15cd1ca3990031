"""
Values written as literals in a DAG file are checked when the operator is built: a typo is an import error of the
DAG file that names the parameter. Templates and XComArgs are checked when the task runs (``refused`` in the
operator tests), and a mapped task's values when its instances run.
"""

from __future__ import annotations

import textwrap
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.sdk import DAG, XComArg, task
from packaging.version import Version

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.operators import (
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformCreateCouponDefinitionOperator,
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeleteExternalCouponCodeOperator,
    MessagingPlatformGetCampaignOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformUpdateScheduleOperator,
)
from messaging_platform_provider.operators.literals import is_literal
from tests.support.airflow_versions import AIRFLOW_VERSION, dag_bag
from tests.support.operator_context import fails_without_retry, refused, run
from tests.support.paths import TEST_DAGS

START = datetime(2026, 1, 1, tzinfo=timezone.utc)
CAMPAIGN = {"task_id": "t", "name": "Spring", "campaign_type": "Basic"}
WEEKLY = {"action_id": 5001, "schedule_type": "Weekly", "run_at": "09:00:00", "start_from": "2026-12-01T00:00:00"}

DAG_FILE = """
from datetime import datetime, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import MessagingPlatformCreateScheduleOperator

with DAG(dag_id="typo", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):
    MessagingPlatformCreateScheduleOperator(
        task_id="weekly",
        action_id=5001,
        schedule_type="Weekly",
        run_at="09:00:00",
        start_from="2026-12-01T00:00:00",
        week_day={week_day!r},
    )
"""


def test_a_typo_in_a_literal_is_an_import_error_of_the_dag_file_naming_the_parameter(tmp_path, airflow_db):
    (tmp_path / "typo_dag.py").write_text(textwrap.dedent(DAG_FILE.format(week_day="WEDS")))
    bag = dag_bag(str(tmp_path))
    assert bag.dags == {}
    ((path, error),) = bag.import_errors.items()
    assert path.endswith("typo_dag.py")
    assert "week_day: 'WEDS' is not a day of the week" in error


def test_the_same_dag_file_without_the_typo_imports(tmp_path, airflow_db):
    (tmp_path / "fine_dag.py").write_text(textwrap.dedent(DAG_FILE.format(week_day="WED")))
    bag = dag_bag(str(tmp_path))
    assert bag.import_errors == {} and list(bag.dags) == ["typo"]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: MessagingPlatformCreateScheduleOperator(task_id="t", **WEEKLY, week_day="WEDS"), "week_day: 'WEDS'"),
        (lambda: MessagingPlatformCreateScheduleOperator(task_id="t", **{**WEEKLY, "run_at": "9am"}), "run_at: '9am'"),
        (
            lambda: MessagingPlatformCreateScheduleOperator(task_id="t", action_id=5001, run_once_at="soon"),
            "run_once_at: 'soon' is not a date-time",
        ),
        (lambda: MessagingPlatformGetCampaignOperator(task_id="t", campaign_id="12; DROP"), "campaign_id: must be"),
        (
            lambda: MessagingPlatformCreateCampaignOperator(task_id="t", name="Spring", campaign_type="Lottery"),
            "campaign_type: 'Lottery' is not valid",
        ),
        (
            lambda: MessagingPlatformCreatePushVoiceCallOperator(
                task_id="t",
                channels=["+15125550100"],
                targets=["+15125550199"],
                message="Hi",
                schedules=[{"schedule_type": "Daily", "run_at": "09:00:00", "start_from": "2026-12-01", "week": 1}],
            ),
            "schedules[0]: 'week' is not a schedule key",
        ),
        (
            lambda: MessagingPlatformCreatePushVoiceCallOperator(
                task_id="t",
                channels=["+15125550100"],
                targets=["+15125550199"],
                message="Hi",
                schedules=[{"ScheduleTypeId": 6, "RunAt": "09:00:00", "StartFrom": "2026-12-01"}],
            ),
            "schedules[0]: 'ScheduleTypeId' is not a schedule key; write schedule_type",
        ),
        (
            lambda: MessagingPlatformDeleteExternalCouponCodeOperator(
                task_id="t", coupon_list_id=2001, coupon_code=".."
            ),
            "coupon_code: '..' cannot be sent",
        ),
    ],
)
def test_a_literal_typo_fails_when_the_operator_is_built(build, message):
    with pytest.raises(MessagingPlatformValidationError) as raised:
        build()
    assert message in str(raised.value)


def test_a_blank_count_is_left_out_and_the_fields_after_it_are_still_checked():
    """``max_uses=""`` (what a template that renders to nothing gives) leaves the field out; the check goes on."""
    with pytest.raises(MessagingPlatformValidationError) as raised:
        MessagingPlatformCreateCouponDefinitionOperator(task_id="t", campaign_id=3001, coupon_type="Bogus", max_uses="")
    assert raised.value.field == "coupon_type"
    MessagingPlatformCreateCouponDefinitionOperator(task_id="t", campaign_id=3001, coupon_type="Dynamic", max_uses="")


def test_an_empty_account_id_written_in_the_dag_file_means_the_connections_account(platform):
    op = MessagingPlatformListCampaignsOperator(task_id="l", account_id="")
    assert run(op) == []
    assert [r["path"] for r in platform.control.requests()] == ["/api/v2.1/account/1001/campaign"]


def test_an_operator_given_a_positional_argument_is_refused_not_built_without_it():
    with pytest.raises(TypeError, match="keyword arguments"):
        MessagingPlatformGetCampaignOperator("3001", task_id="g", campaign_id=3002)


def test_a_mapped_instances_value_is_checked_when_it_runs_failing_it_without_retry(platform):
    """
    The instances of ``.expand()`` are built by Airflow when each runs (``render_template_fields``, before
    ``execute``): a bad value fails that instance as a run-time check does, without retry and before any request,
    not while Airflow builds it (where it would be an ordinary, retried failure).
    """
    with DAG(dag_id="mapped_values", schedule=None, start_date=START) as dag:
        mapped = MessagingPlatformCreateScheduleOperator.partial(task_id="weekly", **WEEKLY).expand(
            week_day=["MON", "WEDS"]
        )
    ti = SimpleNamespace(dag_id="mapped_values", task_id="weekly", run_id="r1", map_index=1, try_number=1)
    context: dict[str, Any] = {"ti": ti, "params": {}, "dag": dag, "dag_run": SimpleNamespace(conf={})}
    mapped.render_template_fields(context)  # as the task runner does: builds the instance, then renders it
    instance = context["task"]
    assert instance.week_day == "WEDS"
    with fails_without_retry(MessagingPlatformValidationError, "week_day: 'WEDS'"):
        run(instance)
    assert platform.control.requests() == []


def test_templates_and_xcom_args_wait_for_run_time(platform):
    with DAG(dag_id="run_time_values", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc)):

        @task
        def pick_day() -> str:
            return "WEDS"  # a typo only the run can show

        day = pick_day()
        create = MessagingPlatformCreateCampaignOperator(task_id="create", name="Spring", campaign_type="Basic")
        templated = [
            MessagingPlatformCreateScheduleOperator(task_id="t", **WEEKLY, week_day="{{ params.week_day }}"),
            MessagingPlatformCreateScheduleOperator(task_id="u", **WEEKLY, week_day=["MON", "{{ params.day }}"]),
            MessagingPlatformGetCampaignOperator(task_id="v", campaign_id="{{ ti.xcom_pull('create')['Id'] }}"),
        ]
        # XComArgs: another task's output, whole, as an item of a list, and one of its XCom keys
        weekly = MessagingPlatformCreateScheduleOperator(task_id="w", **WEEKLY, week_day=day)
        in_a_list = MessagingPlatformCreateScheduleOperator(task_id="x", **WEEKLY, week_day=["MON", day])
        by_key = MessagingPlatformGetCampaignOperator(task_id="y", campaign_id=create.output["Id"])
        whole = MessagingPlatformGetCampaignOperator(task_id="z", campaign_id=create.output)

    assert [op.task_id for op in templated] == ["t", "u", "v"]
    assert isinstance(day, XComArg) and isinstance(create.output["Id"], XComArg)
    # template text in a mapping's key too (Airflow renders a mapping's values only: the key stays as written)
    for value in (day, ["MON", day], create.output["Id"], {"days": [day]}, {"{{ params.key }}": "MON"}):
        assert not is_literal(value), value
    # left as they are for run time, and each makes its task wait for the one whose output it is
    assert weekly.week_day is day and in_a_list.week_day == ["MON", day]
    assert isinstance(by_key.campaign_id, XComArg) and isinstance(whole.campaign_id, XComArg)
    assert (weekly.upstream_task_ids, in_a_list.upstream_task_ids) == ({"pick_day"}, {"pick_day"})
    assert (by_key.upstream_task_ids, whole.upstream_task_ids) == ({"create"}, {"create"})
    # at run time the value the XComArg gives is checked as a literal is, before any request
    weekly.week_day = "WEDS"  # what rendering the task's fields resolves ``day`` to
    before = len(platform.control.requests())
    with refused("week_day"):
        run(weekly)
    assert len(platform.control.requests()) == before


def test_run_once_at_stands_for_a_one_time_schedule_at_that_instant(platform):
    op = MessagingPlatformCreateScheduleOperator(
        task_id="once", action_id=5001, run_once_at=datetime(2026, 12, 1, 9, 30, 15, tzinfo=timezone.utc)
    )
    run(op)
    (post,) = [r for r in platform.control.requests() if r["method"] == "POST"]
    assert post["json"] == {"ScheduleTypeId": 2, "RunAt": "09:30:15", "StartFrom": "2026-12-01T09:30:15"}


def test_run_once_at_now_is_the_moment_the_task_runs_in_the_platform_zone(platform):
    op = MessagingPlatformCreateScheduleOperator(task_id="once", action_id=5001, run_once_at="now")
    before = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    run(op)
    after = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    (post,) = [r for r in platform.control.requests() if r["method"] == "POST"]
    sent = datetime.fromisoformat(post["json"]["StartFrom"])
    assert before <= sent <= after
    assert (post["json"]["ScheduleTypeId"], post["json"]["RunAt"]) == (2, sent.strftime("%H:%M:%S"))


@pytest.mark.parametrize("given", [{"schedule_type": "OneTime"}, {"run_at": "09:00:00"}, {"start_from": "2026-12-01"}])
def test_run_once_at_is_given_alone(given):
    with pytest.raises(MessagingPlatformValidationError, match="run_once_at: stands for schedule_type"):
        MessagingPlatformUpdateScheduleOperator(
            task_id="u", action_id=5001, schedule_id=7001, run_once_at="now", **given
        )


# -- rendered values of the wrong shape (issue 36) ---------------------------------------------------------------------

PARAMS = {"from_long_code": "+15125550100", "numbers": ["+15550100001", "+15550100002"]}


def rendered(native: bool, **values: Any) -> MessagingPlatformCreatePushVoiceCallOperator:
    """A voice call task after Airflow's own rendering, in a DAG with ``render_template_as_native_obj=native``."""
    with DAG(dag_id="rendering", schedule=None, start_date=START, render_template_as_native_obj=native):
        op = MessagingPlatformCreatePushVoiceCallOperator(task_id="call", message="Hi", **values)
    op.render_template_fields({"params": PARAMS})
    return op


def test_a_long_code_that_native_rendering_made_a_number_is_refused_before_any_request(platform):
    op = rendered(True, channels=["{{ params.from_long_code }}"], targets=["'+15550100001'"])
    assert op.channels == [15125550100]  # what the trial sent as "Channels": ["15125550100"]
    with refused("channels[0]") as caught:
        run(op)
    assert platform.control.requests() == []
    assert "got the number 15125550100 where text belongs" in str(caught.value)
    assert "\"'{{ params.long_code }}'\"" in str(caught.value) and "| tojson" in str(caught.value)
    # the fix the error gives, under the same rendering: in quotes inside the text, or through tojson
    for channels in (["'{{ params.from_long_code }}'"], ["'+15125550100'"], "{{ params.from_long_code | tojson }}"):
        platform.control.clear_requests()
        run(rendered(True, channels=channels, targets="{{ params.numbers }}"))
        (post,) = [r for r in platform.control.requests() if r["method"] == "POST"]
        assert (post["json"]["Channels"], post["json"]["Targets"]) == (["+15125550100"], PARAMS["numbers"])


def test_a_list_param_rendered_as_text_is_refused_before_any_request(platform):
    op = rendered(False, channels=["{{ params.from_long_code }}"], targets="{{ params.numbers }}")
    assert op.targets == "['+15550100001', '+15550100002']"  # what the trial sent as one target
    with refused("targets") as caught:
        run(op)
    assert platform.control.requests() == []
    assert "got the text of a list" in str(caught.value)
    assert "an upstream task's output (an XComArg)" in str(caught.value)
    assert "render_template_as_native_obj=True" in str(caught.value)


@pytest.mark.parametrize(
    ("build", "field"),
    [
        (lambda: MessagingPlatformCreatePushVoiceCallOperator(task_id="t", channels=[15125550100]), "channels[0]"),
        (lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, content="{'Text': 'x'}"), "content"),
        (lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, links="[{'Url': 'x'}]"), "links"),
        (lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, subscription_id="one"), "subscription_id"),
        (lambda: MessagingPlatformCreateCampaignOperator(**CAMPAIGN, extra="{'IsDefault': True}"), "extra"),
        (
            lambda: MessagingPlatformCreateExternalCouponListOperator(task_id="t", name="L", coupon_codes="['A1']"),
            "coupon_codes",
        ),
    ],
    ids=["long-code-a-number", "mapping-text", "list-text", "number-text", "extra-text", "codes-text-of-a-list"],
)
def test_a_value_of_the_wrong_shape_written_in_the_dag_file_fails_when_the_operator_is_built(build, field):
    with pytest.raises(MessagingPlatformValidationError) as raised:
        build()
    assert raised.value.field == field


#: What each create that can wait needs besides.
CREATES_THAT_WAIT = {
    MessagingPlatformCreateScheduleOperator: {"action_id": 5001, "run_once_at": "now"},
    MessagingPlatformCreatePushVoiceCallOperator: {
        "channels": ["+15125550100"],
        "targets": ["+15550100001"],
        "message": "Hi",
        "schedules": [{"run_once_at": "now"}],
    },
}


@pytest.mark.parametrize(("create", "values"), CREATES_THAT_WAIT.items(), ids=["schedule", "voice_call"])
def test_a_wait_timeout_that_is_no_number_is_refused_before_the_create_is_sent(platform, create, values):
    with pytest.raises(MessagingPlatformValidationError, match="^wait_timeout: must be a number of seconds"):
        create(task_id="t", wait_for_completion=True, wait_timeout="soon", **values)
    op = create(task_id="t", wait_for_completion=True, wait_timeout="{{ params.wait }}", **values)
    op.wait_timeout = "[60]"  # a list param, rendered as text
    with refused("wait_timeout"):
        run(op)
    assert platform.control.requests() == []  # not created, then failed


@pytest.mark.slow
@pytest.mark.xdist_group("dag_runs")
def test_under_dag_test_both_mistakes_fail_on_their_first_try_before_any_request(platform, dag_runs, capsys):
    """The test DAGs of tests/integration/dags/messaging_platform_test_rendered_values.py, run by Airflow."""
    bag = dag_bag(str(TEST_DAGS))
    text_run = bag.get_dag("messaging_platform_test_text_rendering").test()
    assert tries(text_run) == {"list_param": ("failed", 1)}  # retries=2, but a retry cannot change it
    assert platform.control.requests() == []
    native_run = bag.get_dag("messaging_platform_test_native_rendering").test()
    refused_tasks = {"template", "string_filter", "written_out"}  # | string does not help, as the error says
    assert tries(native_run) == {
        **{task_id: ("failed", 1) for task_id in refused_tasks},
        **{task_id: ("success", 1) for task_id in ("quoted_template", "quoted_written_out", "tojson", "list_param")},
    }
    requests = platform.control.requests()
    # each task that passed looked for an earlier try's action, then created it; the refused ones sent nothing
    assert sorted(r["method"] for r in requests) == ["GET"] * 4 + ["POST"] * 4
    assert all(r["json"]["Channels"] == ["+15125550100"] for r in requests if r["method"] == "POST")
    output = capsys.readouterr()
    log = output.out + output.err
    if AIRFLOW_VERSION >= Version("3.1"):  # 3.0's dag.test() keeps a task's error in the task log, not the output
        assert "targets: must be a list, got the text of a list, \"['+15550100001', '+15550100002']\"" in log
        assert "channels[0]: got the number 15125550100 where text belongs" in log


def tries(dag_run: Any) -> dict[str, tuple[str, int]]:
    return {ti.task_id: (ti.state, ti.try_number) for ti in dag_run.get_task_instances()}
