"""Callback record rules: create, read, replace (PUT carries the whole record) and hard delete."""

from __future__ import annotations

from typing import Any

from ..models import CALLBACK_TYPES, ApiKey, Callback
from ..store import Store
from ..validation import Body, parse_json_object
from .access import owned_rows, require_account, require_owned

OBJECT_TYPE = "Callback"
_ALLOWED = ", ".join(f"{number} ({name})" for number, name in CALLBACK_TYPES.items())


def _read_callback(body: Body) -> tuple[int, str, bool]:
    """CallbackType (integer), URL (string, an absolute http(s) URL) and Active (boolean); all required (spec 2.5).

    ``Url``, as the vendor's .NET and Java client libraries spell it, is read as ``URL`` (names are read in any
    case) and noted as a departure from the API reference.
    """
    callback_type = body.integer("CallbackType", required=True)
    if callback_type is not None and callback_type not in CALLBACK_TYPES:
        body.invalid("CallbackType", f"CallbackType must be one of {_ALLOWED}; got {callback_type}.")
    url = body.url("URL", required=True)
    active = body.boolean("Active", required=True)
    body.ignore("Id", "AccountId")
    body.check()
    assert callback_type is not None and url is not None and active is not None
    return callback_type, url, active


class CallbackService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _find(self, key: ApiKey, account_id: int, callback_id: int) -> Callback:
        return require_owned(self._store, key, account_id, self._store.tables.callbacks, callback_id, OBJECT_TYPE)

    def list(self, key: ApiKey, account_id: int) -> list[dict[str, Any]]:
        with self._store.lock:
            records = owned_rows(self._store, key, account_id, self._store.tables.callbacks.values())
            return [c.to_api() for c in records]

    def get(self, key: ApiKey, account_id: int, callback_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, callback_id).to_api()

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            require_account(self._store, key, account_id)
            callback_type, url, active = _read_callback(parse_json_object(raw_body, OBJECT_TYPE))
            created = Callback(self._store.next_id("callback"), account_id, callback_type, url, active)
            self._store.tables.callbacks[created.id] = created
            return created.to_api()

    def update(self, key: ApiKey, account_id: int, callback_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            found = self._find(key, account_id, callback_id)
            found.callback_type, found.url, found.active = _read_callback(parse_json_object(raw_body, OBJECT_TYPE))
            return found.to_api()

    def delete(self, key: ApiKey, account_id: int, callback_id: int) -> dict[str, Any]:
        """Hard delete; returns the record as it was."""
        with self._store.lock:
            found = self._find(key, account_id, callback_id)
            del self._store.tables.callbacks[found.id]
            return found.to_api()
