"""Authentication (HTTP Basic: user = API key, password = secret) and account scoping.

Every platform lookup goes through here: a key reaches its own account only, and a row of another account is
answered 404 like an unknown id. The functions read the store they are given; callers hold its lock.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol, TypeVar

from ..errors import not_found, unauthorized
from ..models import STATUS_DELETED, Account, Action, ApiKey, Campaign, SoftDeletable
from ..store import Store

# Compared against when the key is unknown, so an unknown key costs the same as a wrong secret.
_NO_SECRET = b"\x00" * 32


class Owned(Protocol):
    """A row that belongs to one account."""

    @property
    def account_id(self) -> int: ...


Row = TypeVar("Row", bound=Owned)


def authenticate(store: Store, authorization: str | None) -> ApiKey:
    """The API key named by a Basic ``Authorization`` header; 401 when missing, wrong, revoked or expired.

    A key that authenticates has its ``LastActivity`` set to the emulator's now.
    """
    if not authorization:
        raise unauthorized()
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        raise unauthorized()
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise unauthorized() from exc
    key, sep, secret = decoded.partition(":")
    if not sep:
        raise unauthorized()
    with store.lock:
        candidate = next((k for k in store.tables.api_keys.values() if k.key == key), None)
        expected = candidate.secret.encode("utf-8") if candidate is not None else _NO_SECRET
        matches = hmac.compare_digest(secret.encode("utf-8"), expected)
        now = store.now()
        if candidate is None or not matches or candidate.revoked or candidate.expired(now):
            raise unauthorized()
        candidate.last_activity = now
        return candidate


def can_access(key: ApiKey, account: Account) -> bool:
    """A key reaches its own account only (sub-account access would be added here)."""
    return account.id == key.account_id and account.status_id != STATUS_DELETED


def require_account(store: Store, key: ApiKey, account_id: int) -> Account:
    """The path account, or 404 when it does not exist or the key may not use it. Caller holds the lock."""
    account = store.tables.accounts.get(account_id)
    if account is None or not can_access(key, account):
        raise not_found("Account", account_id)
    return account


def require_owned(
    store: Store,
    key: ApiKey,
    account_id: int,
    table: Mapping[int, Row],
    row_id: int,
    object_type: str,
    gone: Callable[[Row], bool] | None = None,
) -> Row:
    """Row ``row_id`` of ``table`` when it belongs to the path account and is not ``gone``; else 404 naming
    ``object_type`` (the account itself checked first). Caller holds the lock."""
    require_account(store, key, account_id)
    found = table.get(row_id)
    if found is None or found.account_id != account_id or (gone is not None and gone(found)):
        raise not_found(object_type, row_id)
    return found


def owned_rows(store: Store, key: ApiKey, account_id: int, rows: Iterable[Row]) -> list[Row]:
    """The rows of the path account, in table order (404 when the key may not use the account). Caller holds
    the lock."""
    require_account(store, key, account_id)
    return [row for row in rows if row.account_id == account_id]


def require_action(store: Store, key: ApiKey, account_id: int, action_id: int) -> Action:
    """A live action of the path account, or 404. Caller holds the lock."""
    return require_owned(store, key, account_id, store.tables.actions, action_id, "Action", gone=_deleted)


def find_campaign(store: Store, account_id: int, campaign_id: int) -> Campaign | None:
    """A live campaign of the account, or None. Caller holds the lock."""
    campaign = store.tables.campaigns.get(campaign_id)
    if campaign is None or campaign.account_id != account_id or campaign.deleted:
        return None
    return campaign


def require_campaign(store: Store, key: ApiKey, account_id: int, campaign_id: int) -> Campaign:
    """A live campaign of the path account, or 404. Caller holds the lock."""
    return require_owned(store, key, account_id, store.tables.campaigns, campaign_id, "Campaign", gone=_deleted)


def _deleted(row: SoftDeletable) -> bool:
    return row.deleted
