"""Campaign rules: create, read, partial update and soft delete (StatusId 2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models import (
    CAMPAIGN_TYPE_MAX,
    CAMPAIGN_TYPE_MIN,
    STATUS_DELETED,
    Audit,
    Campaign,
)
from ..validation import Body, parse_json_object
from .access import require_account, require_campaign

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "Campaign"

# Optional integer properties: (API name, attribute).
_OPTIONAL_INTS = (
    ("SubscriptionId", "subscription_id"),
    ("ContentId", "content_id"),
    ("SingleUseContentId", "single_use_content_id"),
)


def _read_changes(body: Body, *, creating: bool) -> dict[str, Any]:
    """Validated attribute changes from a create (all required present) or update (only given) body."""
    changes: dict[str, Any] = {}
    if creating or body.has("Name"):
        changes["name"] = body.string("Name", required=True)
    if creating or body.has("CampaignTypeId"):
        changes["campaign_type_id"] = body.integer(
            "CampaignTypeId", required=True, minimum=CAMPAIGN_TYPE_MIN, maximum=CAMPAIGN_TYPE_MAX
        )
    for name, attribute in _OPTIONAL_INTS:
        if body.has(name):
            changes[attribute] = body.integer(name)
    if body.has("UserData"):
        changes["user_data"] = body.string("UserData")
    if body.has("SingleUse"):
        changes["single_use"] = bool(body.boolean("SingleUse"))
    if body.has("IsDefault"):
        changes["is_default"] = bool(body.boolean("IsDefault"))
    if body.has("Session"):
        changes["session"] = body.integer("Session", minimum=0) or 0
    if body.has("SessionLength"):
        changes["session_length"] = body.integer("SessionLength", minimum=0) or 0
    # Content and Links are accepted and not modelled.
    body.check()
    return changes


class CampaignService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def _find(self, key: ApiKey, account_id: int, campaign_id: int) -> Campaign:
        return require_campaign(self._state, key, account_id, campaign_id)

    def list(self, key: ApiKey, account_id: int, only_mine: bool) -> list[dict[str, Any]]:
        """Live campaigns of the account. Accounts have no parents yet, so ``only_mine`` changes nothing."""
        with self._state.lock:
            require_account(self._state, key, account_id)
            return [
                c.to_api()
                for c in self._state.tables.campaigns.values()
                if c.account_id == account_id and not c.deleted
            ]

    def get(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        with self._state.lock:
            return self._find(key, account_id, campaign_id).to_api()

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._state.lock:
            require_account(self._state, key, account_id)
            changes = _read_changes(parse_json_object(raw_body, OBJECT_TYPE), creating=True)
            campaign = Campaign(
                id=self._state.next_id("campaign"),
                account_id=account_id,
                audit=Audit.new(self._state.now(), key.principal),
                **changes,
            )
            self._state.tables.campaigns[campaign.id] = campaign
            return campaign.to_api()

    def update(self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes) -> dict[str, Any]:
        """Partial update: only the properties present in the body change."""
        with self._state.lock:
            campaign = self._find(key, account_id, campaign_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            for attribute, value in _read_changes(body, creating=False).items():
                setattr(campaign, attribute, value)
            campaign.audit.touch(self._state.now(), key.principal)
            return campaign.to_api()

    def delete(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        """Soft delete; returns the campaign as deleted (StatusId 2, StatusReason "Deleted")."""
        with self._state.lock:
            campaign = self._find(key, account_id, campaign_id)
            campaign.status_id = STATUS_DELETED
            campaign.audit.touch(self._state.now(), key.principal)
            return campaign.to_api()
