"""Keyword rules: find a keyword by channel (id or code) and keyword (id or name); attach it to a campaign."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import not_found
from ..models import Audit, Channel, Keyword
from ..validation import parse_json_integer
from .access import require_account, require_campaign

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "Keyword"
CHANNEL_OBJECT_TYPE = "Channel"


class ChannelNotFound(LookupError):
    """No channel with that id (control endpoints turn this into 404)."""


class KeywordTaken(ValueError):
    """The channel already has a keyword of that name (control endpoints turn this into 409)."""


class KeywordService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def _channel(self, key: ApiKey, account_id: int, channel: str) -> Channel:
        require_account(self._state, key, account_id)
        for found in self._state.tables.channels.values():
            if found.account_id == account_id and channel in (str(found.id), found.code):
                return found
        raise not_found(CHANNEL_OBJECT_TYPE, channel)

    def _find(self, key: ApiKey, account_id: int, channel: str, keyword: str) -> Keyword:
        on = self._channel(key, account_id, channel)
        for found in self._state.tables.keywords.values():
            if found.channel_id == on.id and (keyword == str(found.id) or keyword.upper() == found.name.upper()):
                return found
        raise not_found(OBJECT_TYPE, keyword)

    def get(self, key: ApiKey, account_id: int, channel: str, keyword: str) -> dict[str, Any]:
        with self._state.lock:
            return self._find(key, account_id, channel, keyword).to_api()

    def attach_campaign(
        self, key: ApiKey, account_id: int, channel: str, keyword: str, raw_body: bytes
    ) -> dict[str, Any]:
        """Body: the campaign id as a bare JSON integer. Answers the keyword with its CampaignId set."""
        with self._state.lock:
            found = self._find(key, account_id, channel, keyword)
            campaign_id = parse_json_integer(raw_body, OBJECT_TYPE, "CampaignId")
            campaign = require_campaign(self._state, key, account_id, campaign_id)
            found.campaign_id = campaign.id
            found.audit.touch(self._state.now(), key.principal)
            return found.to_api()

    # -- emulator controls and seeding ------------------------------------------------------------

    def add(self, name: str, channel_id: int, *, callback_required: bool, principal: str) -> Keyword:
        """Reserve a keyword on a channel for the channel's account (ChannelNotFound, KeywordTaken)."""
        with self._state.lock:
            channel = self._state.tables.channels.get(channel_id)
            if channel is None:
                raise ChannelNotFound(f"channel {channel_id} does not exist")
            if any(k.channel_id == channel_id and k.name.upper() == name.upper() for k in self._keywords()):
                raise KeywordTaken(f"channel {channel_id} already has keyword {name!r}")
            created = Keyword(
                id=self._state.next_id("keyword"),
                account_id=channel.account_id,
                channel_id=channel.id,
                channel_code=channel.code,
                name=name,
                audit=Audit.new(self._state.now(), principal),
                callback_required=callback_required,
            )
            self._state.tables.keywords[created.id] = created
            return created

    def _keywords(self) -> list[Keyword]:
        return list(self._state.tables.keywords.values())
