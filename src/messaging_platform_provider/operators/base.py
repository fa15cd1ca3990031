"""
What every operator shares: the connection, the account, the hook, XCom shaping and run-scoped creates.

Kept light for DAG parsing: the hook (and ``requests``) is imported when a task runs, not when a DAG file loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

from airflow.sdk import BaseOperator

from messaging_platform_provider.client.fields import keys
from messaging_platform_provider.hooks.names import DEFAULT_CONN_ID

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.client.once import CreateOnce
    from messaging_platform_provider.client.operations import Operation
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

__all__ = [
    "MessagingPlatformBaseOperator",
    "MessagingPlatformCreateOperator",
]

BASE_TEMPLATE_FIELDS: tuple[str, ...] = ("account_id",)


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

    :param messaging_platform_conn_id: Airflow connection of type ``messaging_platform``.
    :param account_id: account to act on (templated); defaults to the connection's Account ID.
    """

    operation: ClassVar[Operation]
    template_fields: Sequence[str] = BASE_TEMPLATE_FIELDS
    ui_color = "#e3f2fd"

    def __init__(
        self,
        *,
        messaging_platform_conn_id: str = DEFAULT_CONN_ID,
        account_id: int | str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id

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
        return int(value) if value.isdigit() else self.account_id  # type: ignore[return-value]

    def execute(self, context: Context) -> Any:
        from messaging_platform_provider.task_errors import failing_fast

        with failing_fast():
            result = self.run(self.hook, context)
        if (line := self.outcome_line(result)) is not None:
            self.log.info(line)
        return self.to_xcom(result)

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
        """Whether a try leaves state for the next one (retry-safe creates, rotation); see ``task_state.py``."""
        return False

    def post_execute(self, context: Context, result: Any = None) -> None:
        super().post_execute(context, result)
        if self.keeps_task_state():
            from messaging_platform_provider.task_state import release_task_state

            release_task_state(context)

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        """Call the hook method of ``operation``; the answer goes through ``to_xcom``."""
        raise NotImplementedError

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
        from messaging_platform_provider.client.once import CreateOnce

        return CreateOnce.for_context(context)
