"""API keys (spec 4.3). Secrets in answers are masked by the hook the moment they are read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import ApiKeyFields, ApiKeyOptions, api_key_rules
from messaging_platform_provider.client.fields import extra_fields, to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations


class ApiKeyApi(ApiBase):
    def list_api_keys(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The account's keys, without secrets."""
        return self._many(Operations.list_api_keys, account_id=account_id)

    def get_api_key(self, key_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One key, including its ``Secret``."""
        return self._one(Operations.get_api_key, account_id=account_id, key_id=key_id)

    def create_api_key(
        self,
        key_label: str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[ApiKeyOptions],
    ) -> dict[str, Any]:
        """
        Create a key labelled ``key_label`` (``key_type`` Common, the default, or Temporary, or 2, 3); the answer
        holds its ``Key`` and ``Secret``.
        """
        values = {"key_label": key_label, "key_type": "Common", **options}
        body = api_key_rules(to_wire(ApiKeyFields, values, None, self._timezone(), required=("key_label",)))
        return self._create(Operations.create_api_key, {**body, **extra_fields(extra)}, once, account_id)

    def change_api_key_secret(self, key_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """The platform makes a new secret and the old one stops working at once; the answer holds the new one."""
        return self._one(Operations.change_api_key_secret, account_id=account_id, key_id=key_id)

    def revoke_api_key(self, key_id: int | str, *, missing_ok: bool = True, account_id: int | None = None) -> bool:
        """Revoke a key: it stops working at once. ``True`` if it was there."""
        return self._delete(Operations.revoke_api_key, missing_ok, account_id=account_id, key_id=key_id)
