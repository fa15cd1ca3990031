"""
Push voice call actions (spec 4.5). The spec shows no body; the typed fields follow the push-campaign
action of the platform facts, and ``extra`` is merged on top for anything this model does not know.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from messaging_platform_provider.client.api.base import ApiBase, fields_to_body
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.schedules import schedule_body
from messaging_platform_provider.client.values import http_url, int_list, positive_int, string_list

VOICE_CALL_FIELDS = {
    "channels": "Channels",
    "targets": "Targets",
    "contact_list_ids": "ContactListIds",
    "targets_url": "TargetsUrl",
    "exclude_list_ids": "ExcludeListIds",
    "message": "Message",
    "audio_url": "AudioUrl",
    "campaign_id": "CampaignId",
    "execute": "Execute",
    "schedules": "Schedules",
}
AUDIO_SUFFIXES = (".mp3", ".wav")


def _schedule(item: Mapping[str, Any], platform_timezone: str) -> dict[str, Any]:
    known = ("ScheduleTypeId", "RunAt", "StartFrom", "EndAfter", "WeekDay", "MonthDay")
    return schedule_body(
        item.get("ScheduleTypeId", ""),
        item.get("RunAt"),
        item.get("StartFrom"),
        end_after=item.get("EndAfter"),
        week_day=item.get("WeekDay"),
        month_day=item.get("MonthDay"),
        platform_timezone=platform_timezone,
        extra={k: v for k, v in item.items() if k not in known},
    )


def voice_call_body(
    fields: Mapping[str, Any], extra: Mapping[str, Any] | None, platform_timezone: str
) -> dict[str, Any]:
    body = fields_to_body(fields, VOICE_CALL_FIELDS, None)
    body["Channels"] = string_list("Channels", body.get("Channels") or [])
    if not body["Channels"]:
        raise MessagingPlatformValidationError("Channels", "needs at least one long code or channel id")
    if "Targets" in body:
        body["Targets"] = string_list("Targets", body["Targets"])
    for name in ("ContactListIds", "ExcludeListIds"):
        if name in body:
            body[name] = int_list(name, body[name])
    if "TargetsUrl" in body:
        body["TargetsUrl"] = http_url("TargetsUrl", body["TargetsUrl"])
    if not (body.get("Targets") or body.get("ContactListIds") or body.get("TargetsUrl")):
        raise MessagingPlatformValidationError(
            "Targets", "the call needs someone to call", ["Targets", "ContactListIds", "TargetsUrl"]
        )
    if ("Message" in body) == ("AudioUrl" in body):
        raise MessagingPlatformValidationError("Message", "give exactly one of Message (text to speak) or AudioUrl")
    if "AudioUrl" in body:
        body["AudioUrl"] = http_url("AudioUrl", body["AudioUrl"], AUDIO_SUFFIXES)
    elif not str(body["Message"]).strip():
        raise MessagingPlatformValidationError("Message", "must not be empty")
    if "CampaignId" in body:
        body["CampaignId"] = positive_int("CampaignId", body["CampaignId"])
    if "Schedules" in body:
        body["Schedules"] = [_schedule(item, platform_timezone) for item in body["Schedules"]]
    body.update(extra or {})
    return body


class VoiceCallApi(ApiBase):
    def list_push_voice_calls(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        return self._many("list_push_voice_calls", account_id=account_id)

    def get_push_voice_call(self, action_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        return self._one("get_push_voice_call", account_id=account_id, action_id=action_id)

    def create_push_voice_call(
        self,
        channels: Iterable[str] | str,
        *,
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
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """
        Create a push voice call action: calls from ``channels`` (long codes or channel ids) to ``targets``
        (E.164 numbers or contact ids), ``contact_list_ids`` or ``targets_url``, speaking ``message`` or playing
        ``audio_url`` (.mp3/.wav). ``schedules`` are schedule request objects (PascalCase, as in spec 2.1).
        """
        body = voice_call_body(locals(), extra, self._timezone())
        return self._create("create_push_voice_call", body, once, account_id)

    def delete_push_voice_call(
        self, action_id: int | str, *, missing_ok: bool = True, account_id: int | None = None
    ) -> bool:
        """Stop the action and all its schedules."""
        return self._delete("delete_push_voice_call", missing_ok, account_id=account_id, action_id=action_id)
