"""One typed method per declared operation, shared by ``MessagingPlatformClient`` and the Airflow hook."""

from messaging_platform_provider.client.api.api_keys import ApiKeyApi
from messaging_platform_provider.client.api.callbacks import CallbackApi
from messaging_platform_provider.client.api.campaigns import CampaignApi
from messaging_platform_provider.client.api.contacts import ContactApi
from messaging_platform_provider.client.api.coupon_lists import CouponListApi
from messaging_platform_provider.client.api.schedules import ScheduleApi
from messaging_platform_provider.client.api.voice_calls import VoiceCallApi


class ApiMethods(CouponListApi, ScheduleApi, ApiKeyApi, CampaignApi, VoiceCallApi, ContactApi, CallbackApi):
    """Every operation of the spec as a typed method; ``account_id=None`` means the default account."""


__all__ = [
    "ApiKeyApi",
    "ApiMethods",
    "CallbackApi",
    "CampaignApi",
    "ContactApi",
    "CouponListApi",
    "ScheduleApi",
    "VoiceCallApi",
]
