"""
Operators for API keys. A secret the platform returns is masked at once and left out of XCom unless the
operator is given ``include_secret=True`` (then it is in XCom, masked in logs: the DAG author's choice).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import ApiKeyOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformChangeApiKeySecretOperator",
    "MessagingPlatformCreateApiKeyOperator",
    "MessagingPlatformGetApiKeyOperator",
    "MessagingPlatformListApiKeysOperator",
    "MessagingPlatformRevokeApiKeyOperator",
]


class MessagingPlatformListApiKeysOperator(MessagingPlatformBaseOperator):
    """List the account's API keys (the platform sends no secrets here); returns the list."""

    operation = Operations.list_api_keys

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_api_keys(account_id=self.account)
        return self.task_result(context, answer)


class _SecretAnswer:
    """
    For the operations that answer with a key's secret. Put before the operator base class.

    :param include_secret: push the ``Secret`` to XCom (masked in logs); by default it is left out.
    """

    def __init__(self, *, include_secret: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.include_secret = include_secret


class MessagingPlatformGetApiKeyOperator(_SecretAnswer, MessagingPlatformBaseOperator):
    """
    Get one API key; returns it without ``Secret`` unless ``include_secret=True``. ``key_id`` is templated.
    """

    operation = Operations.get_api_key
    template_fields = ("account_id", "messaging_platform_conn_id", "key_id")

    def __init__(self, *, key_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key_id = key_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_api_key(self.key_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformCreateApiKeyOperator(_SecretAnswer, MessagingPlatformCreateOperator):
    """
    Create an API key; returns it without ``Secret`` unless ``include_secret=True``. Templated.

    :param key_label: the key's ``Label`` (``label`` is taken by Airflow for the task's own label).
    :param key_type: Common or Temporary (or 2, 3).
    :param valid_to: Temporary only (required there): when the key expires.
    :param idempotent: a retry finds the key by a run marker appended to ``Label`` and re-reads its secret.
    """

    operation = Operations.create_api_key
    template_fields = ("account_id", "messaging_platform_conn_id", "key_label", "key_type", "valid_to", "extra")

    def __init__(
        self,
        *,
        key_label: Templated[str],
        key_type: Templated[int] = "Common",
        valid_to: Any = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.key_label = key_label
        self.key_type = key_type
        self.valid_to = valid_to
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(ApiKeyOptions)
            answer = self.hook.create_api_key(
                self.key_label, extra=self.extra, once=self.once(context), account_id=self.account, **options
            )
        return self.task_result(context, answer)


class MessagingPlatformChangeApiKeySecretOperator(_SecretAnswer, MessagingPlatformBaseOperator):
    """
    Have the platform generate a new secret for a key; the old secret stops working at once. Returns the key
    without ``Secret`` unless ``include_secret=True``. For rotation that cannot lock anyone out, use the
    rotation operator instead: this one does not store the new secret anywhere.
    """

    operation = Operations.change_api_key_secret
    template_fields = ("account_id", "messaging_platform_conn_id", "key_id")

    def __init__(self, *, key_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key_id = key_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.change_api_key_secret(self.key_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformRevokeApiKeyOperator(MessagingPlatformBaseOperator):
    """Revoke an API key; returns ``True``, or ``False`` if it was already revoked or unknown."""

    operation = Operations.revoke_api_key
    template_fields = ("account_id", "messaging_platform_conn_id", "key_id")

    def __init__(self, *, key_id: Templated[int], missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.key_id = key_id
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.revoke_api_key(self.key_id, missing_ok=self.missing_ok, account_id=self.account)
        return self.task_result(context, answer)
