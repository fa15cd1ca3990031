"""
What every operator shares: the connection, the account, the hook, XCom shaping and run-scoped creates.

Kept light for DAG parsing: the hook (and ``requests``) is imported when a task runs, not when a DAG file loads.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from messaging_platform_provider.client.fields import keys
from messaging_platform_provider.hooks.names import DEFAULT_CONN_ID
from messaging_platform_provider.operators.literals import MAP_LABEL, check_literals

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.client.once import CreateOnce
    from messaging_platform_provider.client.operations import Operation
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformBaseOperator",
    "MessagingPlatformCreateOperator",
]


def without_secrets(value: Any, fields: Sequence[str]) -> Any:
    """A copy of an answer with the named secret fields removed, at any depth."""
    if isinstance(value, dict):
        return {k: without_secrets(v, fields) for k, v in value.items() if k not in fields}
    if isinstance(value, list):
        return [without_secrets(v, fields) for v in value]
    return value


def optional_int(field: str, value: Any) -> int | None:
    """A rendered template value as an int (templates render to strings), naming the field when it is not one."""
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if not text.lstrip("-").isdigit():
        from messaging_platform_provider.client.errors import MessagingPlatformValidationError

        raise MessagingPlatformValidationError(field, f"must be a whole number, got {value!r}")
    return int(text)


class MessagingPlatformBaseOperator(BaseOperator):
    """
    Base of every Messaging Platform operator.

    Values written as literals are checked when the operator is built (each operator's ``__init__`` ends with
    ``check_literal_values()``), so a typo fails the DAG file's import naming the parameter; templated values are
    checked when the task runs, before any request. Each operator's ``execute`` calls its hook method inside
    ``failing_fast()`` and returns ``task_result(context, answer)``. Besides its return value, a task whose answer
    has an ``Id`` pushes it under the key ``Id`` too, so ``op.output["Id"]`` feeds a downstream task and keeps the
    dependency.

    A mapped task (``.partial(...).expand(...)``) names its instances after the ids each addressed, or the name it
    gave (``map_label``): ``coupon_list_id=2001, coupon_code=A1``. Give ``map_index_template`` to ``partial`` to
    name them otherwise, or ``None`` for Airflow's numbers.

    :param messaging_platform_conn_id: Airflow connection of type ``messagingplatform`` (templated).
    :param account_id: account to act on (templated); defaults to the connection's Account ID.
    """

    operation: ClassVar[Operation]
    #: XCom keys pushed beside the return value, each read from the answer (``id_xcoms``).
    id_keys: ClassVar[tuple[str, ...]] = ("Id",)
    template_fields: Sequence[str] = ("account_id", "messaging_platform_conn_id")
    ui_color = "#e3f2fd"

    def __init__(
        self,
        *,
        messaging_platform_conn_id: Templated[str] = DEFAULT_CONN_ID,
        account_id: Templated[int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id

    @classmethod
    def partial(cls, **kwargs: Any) -> Any:
        """Airflow's ``partial``, with the readable ``map_index_template`` (``map_label``) unless one is given."""
        kwargs.setdefault("map_index_template", MAP_LABEL)
        return super().partial(**kwargs)

    def check_literal_values(self) -> None:
        """
        Check the values written in the DAG file (``operators/literals.py``): the last line of each operator's
        ``__init__``. An instance Airflow builds from a mapped task (``.expand()``) is left to run time, like a
        template: its values are checked when it runs.
        """
        if getattr(self, "_BaseOperator__from_mapped", False):  # set by Airflow before ``__init__`` runs
            return
        check_literals(self.operation, {name: getattr(self, name, None) for name in self.template_fields})

    @property
    def map_label(self) -> str:
        """How a mapped instance is shown (its ``map_index_template``): the ids it addressed, or the name it gave."""
        return self.addressed()

    def addressed(self) -> str:
        """The ids this task addresses (``coupon_list_id=2001, coupon_code=A1``), else the name it gives."""
        ids = [f"{p}={getattr(self, p)}" for p in self.operation.path_params if getattr(self, p, None) is not None]
        ids = [label for label in ids if not label.startswith("account_id=")]
        if ids:
            return ", ".join(ids)
        for field in ("name", "key_label", "callback_type"):  # never a callback url: it may carry a token
            if getattr(self, field, None):
                return f"{field}={getattr(self, field)}"
        return self.operation.name

    def declared_values(self, body: type) -> dict[str, Any]:
        """The rendered values of a body declaration's fields (``client/bodies.py``), read from the attributes."""
        return {key: getattr(self, key) for key in keys(body)}

    @cached_property
    def hook(self) -> MessagingPlatformHook:
        from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

        return MessagingPlatformHook(self.messaging_platform_conn_id)

    @property
    def account(self) -> int | None:
        """The rendered ``account_id`` as the hook takes it (a template renders to a string)."""
        if self.account_id in (None, ""):
            return None
        value = str(self.account_id).strip()
        return int(value) if value.isdigit() else self.account_id

    @contextmanager
    def failing_fast(self) -> Iterator[None]:
        """
        Around the hook call of ``execute``: an error that a retry cannot change fails the task without its retries
        (``tasks/errors.py``); a transient one keeps them.
        """
        from messaging_platform_provider.tasks.errors import failing_fast

        with failing_fast():
            yield

    def task_result(self, context: Context, answer: Any) -> Any:
        """
        What ``execute`` returns for the hook's ``answer``: logs the task's outcome line, leaves out the secrets
        (``to_xcom``) and pushes the ids beside the return value (``push_ids``).
        """
        if (line := self.outcome_line(answer)) is not None:
            self.log.info(line)
        return self.push_ids(context, self.to_xcom(answer))

    def push_ids(self, context: Context, xcom: Any) -> Any:
        """Push ``id_xcoms(xcom)`` each under its own key; returns ``xcom``, the task's return value."""
        for key, value in self.id_xcoms(xcom).items():
            context["ti"].xcom_push(key=key, value=value)
        return xcom

    def id_xcoms(self, xcom: Any) -> dict[str, Any]:
        """The values pushed under ``id_keys``: those the answer holds."""
        if not isinstance(xcom, dict):
            return {}
        return {key: xcom[key] for key in self.id_keys if xcom.get(key) is not None}

    def outcome_line(self, result: Any) -> str | None:
        """
        The task's one INFO line: the call and what it did, ``update_campaign (campaign_id=3001): updated.``. A
        create logs its own line as it decides (``client/once.py``: created, or adopted from an earlier try); a
        delete that found nothing has already warned.
        """
        operation = self.operation
        if operation.dedupe is not None or (operation.method == "DELETE" and result is False):
            return None
        if isinstance(result, list):
            done = f"read {len(result)} items"
        else:
            done = {"GET": "read", "PUT": "updated", "DELETE": "deleted", "POST": "sent"}[operation.method]
        ids = {name: getattr(self, name, None) for name in operation.path_params}
        return f"{operation.called_with(ids)}: {done}."

    def keeps_task_state(self) -> bool:
        """Whether a try leaves state for the next one (retry-safe creates, rotation); see ``tasks/state.py``."""
        return False

    def post_execute(self, context: Context, result: Any = None) -> None:
        super().post_execute(context, result)
        if self.keeps_task_state():
            from messaging_platform_provider.tasks.state import release_task_state

            release_task_state(context)

    def to_xcom(self, result: Any) -> Any:
        """Never push a secret the platform returned, unless the operator was told to (``include_secret``)."""
        secret_fields = self.operation.secret_fields
        if secret_fields and not getattr(self, "include_secret", False):
            return without_secrets(result, secret_fields)
        return result


class MessagingPlatformCreateOperator(MessagingPlatformBaseOperator):
    """
    Base of the create operators: a retried task finds what an earlier try created instead of creating again.

    :param idempotent: look for the resource an earlier try of this task instance created (default ``True``);
        see ``docs/retry-safe-creates.md`` for how each resource is found.
    """

    def __init__(self, *, idempotent: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.idempotent = idempotent

    def keeps_task_state(self) -> bool:
        return self.idempotent

    def once(self, context: Context) -> CreateOnce | None:
        if not self.idempotent:
            return None
        from messaging_platform_provider.tasks.state import once_for_task

        return once_for_task(context)
