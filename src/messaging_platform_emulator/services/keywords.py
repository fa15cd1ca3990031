"""Keyword rules: find a keyword by channel (id or code) and keyword (id or name); attach it to a campaign."""

from __future__ import annotations

from typing import Any

from ..errors import ControlConflict, ControlNotFound, not_found
from ..models import SYSTEM_PRINCIPAL, ApiKey, Audit, Channel, Keyword
from ..request_json import parse_json_integer
from ..store import Store
from .access import require_account, require_campaign

OBJECT_TYPE = "Keyword"
CHANNEL_OBJECT_TYPE = "Channel"


class ChannelNotFound(ControlNotFound):
    """No channel with that id."""


class KeywordTaken(ControlConflict):
    """The channel already has a keyword of that name."""


class KeywordService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _channel(self, key: ApiKey, account_id: int, channel: str) -> Channel:
        require_account(self._store, key, account_id)
        for found in self._store.tables.channels.values():
            if found.account_id == account_id and channel in (str(found.id), found.code):
                return found
        raise not_found(CHANNEL_OBJECT_TYPE, channel)

    def _find(self, key: ApiKey, account_id: int, channel: str, keyword: str) -> Keyword:
        on = self._channel(key, account_id, channel)
        for found in self._store.tables.keywords.values():
            if found.channel_id == on.id and (keyword == str(found.id) or keyword.upper() == found.name.upper()):
                return found
        raise not_found(OBJECT_TYPE, keyword)

    def get(self, key: ApiKey, account_id: int, channel: str, keyword: str) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, channel, keyword).to_api()

    def attach_campaign(
        self, key: ApiKey, account_id: int, channel: str, keyword: str, raw_body: bytes
    ) -> dict[str, Any]:
        """Body: the campaign id as a bare JSON integer. Answers the keyword with its CampaignId set."""
        with self._store.lock:
            found = self._find(key, account_id, channel, keyword)
            campaign_id = parse_json_integer(raw_body, OBJECT_TYPE, "CampaignId")
            campaign = require_campaign(self._store, key, account_id, campaign_id)
            found.campaign_id = campaign.id
            found.audit.touch(self._store.now(), key.principal)
            return found.to_api()

    # -- emulator controls and seeding ------------------------------------------------------------

    def add(self, name: str, channel_id: int, *, callback_required: bool) -> Keyword:
        """Reserve a keyword on a channel for the channel's account (ChannelNotFound, KeywordTaken)."""
        with self._store.lock:
            channel = self._store.tables.channels.get(channel_id)
            if channel is None:
                raise ChannelNotFound(f"channel {channel_id} does not exist")
            keywords = self._store.tables.keywords.values()
            if any(k.channel_id == channel_id and k.name.upper() == name.upper() for k in keywords):
                raise KeywordTaken(f"channel {channel_id} already has keyword {name!r}")
            created = Keyword(
                id=self._store.next_id("keyword"),
                account_id=channel.account_id,
                channel_id=channel.id,
                channel_code=channel.code,
                name=name,
                audit=Audit.new(self._store.now(), SYSTEM_PRINCIPAL),
                callback_required=callback_required,
            )
            self._store.tables.keywords[created.id] = created
            return created
