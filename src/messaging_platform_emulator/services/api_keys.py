"""API key rules: create Common or Temporary keys, read, change the secret, revoke.

Secrets are never logged nor put in error messages; only the single GET, create and change-secret answers carry
one.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from ..errors import bad_request
from ..models import (
    API_KEY_TYPE_COMMON,
    API_KEY_TYPE_MASTER,
    API_KEY_TYPE_TEMPORARY,
    API_KEY_TYPES,
    ApiKey,
    Audit,
)
from ..store import Store
from ..validation import Body, parse_json_object
from .access import owned_rows, require_account, require_owned

OBJECT_TYPE = "ApiKey"
CREATABLE_TYPES = (API_KEY_TYPE_COMMON, API_KEY_TYPE_TEMPORARY)
_ALLOWED = ", ".join(f"{number} ({API_KEY_TYPES[number]})" for number in CREATABLE_TYPES)


def new_key() -> str:
    """A key: 32 lower-case hex characters."""
    return secrets.token_hex(16)


def new_secret() -> str:
    return secrets.token_urlsafe(24)


def _read_new_key(body: Body, now: datetime) -> tuple[str, int, datetime | None]:
    """Label, type and ValidTo of a create body."""
    label = body.string("Label", required=True)
    # TypeId is the documented name; Type (its duplicate in answers) is accepted when TypeId is absent.
    type_name = "Type" if body.raw("TypeId") is None and body.raw("Type") is not None else "TypeId"
    type_id = body.integer(type_name, required=True)
    if type_id is not None and type_id not in CREATABLE_TYPES:
        body.invalid(
            type_name,
            f"{type_name} must be one of {_ALLOWED}; got {type_id}. Master keys (1) cannot be created through the API.",
        )
    valid_to = None
    body.expect("ValidTo")  # read for Temporary keys only, but a misspelling is refused for every type
    if type_id == API_KEY_TYPE_TEMPORARY:
        valid_to = body.date_time("ValidTo", required=True)
        if valid_to is not None and valid_to <= now:
            body.invalid("ValidTo", "ValidTo of a Temporary key must be in the future.")
    body.ignore("Id", "AccountId", "Key", "Secret", "LastActivity", "UserName")
    body.check()
    assert label is not None and type_id is not None
    return label, type_id, valid_to


class ApiKeyService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _find(self, key: ApiKey, account_id: int, key_id: int) -> ApiKey:
        return require_owned(self._store, key, account_id, self._store.tables.api_keys, key_id, OBJECT_TYPE, _revoked)

    def list(self, key: ApiKey, account_id: int) -> list[dict[str, Any]]:
        """The account's keys that are not revoked, without secrets."""
        with self._store.lock:
            keys = owned_rows(self._store, key, account_id, self._store.tables.api_keys.values())
            return [k.to_api() for k in keys if not k.revoked]

    def get(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, key_id).to_api(with_secret=True)

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            require_account(self._store, key, account_id)
            now = self._store.now()
            label, type_id, valid_to = _read_new_key(parse_json_object(raw_body, OBJECT_TYPE), now)
            created = self.store_key(account_id, type_id, label, Audit.new(now, key.principal), valid_to=valid_to)
            return created.to_api(with_secret=True)

    def change_secret(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        """A new secret for the key; the old one stops working at once."""
        with self._store.lock:
            found = self._find(key, account_id, key_id)
            found.secret = new_secret()
            found.audit.touch(self._store.now(), key.principal)
            return found.to_api(with_secret=True)

    def revoke(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        """Revoke a Common or Temporary key (Master keys: 400); returns it, without its secret."""
        with self._store.lock:
            found = self._find(key, account_id, key_id)
            if found.type_id == API_KEY_TYPE_MASTER:
                raise bad_request(
                    f"ApiKey {key_id} is a Master key (TypeId 1), which cannot be deleted.",
                    OBJECT_TYPE,
                    property_name="TypeId",
                )
            found.revoked = True
            found.audit.touch(self._store.now(), key.principal)
            return found.to_api()

    # -- used by accounts (caller holds the lock) -------------------------------------------------

    def taken(self, value: str) -> bool:
        """Whether some key, of any account, already has this key value."""
        return any(k.key == value for k in self._store.tables.api_keys.values())

    def store_key(
        self,
        account_id: int,
        type_id: int,
        label: str,
        audit: Audit,
        *,
        valid_to: datetime | None = None,
        value: str | None = None,
        secret: str | None = None,
    ) -> ApiKey:
        """Add a key to an account: ``value`` and ``secret`` as given (the caller checked ``taken``), else new."""
        if value is None:
            value = new_key()
            while self.taken(value):
                value = new_key()
        created = ApiKey(
            id=self._store.next_id("api_key"),
            account_id=account_id,
            key=value,
            secret=new_secret() if secret is None else secret,
            audit=audit,
            type_id=type_id,
            label=label,
            valid_to=valid_to,
        )
        self._store.tables.api_keys[created.id] = created
        return created


def _revoked(found: ApiKey) -> bool:
    return found.revoked
