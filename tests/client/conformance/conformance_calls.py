"""
One representative call of every operation, made through the hook against the emulator, for the conformance
tests. Each call sets up what it needs (a coupon campaign, a schedule, ...) with further hook calls, so every
request it causes is checked too. A read with no query options needs no entry: it is called with the sample
resources of its path parameters (``tests/support/sample_resources.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from messaging_platform_provider.client.operations import OPERATIONS
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from tests.support.sample_resources import SampleResources


@dataclass
class World:
    """The hook and the ids of the emulator's seeded account."""

    hook: MessagingPlatformHook
    action_id: int
    api_key_id: int
    contact_list_id: int
    group_id: int
    channel_id: int
    keyword_id: int
    resources: SampleResources

    def coupon_campaign(self) -> int:
        return int(self.hook.create_campaign(name="Coupons", campaign_type="Coupon")["Id"])

    def coupon_list(self) -> int:
        return int(self.hook.create_external_coupon_list("Spring codes", coupon_codes=["A1", "B2"])["Id"])

    def schedule(self) -> int:
        return int(self.hook.create_schedule(self.action_id, "Daily", "09:30:00", "2026-12-01T08:00:00")["Id"])

    def contact_id(self) -> int:
        return int(self.hook.list_contacts(top=1)[0]["Id"])


def _update_coupon(w: World) -> Any:
    return w.hook.update_coupon_definition(w.coupon_campaign(), "External", external_list_id=w.coupon_list())


def _create_coupon(w: World) -> Any:
    return w.hook.create_coupon_definition(w.coupon_campaign(), "Dynamic", prefix="SPR", name="Spring", description="")


CALLS: dict[str, Callable[[World], Any]] = {
    "create_external_coupon_list": lambda w: w.hook.create_external_coupon_list(
        "Spring codes", description="April", inheritable=False, coupon_codes=["A1", "B2"]
    ),
    "update_external_coupon_list": lambda w: w.hook.update_external_coupon_list(w.coupon_list(), coupon_codes=["C3"]),
    "delete_external_coupon_list": lambda w: w.hook.delete_external_coupon_list(w.coupon_list()),
    "delete_external_coupon_code": lambda w: w.hook.delete_external_coupon_code(w.coupon_list(), "A1"),
    "create_schedule": lambda w: w.hook.create_schedule(
        w.action_id, "Weekly", "09:30:00", "2026-12-01T08:00:00+02:00", end_after="2027-03-01", week_day="mon,Fri"
    ),
    "update_schedule": lambda w: w.hook.update_schedule(
        w.action_id, w.schedule(), "Monthly", "10:00:00", "2026-12-01T08:00:00", month_day="1,15"
    ),
    "delete_schedule": lambda w: w.hook.delete_schedule(w.action_id, w.schedule()),
    "create_api_key": lambda w: w.hook.create_api_key("Nightly", key_type="Temporary", valid_to="2027-01-01T00:00:00Z"),
    "change_api_key_secret": lambda w: w.hook.change_api_key_secret(w.hook.create_api_key("Spare")["Id"]),
    "revoke_api_key": lambda w: w.hook.revoke_api_key(w.hook.create_api_key("Spare")["Id"]),
    "list_campaigns": lambda w: w.hook.list_campaigns(only_mine=True, odata_filter="CampaignTypeId eq 4"),
    "create_campaign": lambda w: w.hook.create_campaign(
        name="Spring", campaign_type="Basic", user_data="batch 7", single_use=False, is_default=False
    ),
    "update_campaign": lambda w: w.hook.update_campaign(w.coupon_campaign(), name="Spring (renamed)"),
    "delete_campaign": lambda w: w.hook.delete_campaign(w.coupon_campaign()),
    "update_coupon_definition": _update_coupon,
    "create_coupon_definition": _create_coupon,
    "create_push_voice_call": lambda w: _voice_call(w),
    "delete_push_voice_call": lambda w: w.hook.delete_push_voice_call(_voice_call(w)["Id"]),
    "update_filter_group": lambda w: w.hook.update_filter_group(w.contact_list_id, w.group_id, operator="or"),
    "list_contacts": lambda w: w.hook.list_contacts(top=5, skip=2, odata_filter="StatusId eq 0"),
    "create_contact": lambda w: w.hook.create_contact(
        phone_number="+15125550177", email_address="ann@example.com", first_name="Ann", assigned_id="42"
    ),
    "update_contact": lambda w: w.hook.update_contact(w.contact_id(), last_name="Lee", assigned_id=None),
    "create_callback": lambda w: w.hook.create_callback("Keyword", "https://hooks.example.com/keyword"),
    "attach_keyword_campaign": lambda w: w.hook.attach_keyword_campaign(
        w.channel_id, w.keyword_id, w.coupon_campaign()
    ),
}


def _voice_call(w: World) -> dict[str, Any]:
    return w.hook.create_push_voice_call(
        ["+15125550100"],
        targets=["+15125550199"],
        message="Your order is ready.",
        schedules=[{"schedule_type": "OneTime", "run_at": "09:00:00", "start_from": "2026-12-01T09:00:00"}],
    )


def representative_call(operation: str) -> Callable[[World], Any]:
    """The call of ``CALLS``, or for a plain read the hook method with the sample resources of its path."""
    if operation in CALLS:
        return CALLS[operation]
    op = OPERATIONS[operation]
    return lambda w: getattr(w.hook, operation)(*w.resources.path_values(op))
