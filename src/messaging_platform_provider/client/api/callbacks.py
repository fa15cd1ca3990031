"""Callback records and keyword attachment (spec 2.5, 4.8, 6.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import CallbackFields, CallbackOptions
from messaging_platform_provider.client.fields import to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.request import check_callback_url
from messaging_platform_provider.client.values import positive_int


class CallbackApi(ApiBase):
    def create_callback(
        self,
        callback_type: int | str,
        url: str,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **options: Unpack[CallbackOptions],
    ) -> dict[str, Any]:
        """
        Register a receiver ``url`` for events of ``callback_type`` (a name of ``CALLBACK_TYPES`` or its number).
        A plain ``http://`` ``url`` to a host that is not loopback is refused without ``allow_insecure_http``: every
        callback carries the account's callback token.
        """
        values = {"callback_type": callback_type, "url": url, "active": True, **options}
        body = to_wire(CallbackFields, values, extra, required=("callback_type", "url"))
        # Checked here too, not only when the create is sent: a retry-safe create reads the records first.
        check_callback_url(Operations.create_callback, body, self._insecure_http_allowed())
        return self._create(Operations.create_callback, body, once, account_id)

    def list_callbacks(self, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The account's callback records."""
        return self._many(Operations.list_callbacks, account_id=account_id)

    def get_callback(self, callback_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One callback record."""
        return self._one(Operations.get_callback, account_id=account_id, callback_id=callback_id)

    def attach_keyword_campaign(
        self, channel: int | str, keyword_id: int | str, campaign_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any] | None:
        """Attach ``campaign_id`` to a keyword of a channel; the body is the bare campaign id."""
        result: dict[str, Any] | None = self.call(
            Operations.attach_keyword_campaign,
            account_id=account_id,
            channel=channel,
            keyword_id=keyword_id,
            body=positive_int("campaign_id", campaign_id),
        )
        return result
