"""In-memory records of platform resources, each rendering its PascalCase API form.

Times are naive UTC datetimes from the emulator clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .clock import format_timestamp
from .lifecycle import RunPlan

# ResourceStatus of soft-deletable resources.
STATUS_ACTIVE = 0
STATUS_INACTIVE = 1
STATUS_DELETED = 2
STATUS_NAMES = {STATUS_ACTIVE: "Active", STATUS_INACTIVE: "Inactive", STATUS_DELETED: "Deleted"}

# CampaignType: 0 Gateway, 1 Basic, 2 Dialog, 3 Question, 4 Coupon, 5 Sweepstakes, 6 Chat.
CAMPAIGN_TYPE_MIN = 0
CAMPAIGN_TYPE_MAX = 6

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

# ActionType 3 PushCampaign; the seeded action is of this type.
ACTION_TYPE_PUSH_CAMPAIGN = 3
# ApiKeyType 1 Master.
API_KEY_TYPE_MASTER = 1

NOT_APPLICABLE = "*"


def _ts(moment: datetime | None) -> str | None:
    return None if moment is None else format_timestamp(moment)


@dataclass
class Audit:
    created: datetime
    created_by: str
    modified: datetime
    modified_by: str

    @classmethod
    def new(cls, now: datetime, by: str) -> Audit:
        return cls(created=now, created_by=by, modified=now, modified_by=by)

    def touch(self, now: datetime, by: str) -> None:
        self.modified = now
        self.modified_by = by

    def to_api(self) -> dict[str, Any]:
        return {
            "Created": _ts(self.created),
            "Modified": _ts(self.modified),
            "CreatedBy": self.created_by,
            "ModifiedBy": self.modified_by,
        }


@dataclass
class Account:
    id: int
    name: str
    audit: Audit
    parent_id: int | None = None
    status_id: int = STATUS_ACTIVE

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "Name": self.name,
            "ParentId": self.parent_id,
            "Status": self.status_id,
            **self.audit.to_api(),
        }


@dataclass
class ApiKey:
    id: int
    account_id: int
    key: str
    secret: str
    audit: Audit
    type_id: int = API_KEY_TYPE_MASTER
    label: str = ""
    revoked: bool = False

    @property
    def principal(self) -> str:
        """Name written to CreatedBy/ModifiedBy for changes made with this key."""
        return f"api-key-{self.id}"


@dataclass
class Action:
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
class Campaign:
    id: int
    account_id: int
    name: str
    campaign_type_id: int
    audit: Audit
    subscription_id: int | None = None
    content_id: int | None = None
    user_data: str | None = None
    single_use: bool = False
    single_use_content_id: int | None = None
    session: int = 0
    session_length: int = 0
    is_default: bool = False
    status_id: int = STATUS_ACTIVE

    @property
    def deleted(self) -> bool:
        return self.status_id == STATUS_DELETED

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "SubscriptionId": self.subscription_id,
            "Name": self.name,
            "CampaignTypeId": self.campaign_type_id,
            "StatusId": self.status_id,
            "StatusReason": STATUS_NAMES.get(self.status_id, str(self.status_id)),
            "ContentId": self.content_id,
            "Session": self.session,
            "SessionLength": self.session_length,
            "UserData": self.user_data,
            **self.audit.to_api(),
            "SingleUse": self.single_use,
            "SingleUseContentId": self.single_use_content_id,
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
            "StartFrom": _ts(f.start_from),
            "EndAfter": _ts(f.end_after),
            "WeekDay": f.week_day,
            "MonthDay": f.month_day,
            "ProcessStatus": self.plan.status(now),
            "Logs": self.plan.logs(now),
        }
