"""Push voice call action rules: create (with inline schedules), read, and delete (stops it and its schedules).

A call is placed from long codes of the account (``Channels``: the code in E.164 form or its channel id) to lists
of the account (``ContactListIds``, ``ExcludeListIds``), with a campaign of the account: a reference to anything
else is refused with 400 naming the property. Targets that are not phone numbers may be contact ids; the platform
judges targets when the call runs (a push has ``IgnoreInvalidTargets``), so they are not looked up here.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

from ..models import (
    ACTION_TYPE_PUSH_VOICE_CALL,
    AUDIT_PROPERTIES,
    STATUS_DELETED,
    Action,
    ApiKey,
    Audit,
    ScheduleFields,
    VoiceCall,
    VoiceCallFields,
)
from ..store import Store
from ..validation import Body, parse_json_object
from .access import find_campaign, owned_rows, require_account, require_owned
from .channels import ChannelService
from .schedules import OBJECT_TYPE as SCHEDULE_OBJECT_TYPE, ScheduleService, collect_schedule_fields

OBJECT_TYPE = "ActionPushVoiceCall"
NOT_FOUND_TYPE = "Action"
AUDIO_SUFFIXES = (".mp3", ".wav")
TARGET_SOURCES = ("Targets", "ContactListIds", "TargetsUrl")
_E164 = re.compile(r"^\+[1-9]\d{6,14}$")
_ID = re.compile(r"^[0-9]+$")


def _phone_or_id(text: str) -> bool:
    return bool(_E164.match(text) or _ID.match(text))


def _given(body: Body, name: str) -> bool:
    """The property holds something: not null, not an empty list, not a blank string."""
    value = body.raw(name)
    return bool(value.strip()) if isinstance(value, str) else value not in (None, [])


def _check_channels(body: Body, channels: ChannelService, account_id: int, given: list[str]) -> None:
    """Each channel is a long code of the account (by code or channel id)."""
    for index, text in enumerate(given):
        found = channels.find(account_id, text)
        if found is None:
            hint = f" (a long code is written in E.164 form, +{text})" if text.isdigit() and len(text) > 7 else ""
            body.invalid("Channels", f"Channels[{index}]: account {account_id} has no channel {text}{hint}.")
        elif not found.long_code:
            body.invalid(
                "Channels",
                f"Channels[{index}]: channel {found.id} is the short code {found.code}; a voice call is placed from "
                "a long code.",
            )


def _check_lists(body: Body, store: Store, account_id: int, name: str, given: list[int] | None) -> None:
    """Each id is a contact list of the account."""
    for index, list_id in enumerate(given or []):
        found = store.tables.contact_lists.get(list_id)
        if found is None or found.account_id != account_id:
            body.invalid(name, f"{name}[{index}]: account {account_id} has no contact list {list_id}.")


def read_voice_call(
    body: Body, store: Store, channel_service: ChannelService, account_id: int
) -> VoiceCallFields | None:
    """The voice call fields of a create body; problems collected in ``body``."""
    channels = body.string_list(
        "Channels", required=True, accept=_phone_or_id, rule="a long code such as +15125550100 or a channel id"
    )
    if channels is not None:
        _check_channels(body, channel_service, account_id, channels)
    targets = body.string_list(
        "Targets", accept=_phone_or_id, rule="an E.164 phone number such as +15125550100 or a contact id"
    )
    contact_list_ids = body.integer_list("ContactListIds", minimum=1)
    _check_lists(body, store, account_id, "ContactListIds", contact_list_ids)
    exclude_list_ids = body.integer_list("ExcludeListIds", minimum=1)
    _check_lists(body, store, account_id, "ExcludeListIds", exclude_list_ids)
    targets_url = body.url("TargetsUrl")
    if not any(_given(body, name) for name in TARGET_SOURCES):
        body.missing("Targets", "At least one of Targets, ContactListIds or TargetsUrl is required.")

    message = body.string("Message")
    audio_url = body.url("AudioUrl")
    if audio_url is not None and not urlsplit(audio_url).path.lower().endswith(AUDIO_SUFFIXES):
        body.invalid("AudioUrl", f"AudioUrl must point to an .mp3 or .wav file; got {audio_url!r}.")
    if _given(body, "Message") and _given(body, "AudioUrl"):
        body.invalid("Message", "Give exactly one of Message (text to speak) or AudioUrl (an .mp3 or .wav file).")
    elif not _given(body, "Message") and not _given(body, "AudioUrl"):
        body.missing("Message", "One of Message (text to speak) or AudioUrl (an .mp3 or .wav file) is required.")

    campaign_id = body.integer("CampaignId")
    if campaign_id is not None and find_campaign(store, account_id, campaign_id) is None:
        body.invalid("CampaignId", f"Campaign {campaign_id} was not found.")
    execute = body.boolean("Execute")
    body.ignore("Id", "AccountId", "StatusId", *AUDIT_PROPERTIES)
    if channels is None:
        return None
    return VoiceCallFields(
        channels=channels,
        targets=targets or [],
        contact_list_ids=contact_list_ids or [],
        exclude_list_ids=exclude_list_ids or [],
        targets_url=targets_url,
        message=message or None,
        audio_url=audio_url,
        campaign_id=campaign_id,
        execute=bool(execute),
    )


def read_schedules(body: Body) -> list[ScheduleFields]:
    """Inline Schedules, each validated like a schedule request."""
    schedules = []
    for child in body.object_list("Schedules", SCHEDULE_OBJECT_TYPE) or []:
        fields = collect_schedule_fields(child)
        if fields is not None:
            schedules.append(fields)
    return schedules


class VoiceCallService:
    def __init__(self, store: Store, schedules: ScheduleService, channels: ChannelService) -> None:
        self._store = store
        self._schedules = schedules
        self._channels = channels

    def _find(self, key: ApiKey, account_id: int, action_id: int) -> VoiceCall:
        calls = self._store.tables.voice_calls
        return require_owned(self._store, key, account_id, calls, action_id, NOT_FOUND_TYPE, _deleted)

    def _render(self, call: VoiceCall) -> dict[str, Any]:
        now = self._store.now()
        return call.to_api([s.to_api(now) for s in self._schedules.of_action(call.action.id)])

    def list(self, key: ApiKey, account_id: int) -> list[dict[str, Any]]:
        with self._store.lock:
            calls = owned_rows(self._store, key, account_id, self._store.tables.voice_calls.values())
            return [self._render(c) for c in calls if not c.deleted]

    def get(self, key: ApiKey, account_id: int, action_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._render(self._find(key, account_id, action_id))

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        """A new action (id from the action counter) with its inline schedules."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            fields = read_voice_call(body, self._store, self._channels, account_id)
            schedules = read_schedules(body)
            body.check()
            assert fields is not None
            now = self._store.now()
            action = Action(
                self._store.next_id("action"), account_id, ACTION_TYPE_PUSH_VOICE_CALL, Audit.new(now, key.principal)
            )
            self._store.tables.actions[action.id] = action
            call = VoiceCall(action, fields)
            self._store.tables.voice_calls[action.id] = call
            for schedule in schedules:
                self._schedules.add(account_id, action.id, schedule, key.principal)
            return self._render(call)

    def delete(self, key: ApiKey, account_id: int, action_id: int) -> dict[str, Any]:
        """Stop the action: schedules not yet ended become Aborted, the action StatusId 2 (then gone)."""
        with self._store.lock:
            call = self._find(key, account_id, action_id)
            self._schedules.abort_all(action_id, key.principal)
            call.action.status_id = STATUS_DELETED
            call.action.audit.touch(self._store.now(), key.principal)
            return self._render(call)


def _deleted(call: VoiceCall) -> bool:
    return call.deleted
