"""
Everything that differs between the Airflow versions the provider supports (3.0, 3.1, 3.2 and 3.3; 3.4.0b2 is as
3.3), found out
here once, by feature rather than by version number. Every other module imports these names from here, but for
the shared streams of event triggers: ``triggers/callback.py`` finds those out itself, because importing them loads
``airflow.triggers``, which a DAG file that imports the operators must not pay for.

What moved or appeared:

| name | 3.0 | 3.1 | 3.2 | 3.3 |
|---|---|---|---|---|
| ``conf`` in ``airflow.sdk`` | ``airflow.configuration`` | ``airflow.configuration`` | yes | yes |
| ``BaseHook`` in ``airflow.sdk`` | ``airflow.hooks.base`` | yes | yes | yes |
| task exceptions in ``airflow.sdk.exceptions`` | ``airflow.exceptions`` | ``airflow.exceptions`` | yes | yes |
| ``BaseHook.aget_connection`` | no (sync lookup in a thread) | yes | yes | yes |
| ``amask_secret`` | no (``mask_secret``) | no | no | yes |
| ``redact`` (in ``airflow.sdk``) | ``execution_time.secrets_masker`` | ``_shared.secrets_masker`` | same | same |
| shared streams for event triggers (``triggers/callback.py``) | no | no | no | yes |
| task state store (``context["task_state_store"]``) | no (a Variable: ``tasks/state.py``) | no | no | yes |
| connection form from provider info (``conn-fields``) | no (the hook's form methods) | no | yes | yes |
| a retry forgets the deferral's resume point | no (``resumed_by_earlier_try``) | yes | yes | yes |
| retry policies (``retry_policy=`` on a task; ``tasks/retry_policy.py``) | no | no | no | yes |
| ``BaseTrigger.on_kill`` (called by Airflow itself; ``triggers/schedule.py``) | never called | never | never | yes |
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.util import find_spec
from typing import Any

try:
    from airflow.sdk import conf
except ImportError:  # Airflow < 3.2
    from airflow.configuration import conf  # type: ignore[assignment]

try:
    from airflow.sdk import BaseHook
except ImportError:  # Airflow 3.0
    from airflow.hooks.base import BaseHook  # type: ignore[no-redef,attr-defined]

try:
    from airflow.sdk.exceptions import (
        AirflowException,
        AirflowFailException,
        AirflowNotFoundException,
        AirflowSensorTimeout,
        AirflowTaskTimeout,
        TaskDeferred,
    )
except ImportError:  # Airflow < 3.2
    from airflow.exceptions import (  # type: ignore[no-redef]
        AirflowException,
        AirflowFailException,
        AirflowNotFoundException,
        AirflowSensorTimeout,
        AirflowTaskTimeout,
        TaskDeferred,
    )

from airflow.sdk.log import mask_secret

try:
    from airflow.sdk._shared.secrets_masker import redact
except ImportError:  # Airflow 3.0
    from airflow.sdk.execution_time.secrets_masker import redact  # type: ignore[no-redef]

try:
    from airflow.sdk.log import amask_secret
except ImportError:  # Airflow < 3.3: the synchronous call, which those versions make safe in async code

    async def amask_secret(secret: Any, name: str | None = None) -> None:  # type: ignore[misc]
        mask_secret(secret, name)


HAVE_RETRY_POLICIES = find_spec("airflow.sdk.definitions.retry_policy") is not None


async def aget_connection(conn_id: str) -> Any:
    """The connection, read without blocking the event loop (Airflow 3.0 has only the synchronous lookup)."""
    lookup = getattr(BaseHook, "aget_connection", None)
    if lookup is not None:
        return await lookup(conn_id)
    from asgiref.sync import sync_to_async

    return await sync_to_async(BaseHook.get_connection)(conn_id)


def connection_form_widgets(conn_fields: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """
    The form fields Airflow before 3.2 asks the hook for, built from the provider info's ``conn-fields`` (3.2+
    reads those itself and never calls the hook). Airflow's form service swaps the WTForms field classes for its
    own while it asks; Airflow 3.1 also stands in for WTForms and Flask-AppBuilder when they are not installed,
    while Airflow 3.0 asks no hook at all without WTForms. Flask-AppBuilder's widget and Flask-Babel's
    translation are used when present; the form service ignores both.
    """
    from wtforms import IntegerField, StringField
    from wtforms.validators import Optional

    try:
        from flask_appbuilder.fieldwidgets import BS3TextFieldWidget

        widget: Any = BS3TextFieldWidget()
    except ImportError:  # Airflow 3.0 with WTForms but without the FAB provider
        widget = None
    try:
        from flask_babel import lazy_gettext as translated
    except ImportError:

        def translated(text: str) -> str:
            return text

    widgets = {}
    for name, field in conn_fields.items():
        kind = IntegerField if "integer" in field["schema"]["type"] else StringField
        widgets[name] = kind(
            translated(field["label"]),
            widget=widget,
            validators=[Optional()],
            description=field.get("description", ""),
        )
    return widgets


def ui_field_behaviour(behaviour: Mapping[str, Any]) -> dict[str, Any]:
    """The provider info's ``ui-field-behaviour`` in the shape Airflow before 3.2 asks the hook for."""
    return {key.replace("-", "_"): value for key, value in behaviour.items()}


__all__ = [
    "AirflowException",
    "AirflowFailException",
    "AirflowNotFoundException",
    "AirflowSensorTimeout",
    "AirflowTaskTimeout",
    "BaseHook",
    "HAVE_RETRY_POLICIES",
    "TaskDeferred",
    "aget_connection",
    "amask_secret",
    "conf",
    "connection_form_widgets",
    "mask_secret",
    "redact",
    "ui_field_behaviour",
]
