"""Filter group rules: read a contact list's groups; PUT changes a group's own Operator only.

Spec 4.6: "The PUT cannot change any property of subgroups or filters." A PUT may carry ``Groups`` and
``Filters`` as GET answered them (so a read-modify-write of the whole group works); if they would change the
stored subgroups or filters, the PUT is refused with 400 naming the property. "Unchanged" is judged by meaning,
not by bytes: objects are matched by ``Id`` whatever their order in a list, a property left out changes
nothing, a null property the emulator does not hold changes nothing, names are read in any case, and ``1`` is not
``true``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import not_found
from ..models import OPERATORS, ApiKey, ContactList, FilterGroup
from ..store import Store
from ..validation import parse_json_object
from .access import require_owned

OBJECT_TYPE = "FilterGroup"
LIST_OBJECT_TYPE = "ContactList"
# Properties a group PUT cannot change: the platform changes them through the contact list endpoint.
NESTED_PROPERTIES = ("Groups", "Filters")


def _same_scalar(given: Any, stored: Any) -> bool:
    if isinstance(given, bool) or isinstance(stored, bool):
        return type(given) is type(stored) and given == stored
    if isinstance(given, (int, float)) and isinstance(stored, (int, float)):
        return given == stored
    return type(given) is type(stored) and given == stored


def difference(given: Any, stored: Any, path: str) -> str | None:
    """Where ``given`` (a request value) would change ``stored`` (its answer form), or None when it would not."""
    if isinstance(stored, Mapping):
        if not isinstance(given, Mapping):
            return f"{path} is not an object"
        names = {name.lower(): name for name in stored}  # names are read in any case, as the platform reads them
        for name, value in given.items():
            if name.lower() not in names:
                if value is not None:
                    return f"{path}.{name} is not a property the platform holds"
                continue
            found = difference(value, stored[names[name.lower()]], f"{path}.{name}")
            if found is not None:
                return found
        return None
    if isinstance(stored, list):
        return _list_difference(given, stored, path)
    return None if _same_scalar(given, stored) else f"{path} differs from the stored {stored!r}"


def _member(item: Any, name: str) -> Any:
    """The value of an object's property, its name in any case (None when it is not an object or has none)."""
    values = [value for key, value in item.items() if key.lower() == name.lower()] if isinstance(item, Mapping) else []
    return values[-1] if values else None


def _list_difference(given: Any, stored: list[Any], path: str) -> str | None:
    """Lists of objects are matched by Id, whatever their order; each stored one must be there once."""
    if not isinstance(given, list):
        return f"{path} is not a list"
    if len(given) != len(stored):
        return f"{path} holds {len(given)} items, the stored one {len(stored)}"
    by_id = {item.get("Id"): item for item in stored if isinstance(item, Mapping)}
    seen: set[Any] = set()
    for index, item in enumerate(given):
        item_id = _member(item, "Id")
        if not isinstance(item_id, int) or isinstance(item_id, bool) or item_id not in by_id or item_id in seen:
            return f"{path}[{index}] is not one of the stored items (matched by Id)"
        seen.add(item_id)
        found = difference(item, by_id[item_id], f"{path}[{index}]")
        if found is not None:
            return found
    return None


class FilterGroupService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _list(self, key: ApiKey, account_id: int, contact_list_id: int) -> ContactList:
        lists = self._store.tables.contact_lists
        return require_owned(self._store, key, account_id, lists, contact_list_id, LIST_OBJECT_TYPE)

    def _find(self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int) -> FilterGroup:
        self._list(key, account_id, contact_list_id)
        group = self._store.tables.filter_groups.get(group_id)
        if group is None or group.contact_list_id != contact_list_id:
            raise not_found(OBJECT_TYPE, group_id)
        return group

    def list(self, key: ApiKey, account_id: int, contact_list_id: int) -> list[dict[str, Any]]:
        """Every group of the list, flat and by id (each still carrying its own subgroups and filters)."""
        with self._store.lock:
            self._list(key, account_id, contact_list_id)
            groups = (g for g in self._store.tables.filter_groups.values() if g.contact_list_id == contact_list_id)
            return [g.to_api() for g in sorted(groups, key=lambda g: g.id)]

    def get(self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, contact_list_id, group_id).to_api()

    def update(
        self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int, raw_body: bytes
    ) -> dict[str, Any]:
        """Change the group's Operator; Groups or Filters that would change the stored ones are refused (400)."""
        with self._store.lock:
            group = self._find(key, account_id, contact_list_id, group_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            stored = group.to_api()
            for name in NESTED_PROPERTIES:
                given = body.raw(name)
                found = None if given is None else difference(given, stored[name], name)
                if found is not None:
                    body.invalid(
                        name,
                        f"{name} would change ({found}), and the PUT cannot change any property of subgroups or "
                        f"filters: they change through the contact list endpoint (/account/{account_id}/"
                        f"contactlist/{contact_list_id}).",
                    )
            operator = group.operator
            if body.has("Operator"):
                given = body.string("Operator", required=True)
                if given is not None and given not in OPERATORS:
                    body.invalid("Operator", f"Operator must be AND or OR; got {given!r}.")
                elif given is not None:
                    operator = given
            body.ignore("Id", "AccountId", "ContactListId", "ParentId")
            body.check()
            group.operator = operator
            return group.to_api()
