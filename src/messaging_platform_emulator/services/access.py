"""Authentication (HTTP Basic: user = API key, password = secret) and account scoping."""

from __future__ import annotations

import base64
import binascii
import hmac
from typing import TYPE_CHECKING

from ..errors import not_found, unauthorized
from ..models import STATUS_DELETED, Account, Action, ApiKey, Campaign

if TYPE_CHECKING:
    from ..state import PlatformState

# Compared against when the key is unknown, so an unknown key costs the same as a wrong secret.
_NO_SECRET = b"\x00" * 32


class AccountNotFound(LookupError):
    """No account with that id (control endpoints turn this into 404)."""


def authenticate(state: PlatformState, authorization: str | None) -> ApiKey:
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
    with state.lock:
        candidate = next((k for k in state.tables.api_keys.values() if k.key == key), None)
        expected = candidate.secret.encode("utf-8") if candidate is not None else _NO_SECRET
        matches = hmac.compare_digest(secret.encode("utf-8"), expected)
        now = state.now()
        if candidate is None or not matches or candidate.revoked or candidate.expired(now):
            raise unauthorized()
        candidate.last_activity = now
        return candidate


def can_access(key: ApiKey, account: Account) -> bool:
    """A key reaches its own account only (sub-account access would be added here)."""
    return account.id == key.account_id and account.status_id != STATUS_DELETED


def require_account(state: PlatformState, key: ApiKey, account_id: int) -> Account:
    """The path account, or 404 when it does not exist or the key may not use it. Caller holds the lock."""
    account = state.tables.accounts.get(account_id)
    if account is None or not can_access(key, account):
        raise not_found("Account", account_id)
    return account


def require_action(state: PlatformState, key: ApiKey, account_id: int, action_id: int) -> Action:
    """An action of the path account, or 404. Caller holds the lock."""
    require_account(state, key, account_id)
    action = state.tables.actions.get(action_id)
    if action is None or action.account_id != account_id or action.deleted:
        raise not_found("Action", action_id)
    return action


def find_campaign(state: PlatformState, account_id: int, campaign_id: int) -> Campaign | None:
    """A live campaign of the account, or None. Caller holds the lock."""
    campaign = state.tables.campaigns.get(campaign_id)
    if campaign is None or campaign.account_id != account_id or campaign.deleted:
        return None
    return campaign


def require_campaign(state: PlatformState, key: ApiKey, account_id: int, campaign_id: int) -> Campaign:
    """A live campaign of the path account, or 404. Caller holds the lock."""
    require_account(state, key, account_id)
    campaign = find_campaign(state, account_id, campaign_id)
    if campaign is None:
        raise not_found("Campaign", campaign_id)
    return campaign


def control_account(state: PlatformState, account_id: int | None) -> Account:
    """For control endpoints: the given account (the seeded one when None), or AccountNotFound."""
    wanted = state.seed.account_id if account_id is None else account_id
    account = state.tables.accounts.get(wanted)
    if account is None:
        raise AccountNotFound(f"account {wanted} does not exist")
    return account
