"""Operators for callback records and keyword attachment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import CallbackOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformAttachKeywordCampaignOperator",
    "MessagingPlatformCreateCallbackOperator",
    "MessagingPlatformGetCallbackOperator",
    "MessagingPlatformListCallbacksOperator",
]


class MessagingPlatformCreateCallbackOperator(MessagingPlatformCreateOperator):
    """
    Register a receiver URL for one callback type; returns the record. Templated.

    :param callback_type: Keyword, Dialog, Stop, NewAccount, IncomingMessage (or 1, 3, 6, 8, 11).
    :param url: absolute http(s) URL of the receiver.
    :param idempotent: a record of the same type, URL and state is adopted instead of adding a second one
        (two identical records would deliver every event twice).
    """

    operation = Operations.create_callback
    template_fields = ("account_id", "messaging_platform_conn_id", "callback_type", "url", "active", "extra")

    def __init__(
        self,
        *,
        callback_type: Templated[int],
        url: Templated[str],
        active: Templated[bool] = True,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.callback_type = callback_type
        self.url = url
        self.active = active
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(CallbackOptions)
            answer = self.hook.create_callback(
                self.callback_type,
                self.url,
                extra=self.extra,
                once=self.once(context),
                account_id=self.account,
                **options,
            )
        return self.task_result(context, answer)


class MessagingPlatformListCallbacksOperator(MessagingPlatformBaseOperator):
    """List the account's callback records; returns the list."""

    operation = Operations.list_callbacks

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_callbacks(account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetCallbackOperator(MessagingPlatformBaseOperator):
    """Get one callback record; returns it. ``callback_id`` is templated."""

    operation = Operations.get_callback
    template_fields = ("account_id", "messaging_platform_conn_id", "callback_id")

    def __init__(self, *, callback_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.callback_id = callback_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_callback(self.callback_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformAttachKeywordCampaignOperator(MessagingPlatformBaseOperator):
    """
    Attach a campaign to a keyword of a channel; returns the platform's answer (the keyword). Templated.
    Safe to retry: attaching the same campaign again leaves the same state.

    :param channel: channel id or code.
    :param keyword_id: keyword id (or name).
    :param campaign_id: campaign to attach; sent as the bare JSON integer body.
    """

    operation = Operations.attach_keyword_campaign
    template_fields = ("account_id", "messaging_platform_conn_id", "channel", "keyword_id", "campaign_id")

    def __init__(
        self, *, channel: Templated[int], keyword_id: Templated[int], campaign_id: Templated[int], **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.channel = channel
        self.keyword_id = keyword_id
        self.campaign_id = campaign_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.attach_keyword_campaign(
                self.channel, self.keyword_id, self.campaign_id, account_id=self.account
            )
        return self.task_result(context, answer)
