"""Operators for push voice call actions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import PushVoiceCallOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.operators.links import MessagingPlatformPushVoiceCallLink
from messaging_platform_provider.waiting.completion import WaitForSchedulesMixin

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.client.once import CreateOnce
    from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreatePushVoiceCallOperator",
    "MessagingPlatformDeletePushVoiceCallOperator",
    "MessagingPlatformGetPushVoiceCallOperator",
    "MessagingPlatformListPushVoiceCallsOperator",
]


class MessagingPlatformListPushVoiceCallsOperator(MessagingPlatformBaseOperator):
    """List the account's push voice call actions; returns the list."""

    operation = Operations.list_push_voice_calls

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_push_voice_calls(account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetPushVoiceCallOperator(MessagingPlatformBaseOperator):
    """Get one push voice call action; returns it. ``action_id`` is templated."""

    operation = Operations.get_push_voice_call
    template_fields = ("account_id", "messaging_platform_conn_id", "action_id")

    def __init__(self, *, action_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_push_voice_call(self.action_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformCreatePushVoiceCallOperator(WaitForSchedulesMixin, MessagingPlatformCreateOperator):
    """
    Create a push voice call action; returns it. Every field is templated.

    :param channels: long codes or channel ids to call from, as text (``"+15125550100"``, ``"22"``).
    :param targets: E.164 numbers or contact ids, as text; or give ``contact_list_ids`` or ``targets_url``. A
        number in ``channels`` or ``targets`` is refused: ``render_template_as_native_obj=True`` turns a template's
        ``+15125550100`` into the number 15125550100; see the error for how to keep it text.
    :param message: text to speak; or ``audio_url`` (.mp3/.wav), exactly one of the two.
    :param execute_now: run the action as soon as it is created (the platform's ``Execute``).
    :param schedules: schedules created with the action, each a mapping with the keys of
        ``MessagingPlatformCreateScheduleOperator`` (``schedule_type``, ``run_at``, ``start_from``, ``end_after``,
        ``week_day``, ``month_day``) or ``run_once_at`` alone.
    :param extra: further request fields, merged on top.
    :param idempotent: a retry adopts an action with the same targets and content created after the first try
        began (needs Airflow's task state store, 3.3+; without it a retry sends the create again).
    :param wait_for_completion: wait until every schedule of the new action has a terminal ProcessStatus; the
        XCom's ``Schedules`` are then the schedules as last read. The other wait options: ``WaitForSchedulesMixin``.
    :param stop_on_kill: when Airflow kills the task (marked failed or success, cleared, ``execution_timeout``),
        delete the action it created, which stops the call (default ``True``; see ``WaitForSchedulesMixin``).
    """

    operation = Operations.create_push_voice_call
    operator_extra_links = (MessagingPlatformPushVoiceCallLink(),)
    template_fields = (
        "account_id", "messaging_platform_conn_id", "channels", "targets", "contact_list_ids", "targets_url",
        "exclude_list_ids", "message", "audio_url", "campaign_id", "execute_now", "schedules", "extra", "wait_timeout",
    )  # fmt: skip

    def __init__(
        self,
        *,
        channels: Templated[Iterable[str] | str],
        targets: Templated[Iterable[str]] | None = None,
        contact_list_ids: Templated[Iterable[int]] | None = None,
        targets_url: Templated[str] | None = None,
        exclude_list_ids: Templated[Iterable[int]] | None = None,
        message: Templated[str] | None = None,
        audio_url: Templated[str] | None = None,
        campaign_id: Templated[int] | None = None,
        execute_now: Templated[bool] | None = None,
        schedules: Templated[Iterable[Mapping[str, Any]]] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.channels = channels
        self.targets = targets
        self.contact_list_ids = contact_list_ids
        self.targets_url = targets_url
        self.exclude_list_ids = exclude_list_ids
        self.message = message
        self.audio_url = audio_url
        self.campaign_id = campaign_id
        self.execute_now = execute_now
        self.schedules = schedules
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        from messaging_platform_provider.tasks.started_work import StartedWork

        with self.failing_fast():
            self.wait_seconds()  # a wait_timeout that is no number is refused before the create is sent
            once = self.once(context)
            action = self._create(self.hook, once)
            self.remember_started(once, action["Id"], StartedWork.action(action["Id"]))  # what a kill stops
            schedule_ids = [str(s["Id"]) for s in action.get("Schedules") or []]
            answer = self.wait_for(context, action["Id"], schedule_ids, action)
        return self.task_result(context, answer)

    def id_xcoms(self, xcom: Any) -> dict[str, Any]:
        """
        ``Id``; ``ScheduleIds``, the ids of the schedules made with the action; and ``ScheduleId`` when there is
        exactly one (what a sensor downstream takes).
        """
        ids = super().id_xcoms(xcom)
        schedules = xcom.get("Schedules") if isinstance(xcom, dict) else None
        if schedules:
            ids["ScheduleIds"] = [schedule["Id"] for schedule in schedules]
            if len(schedules) == 1:
                ids["ScheduleId"] = schedules[0]["Id"]
        return ids

    def with_final(self, result: Any, schedules: dict[str, Any]) -> Any:
        latest = [schedules.get(str(s["Id"]), s) for s in result.get("Schedules") or []]
        return {**result, "Schedules": latest}

    def recover_result(self, event: dict[str, Any], schedules: dict[str, Any]) -> Any:
        return self.hook.get_push_voice_call(event["action_id"], account_id=self.account)

    def _create(self, hook: MessagingPlatformHook, once: CreateOnce | None) -> dict[str, Any]:
        options = self.declared_values(PushVoiceCallOptions)
        return hook.create_push_voice_call(
            self.channels, extra=self.extra, once=once, account_id=self.account, **options
        )


class MessagingPlatformDeletePushVoiceCallOperator(MessagingPlatformBaseOperator):
    """Stop a push voice call action and all its schedules; returns ``True``, or ``False`` if already gone."""

    operation = Operations.delete_push_voice_call
    template_fields = ("account_id", "messaging_platform_conn_id", "action_id")

    def __init__(self, *, action_id: Templated[int], missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.action_id = action_id
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.delete_push_voice_call(
                self.action_id, missing_ok=self.missing_ok, account_id=self.account
            )
        return self.task_result(context, answer)
