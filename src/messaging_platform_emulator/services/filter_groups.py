"""Filter group rules: read a contact list's groups; PUT changes a group's own Operator only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import not_found
from ..models import OPERATORS, ContactList, FilterGroup
from ..validation import parse_json_object
from .access import require_account

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "FilterGroup"
LIST_OBJECT_TYPE = "ContactList"
# Properties a group PUT may not carry: the platform changes them through the contact list endpoint.
NESTED_PROPERTIES = ("Groups", "Filters")


class FilterGroupService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def _list(self, key: ApiKey, account_id: int, contact_list_id: int) -> ContactList:
        require_account(self._state, key, account_id)
        found = self._state.tables.contact_lists.get(contact_list_id)
        if found is None or found.account_id != account_id:
            raise not_found(LIST_OBJECT_TYPE, contact_list_id)
        return found

    def _find(self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int) -> FilterGroup:
        self._list(key, account_id, contact_list_id)
        group = self._state.tables.filter_groups.get(group_id)
        if group is None or group.contact_list_id != contact_list_id:
            raise not_found(OBJECT_TYPE, group_id)
        return group

    def list(self, key: ApiKey, account_id: int, contact_list_id: int) -> list[dict[str, Any]]:
        """Every group of the list, flat and by id (each still carrying its own subgroups and filters)."""
        with self._state.lock:
            self._list(key, account_id, contact_list_id)
            groups = (g for g in self._state.tables.filter_groups.values() if g.contact_list_id == contact_list_id)
            return [g.to_api() for g in sorted(groups, key=lambda g: g.id)]

    def get(self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int) -> dict[str, Any]:
        with self._state.lock:
            return self._find(key, account_id, contact_list_id, group_id).to_api()

    def update(
        self, key: ApiKey, account_id: int, contact_list_id: int, group_id: int, raw_body: bytes
    ) -> dict[str, Any]:
        """Change the group's Operator; a body with Groups or Filters is refused (400)."""
        with self._state.lock:
            group = self._find(key, account_id, contact_list_id, group_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            for name in NESTED_PROPERTIES:
                if body.has(name):
                    body.invalid(
                        name,
                        f"{name} cannot be changed through the filter group endpoint: subgroups and filters are "
                        f"changed through the contact list endpoint (/account/{account_id}/contactlist/"
                        f"{contact_list_id}).",
                    )
            operator = group.operator
            if body.has("Operator"):
                given = body.string("Operator", required=True)
                if given is not None and given not in OPERATORS:
                    body.invalid("Operator", f"Operator must be AND or OR; got {given!r}.")
                elif given is not None:
                    operator = given
            body.check()
            group.operator = operator
            return group.to_api()
