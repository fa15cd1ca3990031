"""Operators for push voice call actions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.operators.base import (
    BASE_TEMPLATE_FIELDS,
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.waiting.completion import WAIT_ARGUMENTS, WAIT_TEMPLATE_FIELDS, WaitForSchedulesMixin

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook

_CALL_FIELDS = (
    "channels",
    "targets",
    "contact_list_ids",
    "targets_url",
    "exclude_list_ids",
    "message",
    "audio_url",
    "campaign_id",
    "schedules",
    "extra",
)  # not ``execute``: that name is the operator's own method, so it cannot be a template field


class MessagingPlatformListPushVoiceCallsOperator(MessagingPlatformBaseOperator):
    """List the account's push voice call actions; returns the list."""

    operation = "list_push_voice_calls"

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.list_push_voice_calls(account_id=self.account)


class MessagingPlatformGetPushVoiceCallOperator(MessagingPlatformBaseOperator):
    """Get one push voice call action; returns it. ``action_id`` is templated."""

    operation = "get_push_voice_call"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id")

    def __init__(self, *, action_id: int | str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.get_push_voice_call(self.action_id, account_id=self.account)


class MessagingPlatformCreatePushVoiceCallOperator(WaitForSchedulesMixin, MessagingPlatformCreateOperator):
    """
    Create a push voice call action; returns it. Every field is templated.

    :param channels: long codes or channel ids to call from.
    :param targets: E.164 numbers or contact ids; or give ``contact_list_ids`` or ``targets_url``.
    :param message: text to speak; or ``audio_url`` (.mp3/.wav), exactly one of the two.
    :param execute: run the action as soon as it is created (not templated).
    :param schedules: schedule request objects (PascalCase, spec 2.1) created with the action.
    :param extra: further request fields, merged on top (the spec does not show this body).
    :param idempotent: a retry adopts an action with the same targets and content created after the first try
        began (needs Airflow's task state store, 3.3+; without it a retry sends the create again).
    :param wait_for_completion: wait until every schedule of the new action has a terminal ProcessStatus; the
        XCom's ``Schedules`` are then the schedules as last read. Same wait options as the schedule create.
    """

    operation = "create_push_voice_call"
    template_fields = (*BASE_TEMPLATE_FIELDS, *_CALL_FIELDS, *WAIT_TEMPLATE_FIELDS)

    def __init__(
        self,
        *,
        channels: Iterable[str] | str,
        targets: Iterable[str] | None = None,
        contact_list_ids: Iterable[int] | None = None,
        targets_url: str | None = None,
        exclude_list_ids: Iterable[int] | None = None,
        message: str | None = None,
        audio_url: str | None = None,
        campaign_id: int | None = None,
        execute: bool | None = None,
        schedules: Iterable[Mapping[str, Any]] | None = None,
        extra: Mapping[str, Any] | None = None,
        wait_for_completion: bool = False,
        deferrable: bool | None = None,
        poll_interval: float = 10.0,
        wait_timeout: float | None = None,
        success_statuses: Iterable[str] | None = None,
        failure_statuses: Iterable[str] | None = None,
        max_transient_errors: int = 5,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        args = locals()
        self._init_wait(**{name: args[name] for name in WAIT_ARGUMENTS})
        self._keep(locals(), _CALL_FIELDS)
        self.execute_now = execute

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        action = self._create(hook, context)
        schedule_ids = [str(s["Id"]) for s in action.get("Schedules") or []]
        return self.wait_for(context, action["Id"], schedule_ids, action)

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        latest = [schedules.get(str(s["Id"]), s) for s in result.get("Schedules") or []]
        return {**result, "Schedules": latest}

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        return self.hook.get_push_voice_call(event["action_id"], account_id=self.account)

    def _create(self, hook: MessagingPlatformHook, context: Context) -> dict[str, Any]:
        return hook.create_push_voice_call(
            **self._kept(_CALL_FIELDS), execute=self.execute_now, once=self.once(context), account_id=self.account
        )


class MessagingPlatformDeletePushVoiceCallOperator(MessagingPlatformBaseOperator):
    """Stop a push voice call action and all its schedules; returns ``True``, or ``False`` if already gone."""

    operation = "delete_push_voice_call"
    template_fields = (*BASE_TEMPLATE_FIELDS, "action_id")

    def __init__(self, *, action_id: int | str, missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.missing_ok = missing_ok

    def run(self, hook: MessagingPlatformHook, context: Context) -> Any:
        return hook.delete_push_voice_call(self.action_id, missing_ok=self.missing_ok, account_id=self.account)
