"""
A value for every path parameter of the declared operations, made on the emulator the first time a test asks for
it. Tests of reads are written once for every GET (``OPERATIONS``), so a new read needs no test of its own as long
as its path parameters are known here.
"""

from __future__ import annotations

from typing import Any

from messaging_platform_provider.client.operations import Operation
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook


class SampleResources:
    """``resources("campaign_id")``: the id of a coupon campaign with its coupon definition, made once."""

    def __init__(self, hook: MessagingPlatformHook, seed: Any) -> None:
        self.hook = hook
        self.seed = seed
        self._made: dict[str, Any] = {}

    def __call__(self, param: str) -> Any:
        if param not in self._made:
            self._made[param] = getattr(self, "_" + param)()
        return self._made[param]

    def path_values(self, op: Operation) -> list[Any]:
        """The values of ``op``'s path parameters after the account, in path order (the hook's positional order)."""
        return [self(param) for param in op.path_params if param != "account_id"]

    def _action_id(self) -> int:
        """A push voice call action with one schedule: the read of a voice call and of schedules both work on it.

        The schedule is Daily, so it stays Pending: a one-time run changes status and gains logs within half a
        second, and a test that reads it twice would compare two different moments.
        """
        action = self.hook.create_push_voice_call(
            ["+15125550100"],
            targets=["+15125550199"],
            message="Your order is ready.",
            schedules=[{"schedule_type": "Daily", "run_at": "09:00:00", "start_from": "2026-12-01T09:00:00"}],
        )
        return int(action["Id"])

    def _schedule_id(self) -> int:
        return int(self.hook.list_schedules(self("action_id"))[0]["Id"])

    def _coupon_list_id(self) -> int:
        return int(self.hook.create_external_coupon_list("Spring codes", coupon_codes=["A1", "B2"])["Id"])

    def _coupon_code(self) -> str:
        self("coupon_list_id")
        return "A1"

    def _key_id(self) -> int:
        return int(self.seed.api_key_id)

    def _campaign_id(self) -> int:
        campaign = int(self.hook.create_campaign("Coupons", "Coupon")["Id"])
        self.hook.create_coupon_definition(campaign, "Static", static_code="SPRING10")
        return campaign

    def _contact_list_id(self) -> int:
        return int(self.seed.resources["contact_list_id"])

    def _group_id(self) -> int:
        return int(self.seed.resources["root_group_id"])

    def _channel(self) -> int:
        return int(self.seed.resources["channel_id"])

    def _keyword_id(self) -> int:
        return int(self.seed.resources["keyword_id"])

    def _contact_id(self) -> int:
        return int(self.hook.list_contacts(top=1)[0]["Id"])

    def _callback_id(self) -> int:
        return int(self.hook.create_callback("Stop", "https://hooks.example.com/stop", active=False)["Id"])
