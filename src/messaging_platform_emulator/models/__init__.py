"""In-memory records of platform resources, each rendering its PascalCase API form.

Times are naive UTC datetimes from the emulator clock. One module per resource family; every name is
re-exported here, so ``from .models import Campaign`` works for all of them.
"""

from .accounts import (
    API_KEY_TYPE_COMMON,
    API_KEY_TYPE_MASTER,
    API_KEY_TYPE_TEMPORARY,
    API_KEY_TYPES,
    Account,
    ApiKey,
)
from .actions import (
    ACTION_TYPE_PUSH_CAMPAIGN,
    ACTION_TYPE_PUSH_VOICE_CALL,
    NOT_APPLICABLE,
    SCHEDULE_DAILY,
    SCHEDULE_MONTHLY,
    SCHEDULE_ONE_TIME,
    SCHEDULE_TYPES,
    SCHEDULE_WEEKLY,
    Action,
    Schedule,
    ScheduleFields,
    VoiceCall,
    VoiceCallFields,
)
from .base import (
    AUDIT_PROPERTIES,
    STATUS_ACTIVE,
    STATUS_DELETED,
    STATUS_INACTIVE,
    STATUS_NAMES,
    SYSTEM_PRINCIPAL,
    Audit,
    SoftDeletable,
    optional_timestamp,
)
from .callbacks import CALLBACK_TYPES, Callback
from .campaigns import (
    CAMPAIGN_TYPE_COUPON,
    CAMPAIGN_TYPES,
    COUPON_TYPES,
    DEFAULT_MAX_USES,
    VALID_DATE_TYPES,
    Campaign,
    CouponDefinition,
    CouponDefinitionFields,
    CouponStatus,
    CouponType,
    Redemption,
)
from .contact_lists import OPERATORS, ContactFilter, ContactList, FilterGroup
from .contacts import ContactBlock, ContactPage
from .coupon_lists import MAX_COUPON_CODE_LENGTH, ExternalCouponCode, ExternalCouponList
from .keywords import Channel, Keyword

__all__ = [
    "ACTION_TYPE_PUSH_CAMPAIGN",
    "ACTION_TYPE_PUSH_VOICE_CALL",
    "API_KEY_TYPES",
    "AUDIT_PROPERTIES",
    "API_KEY_TYPE_COMMON",
    "API_KEY_TYPE_MASTER",
    "API_KEY_TYPE_TEMPORARY",
    "CALLBACK_TYPES",
    "CAMPAIGN_TYPE_COUPON",
    "CAMPAIGN_TYPES",
    "COUPON_TYPES",
    "DEFAULT_MAX_USES",
    "MAX_COUPON_CODE_LENGTH",
    "NOT_APPLICABLE",
    "OPERATORS",
    "SCHEDULE_DAILY",
    "SCHEDULE_MONTHLY",
    "SCHEDULE_ONE_TIME",
    "SCHEDULE_TYPES",
    "SCHEDULE_WEEKLY",
    "STATUS_ACTIVE",
    "STATUS_DELETED",
    "STATUS_INACTIVE",
    "STATUS_NAMES",
    "SYSTEM_PRINCIPAL",
    "VALID_DATE_TYPES",
    "Account",
    "Action",
    "ApiKey",
    "Audit",
    "Callback",
    "Campaign",
    "CouponDefinition",
    "Channel",
    "ContactBlock",
    "ContactFilter",
    "ContactList",
    "ContactPage",
    "CouponDefinitionFields",
    "CouponStatus",
    "CouponType",
    "ExternalCouponCode",
    "ExternalCouponList",
    "FilterGroup",
    "Keyword",
    "Redemption",
    "Schedule",
    "ScheduleFields",
    "SoftDeletable",
    "VoiceCall",
    "VoiceCallFields",
    "optional_timestamp",
]
