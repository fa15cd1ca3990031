"""Every Messaging Platform operator, importable from one place (``docs/operators.md`` lists them)."""

from messaging_platform_provider.operators.api_keys import (
    MessagingPlatformChangeApiKeySecretOperator,
    MessagingPlatformCreateApiKeyOperator,
    MessagingPlatformGetApiKeyOperator,
    MessagingPlatformListApiKeysOperator,
    MessagingPlatformRevokeApiKeyOperator,
)
from messaging_platform_provider.operators.base import MessagingPlatformBaseOperator, MessagingPlatformCreateOperator
from messaging_platform_provider.operators.callbacks import (
    MessagingPlatformAttachKeywordCampaignOperator,
    MessagingPlatformCreateCallbackOperator,
    MessagingPlatformGetCallbackOperator,
    MessagingPlatformListCallbacksOperator,
)
from messaging_platform_provider.operators.campaigns import (
    MessagingPlatformCreateCampaignCouponOperator,
    MessagingPlatformCreateCampaignOperator,
    MessagingPlatformDeleteCampaignOperator,
    MessagingPlatformGetCampaignCouponOperator,
    MessagingPlatformGetCampaignCouponRedemptionsOperator,
    MessagingPlatformGetCampaignOperator,
    MessagingPlatformListCampaignsOperator,
    MessagingPlatformUpdateCampaignCouponOperator,
    MessagingPlatformUpdateCampaignOperator,
)
from messaging_platform_provider.operators.contacts import (
    MessagingPlatformGetContactOperator,
    MessagingPlatformGetFilterGroupOperator,
    MessagingPlatformListContactsOperator,
    MessagingPlatformListFilterGroupsOperator,
    MessagingPlatformUpdateFilterGroupOperator,
)
from messaging_platform_provider.operators.coupon_lists import (
    MessagingPlatformCreateExternalCouponListOperator,
    MessagingPlatformDeleteExternalCouponCodeOperator,
    MessagingPlatformDeleteExternalCouponListOperator,
    MessagingPlatformGetExternalCouponListOperator,
    MessagingPlatformListExternalCouponCodesOperator,
    MessagingPlatformListExternalCouponListsOperator,
    MessagingPlatformUpdateExternalCouponListOperator,
)
from messaging_platform_provider.operators.rotation import MessagingPlatformRotateApiKeyOperator
from messaging_platform_provider.operators.schedules import (
    MessagingPlatformCreateScheduleOperator,
    MessagingPlatformDeleteScheduleOperator,
    MessagingPlatformGetScheduleOperator,
    MessagingPlatformListSchedulesOperator,
    MessagingPlatformUpdateScheduleOperator,
)
from messaging_platform_provider.operators.voice_calls import (
    MessagingPlatformCreatePushVoiceCallOperator,
    MessagingPlatformDeletePushVoiceCallOperator,
    MessagingPlatformGetPushVoiceCallOperator,
    MessagingPlatformListPushVoiceCallsOperator,
)

__all__ = [
    "MessagingPlatformAttachKeywordCampaignOperator",
    "MessagingPlatformBaseOperator",
    "MessagingPlatformChangeApiKeySecretOperator",
    "MessagingPlatformCreateApiKeyOperator",
    "MessagingPlatformCreateCallbackOperator",
    "MessagingPlatformCreateCampaignCouponOperator",
    "MessagingPlatformCreateCampaignOperator",
    "MessagingPlatformCreateExternalCouponListOperator",
    "MessagingPlatformCreateOperator",
    "MessagingPlatformCreatePushVoiceCallOperator",
    "MessagingPlatformCreateScheduleOperator",
    "MessagingPlatformDeleteCampaignOperator",
    "MessagingPlatformDeleteExternalCouponCodeOperator",
    "MessagingPlatformDeleteExternalCouponListOperator",
    "MessagingPlatformDeletePushVoiceCallOperator",
    "MessagingPlatformDeleteScheduleOperator",
    "MessagingPlatformGetApiKeyOperator",
    "MessagingPlatformGetCallbackOperator",
    "MessagingPlatformGetCampaignCouponOperator",
    "MessagingPlatformGetCampaignCouponRedemptionsOperator",
    "MessagingPlatformGetCampaignOperator",
    "MessagingPlatformGetContactOperator",
    "MessagingPlatformGetExternalCouponListOperator",
    "MessagingPlatformGetFilterGroupOperator",
    "MessagingPlatformGetPushVoiceCallOperator",
    "MessagingPlatformGetScheduleOperator",
    "MessagingPlatformListApiKeysOperator",
    "MessagingPlatformListCallbacksOperator",
    "MessagingPlatformListCampaignsOperator",
    "MessagingPlatformListContactsOperator",
    "MessagingPlatformListExternalCouponCodesOperator",
    "MessagingPlatformListExternalCouponListsOperator",
    "MessagingPlatformListFilterGroupsOperator",
    "MessagingPlatformListPushVoiceCallsOperator",
    "MessagingPlatformListSchedulesOperator",
    "MessagingPlatformRevokeApiKeyOperator",
    "MessagingPlatformRotateApiKeyOperator",
    "MessagingPlatformUpdateCampaignCouponOperator",
    "MessagingPlatformUpdateCampaignOperator",
    "MessagingPlatformUpdateExternalCouponListOperator",
    "MessagingPlatformUpdateFilterGroupOperator",
    "MessagingPlatformUpdateScheduleOperator",
]
