"""What the seeded account has beyond its key and action: a contact list with filter groups, contacts, a
channel with a keyword. Ids come from the state's counters, so they are the same after every reset.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .models import Audit, Channel, ContactFilter, ContactList, FilterGroup

if TYPE_CHECKING:
    from .state import PlatformState

SEED_CONTACT_COUNT = 25
SEED_CHANNEL_ID = 22
SEED_CHANNEL_CODE = "55222"
SEED_KEYWORD = "JOIN"

# (FilterTypeId, OperandId, Operation, Value) of the root group's filter and of the subgroup's two filters:
# subscription 1, and a phone number beginning +1555 or an e-mail ending @example.com.
_ROOT_FILTERS = ((2, 1, "=", "1"),)
_SUBGROUP_FILTERS = ((3, 5, "^", "+1555"), (3, 4, "$", "@example.com"))


def seed_resources(state: PlatformState, account_id: int, principal: str) -> dict[str, int]:
    """Create the seeded account's resources; returns their ids as ``GET /_emulator/seed`` shows them."""
    now = state.now()
    contact_list_id = state.next_id("contact_list")
    root = _group(state, account_id, contact_list_id, "AND", None, _ROOT_FILTERS)
    root.groups.append(_group(state, account_id, contact_list_id, "OR", root.id, _SUBGROUP_FILTERS))
    state.tables.contact_lists[contact_list_id] = ContactList(
        contact_list_id, account_id, "All subscribers", Audit.new(now, principal), root.id
    )
    state.contacts.generate(account_id, SEED_CONTACT_COUNT)
    state.tables.channels[SEED_CHANNEL_ID] = Channel(SEED_CHANNEL_ID, account_id, SEED_CHANNEL_CODE)
    keyword = state.keywords.add(SEED_KEYWORD, SEED_CHANNEL_ID, callback_required=True, principal=principal)
    return {
        "contact_list_id": contact_list_id,
        "root_group_id": root.id,
        "channel_id": SEED_CHANNEL_ID,
        "keyword_id": keyword.id,
    }


def _group(
    state: PlatformState,
    account_id: int,
    contact_list_id: int,
    operator: str,
    parent_id: int | None,
    filters: tuple[tuple[int, int, str, str], ...],
) -> FilterGroup:
    group = FilterGroup(state.next_id("filter_group"), account_id, contact_list_id, operator, parent_id)
    for type_id, operand_id, operation, value in filters:
        group.filters.append(
            ContactFilter(state.next_id("contact_filter"), account_id, group.id, type_id, operand_id, operation, value)
        )
    state.tables.filter_groups[group.id] = group
    return group
