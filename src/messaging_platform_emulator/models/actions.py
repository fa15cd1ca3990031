"""Actions, their schedules, and the push voice call action."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..lifecycle import RunPlan
from .base import STATUS_ACTIVE, Audit, SoftDeletable, optional_timestamp

# ActionType 3 PushCampaign; the seeded action is of this type. No source gives a voice call ActionType, so the
# emulator uses 15 (the next number after the last known one, 14 KillCampaignPush); it is never shown.
ACTION_TYPE_PUSH_CAMPAIGN = 3
ACTION_TYPE_PUSH_VOICE_CALL = 15

# ScheduleType values the emulator accepts, with their names.
SCHEDULE_ONE_TIME = 2
SCHEDULE_DAILY = 6
SCHEDULE_WEEKLY = 7
SCHEDULE_MONTHLY = 8
SCHEDULE_TYPES = {
    SCHEDULE_ONE_TIME: "OneTime",
    SCHEDULE_DAILY: "Daily",
    SCHEDULE_WEEKLY: "Weekly",
    SCHEDULE_MONTHLY: "Monthly",
}

NOT_APPLICABLE = "*"


@dataclass
class Action(SoftDeletable):
    id: int
    account_id: int
    type_id: int
    audit: Audit
    status_id: int = STATUS_ACTIVE

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "TypeId": self.type_id,
            "StatusId": self.status_id,
            **self.audit.to_api(),
        }


@dataclass
class ScheduleFields:
    """The client-supplied part of a schedule (create and PUT carry all of it)."""

    schedule_type_id: int
    run_at: str
    start_from: datetime
    end_after: datetime | None = None
    week_day: str = NOT_APPLICABLE
    month_day: str = NOT_APPLICABLE


@dataclass
class Schedule:
    id: int
    account_id: int
    action_id: int
    fields: ScheduleFields
    audit: Audit
    plan: RunPlan = field(repr=False)

    def process_status(self, now: datetime) -> str:
        return self.plan.status(now)

    def to_api(self, now: datetime) -> dict[str, Any]:
        f = self.fields
        return {
            "Id": self.id,
            **self.audit.to_api(),
            "AccountId": self.account_id,
            "ActionId": self.action_id,
            "ScheduleTypeId": f.schedule_type_id,
            "ScheduleType": SCHEDULE_TYPES.get(f.schedule_type_id, str(f.schedule_type_id)),
            "RunAt": f.run_at,
            "StartFrom": optional_timestamp(f.start_from),
            "EndAfter": optional_timestamp(f.end_after),
            "WeekDay": f.week_day,
            "MonthDay": f.month_day,
            "ProcessStatus": self.plan.status(now),
            "Logs": self.plan.logs(now),
        }


@dataclass
class VoiceCallFields:
    """The client-supplied part of a push voice call action."""

    channels: list[str]
    targets: list[str] = field(default_factory=list)
    contact_list_ids: list[int] = field(default_factory=list)
    exclude_list_ids: list[int] = field(default_factory=list)
    targets_url: str | None = None
    message: str | None = None
    audio_url: str | None = None
    campaign_id: int | None = None
    execute: bool = False


@dataclass
class VoiceCall:
    """A push voice call: its generic ``Action`` (also in the actions table) plus what to call and say."""

    action: Action
    fields: VoiceCallFields

    @property
    def account_id(self) -> int:
        return self.action.account_id

    @property
    def deleted(self) -> bool:
        return self.action.deleted

    def to_api(self, schedules: list[dict[str, Any]]) -> dict[str, Any]:
        action, f = self.action, self.fields
        return {
            "Id": action.id,
            "AccountId": action.account_id,
            "StatusId": action.status_id,
            "Channels": list(f.channels),
            "Targets": list(f.targets),
            "ContactListIds": list(f.contact_list_ids),
            "ExcludeListIds": list(f.exclude_list_ids),
            "TargetsUrl": f.targets_url,
            "Message": f.message,
            "AudioUrl": f.audio_url,
            "CampaignId": f.campaign_id,
            "Execute": f.execute,
            "Schedules": schedules,
            **action.audit.to_api(),
        }
