"""API keys (spec 4.3). Secrets in answers are masked by the hook the moment they are read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.values import enum_value, format_datetime, platform_datetime

API_KEY_TYPES = {"Common": 2, "Temporary": 3}


class ApiKeyApi(ApiBase):
    def list_api_keys(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The account's keys, without secrets."""
        return self._many("list_api_keys", account_id=account_id)

    def get_api_key(self, key_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One key, including its ``Secret``."""
        return self._one("get_api_key", account_id=account_id, key_id=key_id)

    def create_api_key(
        self,
        label: str,
        key_type: int | str = "Common",
        *,
        valid_to: Any = None,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
    ) -> dict[str, Any]:
        """Create a key (``key_type`` Common or Temporary, or 2, 3); the answer holds its ``Key`` and ``Secret``."""
        if not str(label or "").strip():
            raise MessagingPlatformValidationError("Label", "must not be empty")
        type_id = enum_value("TypeId", key_type, API_KEY_TYPES)
        body: dict[str, Any] = {"Label": label, "TypeId": type_id}
        if type_id == API_KEY_TYPES["Temporary"]:
            if valid_to is None:
                raise MessagingPlatformValidationError("ValidTo", "is required for a Temporary key")
            body["ValidTo"] = format_datetime(platform_datetime(valid_to, "ValidTo", self._timezone()))
        elif valid_to is not None:
            raise MessagingPlatformValidationError("ValidTo", "is only for a Temporary key")
        body.update(extra or {})
        return self._create("create_api_key", body, once, account_id)

    def change_api_key_secret(self, key_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """The platform makes a new secret and the old one stops working at once; the answer holds the new one."""
        return self._one("change_api_key_secret", account_id=account_id, key_id=key_id)

    def revoke_api_key(self, key_id: int | str, *, missing_ok: bool = True, account_id: int | None = None) -> bool:
        return self._delete("revoke_api_key", missing_ok, account_id=account_id, key_id=key_id)
