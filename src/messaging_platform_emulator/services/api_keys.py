"""API key rules: create Common or Temporary keys, read, rotate the secret, revoke.

Secrets are never logged nor put in error messages; only the single GET, create and rotate answers carry one.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from ..errors import bad_request, not_found
from ..models import (
    API_KEY_TYPE_COMMON,
    API_KEY_TYPE_MASTER,
    API_KEY_TYPE_TEMPORARY,
    API_KEY_TYPES,
    ApiKey,
    Audit,
)
from ..validation import Body, parse_json_object
from .access import control_account, require_account

if TYPE_CHECKING:
    from datetime import datetime

    from ..state import PlatformState

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
    body.check()
    assert label is not None and type_id is not None
    return label, type_id, valid_to


class ApiKeyService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def _find(self, key: ApiKey, account_id: int, key_id: int) -> ApiKey:
        require_account(self._state, key, account_id)
        found = self._state.tables.api_keys.get(key_id)
        if found is None or found.account_id != account_id or found.revoked:
            raise not_found(OBJECT_TYPE, key_id)
        return found

    def list(self, key: ApiKey, account_id: int) -> list[dict[str, Any]]:
        """The account's keys that are not revoked, without secrets."""
        with self._state.lock:
            require_account(self._state, key, account_id)
            return [
                k.to_api() for k in self._state.tables.api_keys.values() if k.account_id == account_id and not k.revoked
            ]

    def get(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        with self._state.lock:
            return self._find(key, account_id, key_id).to_api(with_secret=True)

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._state.lock:
            require_account(self._state, key, account_id)
            now = self._state.now()
            label, type_id, valid_to = _read_new_key(parse_json_object(raw_body, OBJECT_TYPE), now)
            created = self._store(account_id, type_id, label, Audit.new(now, key.principal), valid_to)
            return created.to_api(with_secret=True)

    def rotate(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        """A new secret for the key; the old one stops working at once."""
        with self._state.lock:
            found = self._find(key, account_id, key_id)
            found.secret = new_secret()
            found.audit.touch(self._state.now(), key.principal)
            return found.to_api(with_secret=True)

    def revoke(self, key: ApiKey, account_id: int, key_id: int) -> dict[str, Any]:
        """Revoke a Common or Temporary key (Master keys: 400); returns it, without its secret."""
        with self._state.lock:
            found = self._find(key, account_id, key_id)
            if found.type_id == API_KEY_TYPE_MASTER:
                raise bad_request(
                    f"ApiKey {key_id} is a Master key (TypeId 1), which cannot be deleted.",
                    OBJECT_TYPE,
                    property_name="TypeId",
                )
            found.revoked = True
            found.audit.touch(self._state.now(), key.principal)
            return found.to_api()

    # -- emulator controls ------------------------------------------------------------------------

    def add(self, account_id: int | None, type_id: int, label: str, principal: str) -> dict[str, Any]:
        """A key of any non-temporary type (Master included) for an account; AccountNotFound otherwise."""
        with self._state.lock:
            account = control_account(self._state, account_id)
            created = self._store(account.id, type_id, label, Audit.new(self._state.now(), principal), None)
            return created.to_api(with_secret=True)

    def _store(self, account_id: int, type_id: int, label: str, audit: Audit, valid_to: datetime | None) -> ApiKey:
        taken = {k.key for k in self._state.tables.api_keys.values()}
        value = new_key()
        while value in taken:
            value = new_key()
        created = ApiKey(
            id=self._state.next_id("api_key"),
            account_id=account_id,
            key=value,
            secret=new_secret(),
            audit=audit,
            type_id=type_id,
            label=label,
            valid_to=valid_to,
        )
        self._state.tables.api_keys[created.id] = created
        return created
