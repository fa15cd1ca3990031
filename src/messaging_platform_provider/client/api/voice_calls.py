"""Push voice call actions; ``extra`` is merged on top of the body for anything this model does not know."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import PushVoiceCallFields, PushVoiceCallOptions, push_voice_call_rules
from messaging_platform_provider.client.fields import extra_fields, to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations


class VoiceCallApi(ApiBase):
    def list_push_voice_calls(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The account's push voice call actions."""
        return self._many(Operations.list_push_voice_calls, account_id=account_id)

    def get_push_voice_call(self, action_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One push voice call action."""
        return self._one(Operations.get_push_voice_call, account_id=account_id, action_id=action_id)

    def create_push_voice_call(
        self,
        channels: Iterable[str] | str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[PushVoiceCallOptions],
    ) -> dict[str, Any]:
        """
        Create a push voice call action: calls from ``channels`` (long codes or channel ids) to ``targets``
        (E.164 numbers or contact ids), ``contact_list_ids`` or ``targets_url``, speaking ``message`` or playing
        ``audio_url`` (.mp3/.wav). Each of ``schedules`` is a mapping with the keys of ``create_schedule``
        (``schedule_type``, ``run_at``, ``start_from``, ...) or ``run_once_at`` alone.
        """
        values = {"channels": channels, **options}
        body = push_voice_call_rules(to_wire(PushVoiceCallFields, values, None, self._timezone()))
        return self._create(Operations.create_push_voice_call, {**body, **extra_fields(extra)}, once, account_id)

    def delete_push_voice_call(
        self, action_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Stop the action and all its schedules."""
        return self._delete(Operations.delete_push_voice_call, missing_ok, account_id=account_id, action_id=action_id)
