"""Campaign rules: create, read, partial update and soft delete (StatusId 2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..models import AUDIT_PROPERTIES, CAMPAIGN_TYPES, STATUS_DELETED, ApiKey, Audit, Campaign
from ..odata import BOOLEAN, INTEGER, STRING, read_list_query
from ..store import Store
from ..validation import Body, parse_json_object
from .access import require_account, require_campaign

OBJECT_TYPE = "Campaign"
# $filter properties: those of the campaign answer (spec 2.3) and IsDefault, which the facts' own example
# filter uses ("(IsDefault eq true) and (CampaignTypeId eq 1)", facts §1). Date-times are ISO 8601 text.
FILTER_PROPERTIES = {
    "Id": INTEGER,
    "AccountId": INTEGER,
    "SubscriptionId": INTEGER,
    "Name": STRING,
    "CampaignTypeId": INTEGER,
    "StatusId": INTEGER,
    "StatusReason": STRING,
    "ContentId": INTEGER,
    "Session": INTEGER,
    "SessionLength": INTEGER,
    "UserData": STRING,
    "Created": STRING,
    "Modified": STRING,
    "CreatedBy": STRING,
    "ModifiedBy": STRING,
    "SingleUse": BOOLEAN,
    "SingleUseContentId": INTEGER,
    "IsDefault": BOOLEAN,
}

# Optional integer properties: (API name, attribute).
_OPTIONAL_INTS = (
    ("SubscriptionId", "subscription_id"),
    ("ContentId", "content_id"),
    ("SingleUseContentId", "single_use_content_id"),
)


def _read_changes(body: Body, *, creating: bool) -> dict[str, Any]:
    """Validated attribute changes from a create (all required present) or update (only given) body.

    Spec 2.3: Name (string) and CampaignTypeId (number; one of the CampaignType values) are required on create.
    Session and SessionLength are answer-only (read-only, facts §8.1) and are not read from a request.
    """
    changes: dict[str, Any] = {}
    if creating or body.has("Name"):
        changes["name"] = body.string("Name", required=True)
    if creating or body.has("CampaignTypeId"):
        changes["campaign_type_id"] = body.choice("CampaignTypeId", CAMPAIGN_TYPES, required=True)
    for name, attribute in _OPTIONAL_INTS:
        if body.has(name):
            changes[attribute] = body.integer(name)
    if body.has("UserData"):
        changes["user_data"] = body.string("UserData")
    if body.has("SingleUse"):
        changes["single_use"] = bool(body.boolean("SingleUse"))
    if body.has("IsDefault"):
        changes["is_default"] = bool(body.boolean("IsDefault"))
    # Content (an object) and Links (objects) are type-checked and not modelled: their properties are not judged.
    body.nested("Content", "Content", closed=False)
    body.object_list("Links", "Link", closed=False)
    body.ignore("Id", "AccountId", "StatusId", "StatusReason", "Session", "SessionLength", *AUDIT_PROPERTIES)
    body.check()
    return changes


class CampaignService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _find(self, key: ApiKey, account_id: int, campaign_id: int) -> Campaign:
        return require_campaign(self._store, key, account_id, campaign_id)

    def list(
        self, key: ApiKey, account_id: int, only_mine: bool, options: Mapping[str, str | None]
    ) -> list[dict[str, Any]]:
        """Live campaigns of the account by Id, filtered by ``$filter``, then ``$skip``, then ``$top``.

        Accounts have no parents yet, so ``only_mine`` changes nothing.
        """
        with self._store.lock:
            require_account(self._store, key, account_id)
            query = read_list_query(options, FILTER_PROPERTIES, OBJECT_TYPE)
            live = [c for c in self._store.tables.campaigns.values() if c.account_id == account_id and not c.deleted]
            rows = [{**c.to_api(), "IsDefault": c.is_default} for c in live]
            return [{k: v for k, v in row.items() if k != "IsDefault"} for row in query.apply(rows)]

    def get(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, campaign_id).to_api()

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            require_account(self._store, key, account_id)
            changes = _read_changes(parse_json_object(raw_body, OBJECT_TYPE), creating=True)
            campaign = Campaign(
                id=self._store.next_id("campaign"),
                account_id=account_id,
                audit=Audit.new(self._store.now(), key.principal),
                **changes,
            )
            self._store.tables.campaigns[campaign.id] = campaign
            return campaign.to_api()

    def update(self, key: ApiKey, account_id: int, campaign_id: int, raw_body: bytes) -> dict[str, Any]:
        """Partial update: only the properties present in the body change."""
        with self._store.lock:
            campaign = self._find(key, account_id, campaign_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            for attribute, value in _read_changes(body, creating=False).items():
                setattr(campaign, attribute, value)
            campaign.audit.touch(self._store.now(), key.principal)
            return campaign.to_api()

    def delete(self, key: ApiKey, account_id: int, campaign_id: int) -> dict[str, Any]:
        """Soft delete; returns the campaign as deleted (StatusId 2, StatusReason "Deleted")."""
        with self._store.lock:
            campaign = self._find(key, account_id, campaign_id)
            campaign.status_id = STATUS_DELETED
            campaign.audit.touch(self._store.now(), key.principal)
            return campaign.to_api()
