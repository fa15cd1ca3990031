"""
``MessagingPlatformVoiceCallNotifier`` called the ways Airflow calls it outside a task run: a DAG callback's
``notifier(context)``, and a Deadline Alert's callback, which Airflow's callback trigger builds with the
callback's context and awaits (``async_notify``); against the emulator, which records each call placed. Then the
default message for each kind of context, the secrets kept out of the message, and bad input refused before any
request. Under ``dag.test()``: tests/notifications/test_notifier_in_dag_runs.py.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone
from types import SimpleNamespace
from typing import Any

import pytest
from airflow.sdk import DAG

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.notifications import (
    MessagingPlatformVoiceCallNotifier,
    send_messaging_platform_voice_call_notification,
)
from messaging_platform_provider.notifications.voice_call import default_message
from tests.support.airflow_versions import AIRFLOW_VERSION

CALLS = "/api/v2.1/account/1001/action-pushvoicecall"
LONG_CODE = "+15125550100"
ON_CALL = "+15550100007"
NOTIFIER_PATH = "messaging_platform_provider.notifications.voice_call.MessagingPlatformVoiceCallNotifier"


def notifier(**kwargs: Any) -> MessagingPlatformVoiceCallNotifier:
    return MessagingPlatformVoiceCallNotifier(**{"channels": LONG_CODE, "targets": [ON_CALL], **kwargs})


def dag(**kwargs: Any) -> DAG:
    return DAG("nightly_load", schedule=None, start_date=datetime(2026, 1, 1, tzinfo=timezone.utc), **kwargs)


def dag_callback_context(**more: Any) -> dict[str, Any]:
    """What Airflow's DAG processor hands a DAG's ``on_failure_callback`` when the run has no task instance to show."""
    return {"dag": dag(), "run_id": "scheduled__2026-11-27T02:00:00+00:00", "reason": "task_failure", **more}


def deadline_context() -> dict[str, Any]:
    """What the scheduler hands a Deadline Alert's callback (``Deadline.handle_miss``): the run (JSON), the deadline."""
    run = {"dag_id": "nightly_load", "dag_run_id": "scheduled__2026-11-27T02:00:00+00:00", "state": "running"}
    return {"dag_run": run, "deadline": {"id": "0199", "deadline_time": "2026-11-27T03:00:00+00:00"}}


def rendered(
    on_call: MessagingPlatformVoiceCallNotifier, context: dict[str, Any]
) -> MessagingPlatformVoiceCallNotifier:
    """
    ``on_call`` rendered with ``context``, as Airflow renders a notifier before ``notify`` or ``async_notify``.
    Calling the notifier itself would log the error instead of raising it on Airflow 3.0 (``BaseNotifier.__call__``).
    """
    on_call.render_template_fields(context)
    return on_call


def placed(platform: Any) -> list[dict[str, Any]]:
    """The push voice call creates the emulator received, in order."""
    return [r for r in platform.control.requests() if r["method"] == "POST" and r["path"] == CALLS]


# -- placing the call -------------------------------------------------------------------------------------------


def test_a_dag_callback_places_one_call_that_runs_at_once(platform):
    notifier(targets=[ON_CALL, "+15550100008"])(dag_callback_context())
    (call,) = placed(platform)
    assert call["status"] == 201
    assert call["json"] == {
        "Channels": [LONG_CODE],
        "Targets": [ON_CALL, "+15550100008"],
        "Message": "Airflow alert: DAG nightly_load: task_failure. Run scheduled__2026-11-27T02:00:00+00:00.",
        "Execute": True,
    }


def test_the_message_and_the_numbers_are_templates_rendered_with_the_callbacks_context(platform):
    on_call = notifier(
        targets="{{ params.on_call }}",
        message="{{ dag.dag_id }} needs you: {{ reason }}.",
        account_id="{{ params.account }}",
        extra={"ExcludeListIds": [platform.seed.resources["contact_list_id"]]},
    )
    on_call(dag_callback_context(params={"on_call": ON_CALL, "account": str(platform.seed.account_id)}))
    (call,) = placed(platform)
    assert call["status"] == 201
    assert (call["json"]["Targets"], call["json"]["Message"]) == ([ON_CALL], "nightly_load needs you: task_failure.")
    assert call["json"]["ExcludeListIds"] == [platform.seed.resources["contact_list_id"]]  # extra, merged on top


def test_the_airflow_style_lower_case_name_is_the_notifier():
    assert send_messaging_platform_voice_call_notification is MessagingPlatformVoiceCallNotifier


@pytest.mark.skipif(
    AIRFLOW_VERSION.release[:2] < (3, 1),
    reason=f"Airflow {AIRFLOW_VERSION} has no Deadline Alerts, whose callbacks the triggerer awaits (3.1+)",
)
def test_a_deadline_alert_callback_places_the_call_through_the_async_path(platform):
    """Airflow's own callback trigger, as the triggerer runs it: it imports the class, builds it and awaits it."""
    if AIRFLOW_VERSION.release[:2] == (3, 1):
        from airflow.triggers.deadline import DeadlineCallbackTrigger as Trigger
    else:
        from airflow.triggers.callback import CallbackTrigger as Trigger

    kwargs = {"channels": LONG_CODE, "targets": [ON_CALL], "context": deadline_context()}
    trigger = Trigger(callback_path=NOTIFIER_PATH, callback_kwargs=kwargs)

    async def events() -> list[dict[str, Any]]:
        return [event.payload async for event in trigger.run()]

    *_, last = asyncio.run(events())
    assert str(last["state"]).rsplit(".", 1)[-1].lower() == "success", last
    (call,) = placed(platform)
    assert call["status"] == 201
    assert call["json"]["Message"] == (
        "Airflow alert: DAG nightly_load: missed its deadline. Run scheduled__2026-11-27T02:00:00+00:00."
    )


def test_async_notify_sends_what_notify_sends(platform):
    """The two paths share the decision (``call_body``): the same context gives the same request body."""
    context = dag_callback_context()
    notifier(message="Load late").notify(context)
    asyncio.run(notifier(message="Load late").async_notify(context))
    sync_call, async_call = placed(platform)
    assert sync_call["status"] == async_call["status"] == 201
    assert sync_call["json"] == async_call["json"]


# -- what the default message says ------------------------------------------------------------------------------


def test_the_default_message_names_dag_task_try_outcome_run_and_log():
    ti = SimpleNamespace(
        dag_id="nightly_load",
        task_id="load_orders",
        run_id="manual__1",
        try_number=2,
        state="up_for_retry",
        log_url="http://airflow.example.com/dags/nightly_load/runs/manual__1/tasks/load_orders?try_number=2",
    )
    assert default_message({"ti": ti, "run_id": "manual__1"}) == (
        "Airflow alert: DAG nightly_load, task load_orders, try 2: failed, to be retried. Run manual__1. "
        "Log: http://airflow.example.com/dags/nightly_load/runs/manual__1/tasks/load_orders?try_number=2"
    )
    running = SimpleNamespace(dag_id="approvals", task_id="approve", try_number=1, state="running")
    assert (
        default_message({"ti": running, "run_id": "r"}) == "Airflow alert: DAG approvals, task approve, try 1. Run r."
    )
    assert default_message(deadline_context()).endswith(
        ": missed its deadline. Run scheduled__2026-11-27T02:00:00+00:00."
    )
    assert default_message({}) == "Airflow alert."


# -- secrets ----------------------------------------------------------------------------------------------------


def test_a_message_that_renders_the_connection_secret_speaks_stars_instead(platform):
    """``conn`` is the accessor a task's template context has (``{{ conn.<id>.password }}``)."""
    from airflow.sdk.execution_time.context import ConnectionAccessor

    message = "Key {{ conn.messaging_platform_default.password }}, kept out"
    notifier(message=message)(dag_callback_context(conn=ConnectionAccessor()))
    asyncio.run(notifier(message=f"Async key {platform.seed.api_secret}").async_notify(dag_callback_context()))
    sync_call, async_call = placed(platform)
    assert sync_call["json"]["Message"] == "Key ***, kept out"
    assert async_call["json"]["Message"] == "Async key ***"


def test_a_callback_token_is_kept_out_of_the_message(platform, monkeypatch):
    token = platform.seed.callback_token
    monkeypatch.setenv("MESSAGING_PLATFORM_CALLBACK_TOKENS", f"{platform.seed.account_id}:{token}")
    notifier(message="{{ conf_token }} and {{ account }}:{{ conf_token }}")(
        dag_callback_context(conf_token=token, account=platform.seed.account_id)
    )
    (call,) = placed(platform)
    assert call["status"] == 201
    assert token not in call["json"]["Message"]
    assert call["json"]["Message"] == "*** and ***"


# -- bad input: an error naming the parameter, before any request -----------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"targets": None}, "targets"),
        ({"targets": []}, "targets"),
        ({"targets": [15550100007]}, r"targets\[0\]"),  # what native rendering makes of +15550100007
        ({"channels": ""}, "channels"),
        ({"message": "  "}, "message"),
        ({"account_id": "main"}, "account_id"),
        ({"extra": "{'Name': 'x'}"}, "extra"),
    ],
)
def test_bad_values_written_in_the_dag_file_fail_when_the_notifier_is_built(kwargs, named):
    with pytest.raises(MessagingPlatformValidationError, match=f"^{named}: "):
        notifier(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "params", "named"),
    [
        ({"targets": "{{ params.on_call }}"}, {"on_call": ""}, "targets"),
        ({"message": "{{ params.text }}"}, {"text": " "}, "message"),
        ({"channels": "{{ params.long_code }}"}, {"long_code": "['+15125550100']"}, "channels"),
    ],
)
def test_bad_rendered_values_fail_naming_the_parameter_before_any_request(platform, kwargs, params, named):
    context = dag_callback_context(params=params)
    with pytest.raises(MessagingPlatformValidationError, match=f"^{named}: "):
        rendered(notifier(**kwargs), context).notify(context)
    with pytest.raises(MessagingPlatformValidationError, match=f"^{named}: "):
        asyncio.run(rendered(notifier(**kwargs), context).async_notify(context))
    assert placed(platform) == []


def test_a_number_from_native_rendering_is_refused_naming_targets(platform):
    context = {**dag_callback_context(params={"on_call": ON_CALL}), "dag": dag(render_template_as_native_obj=True)}
    with pytest.raises(MessagingPlatformValidationError, match=r"^targets: got the number 15550100007 "):
        rendered(notifier(targets="{{ params.on_call }}"), context).notify(context)
    with pytest.raises(MessagingPlatformValidationError, match=r"^targets: got the number 15550100007 "):
        asyncio.run(rendered(notifier(targets="{{ params.on_call }}"), context).async_notify(context))
    assert placed(platform) == []


def test_a_template_left_unrendered_is_never_spoken(platform):
    """Airflow 3.0 to 3.2 keep a template's text when it renders to nothing; unrendered, it is refused all the same."""
    with pytest.raises(MessagingPlatformValidationError, match="^message: is a template still"):
        notifier(message="{{ params.text }}").notify(dag_callback_context())
    assert placed(platform) == []
