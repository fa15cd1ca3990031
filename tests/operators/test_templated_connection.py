"""``messaging_platform_conn_id`` is templated on every operator and the schedule sensor: a run picks its connection."""

from __future__ import annotations

import pytest

from messaging_platform_provider.operators import MessagingPlatformListApiKeysOperator
from messaging_platform_provider.sensors.schedule import MessagingPlatformScheduleSensor
from tests.operators.test_operator_shape import OPERATOR_CLASSES
from tests.support.operator_context import run


@pytest.mark.parametrize("cls", [*OPERATOR_CLASSES, MessagingPlatformScheduleSensor], ids=lambda c: c.__name__)
def test_the_connection_id_is_a_template_field(cls: type) -> None:
    assert "messaging_platform_conn_id" in cls.template_fields


def test_a_rendered_connection_id_is_the_connection_the_task_uses(platform, monkeypatch) -> None:
    # A second connection to the same account, under a name only the template gives.
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_TENANT_B", platform.connection_json())
    monkeypatch.setenv("AIRFLOW_CONN_MESSAGING_PLATFORM_DEFAULT", platform.connection_json(password="wrong"))
    op = MessagingPlatformListApiKeysOperator(
        task_id="keys", messaging_platform_conn_id="messaging_platform_{{ params.tenant }}"
    )
    op.render_template_fields({"params": {"tenant": "tenant_b"}})
    assert op.messaging_platform_conn_id == "messaging_platform_tenant_b"
    keys = run(op)  # the default connection's secret is wrong: only the rendered connection can list the keys
    assert platform.seed.api_key in [key["Key"] for key in keys]
