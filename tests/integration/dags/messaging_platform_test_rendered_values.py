"""
Test DAGs (not examples): values that Airflow's rendering gives the wrong shape are refused before any request,
and the advice the refusal gives works (``tests/operators/test_rendered_values.py`` runs both).

``messaging_platform_test_native_rendering`` sets ``render_template_as_native_obj=True``: Airflow then reads every
text of a templated field as a Python literal, a template's or one written out, and ``+15125550100`` becomes the
number 15125550100, which ``channels`` refuses; in quotes inside the text, or through ``| tojson``, it stays text.
``messaging_platform_test_text_rendering`` does not: its rendering makes a list the text of a list, which
``targets`` refuses. Every task may retry twice: a refusal ends it on its first try all the same.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from airflow.sdk import DAG

from messaging_platform_provider.operators import MessagingPlatformCreatePushVoiceCallOperator

DEFAULTS = {"retries": 2, "retry_delay": timedelta(seconds=0)}
PARAMS = {"from_long_code": "+15125550100", "numbers": ["+15550100001", "+15550100002"]}
START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def call(task_id: str, *, channels: object, targets: object) -> None:
    MessagingPlatformCreatePushVoiceCallOperator(task_id=task_id, channels=channels, targets=targets, message="Hi")


with DAG(
    dag_id="messaging_platform_test_native_rendering",
    schedule=None,
    start_date=START,
    default_args=DEFAULTS,
    params=PARAMS,
    render_template_as_native_obj=True,
    tags=["test"],
):
    one = ["'+15550100001'"]  # in quotes: native rendering reads even a number written out
    call("template", channels=["{{ params.from_long_code }}"], targets=one)  # 15125550100: refused
    call("string_filter", channels=["{{ params.from_long_code | string }}"], targets=one)  # the same: refused
    call("written_out", channels=["+15125550100"], targets=one)  # the same: refused
    call("quoted_template", channels=["'{{ params.from_long_code }}'"], targets=one)  # '+15125550100'
    call("quoted_written_out", channels=["'+15125550100'"], targets=one)  # '+15125550100'
    call("tojson", channels="{{ params.from_long_code | tojson }}", targets=one)  # '+15125550100'
    call("list_param", channels="{{ params.from_long_code | tojson }}", targets="{{ params.numbers }}")  # a list

with DAG(
    dag_id="messaging_platform_test_text_rendering",
    schedule=None,
    start_date=START,
    default_args=DEFAULTS,
    params=PARAMS,
    tags=["test"],
):
    call("list_param", channels=["{{ params.from_long_code }}"], targets="{{ params.numbers }}")  # "[…]": refused
