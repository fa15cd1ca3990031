"""The seed: the seeded account (from ``AccountService``) and what only it has beyond its key and action, a
contact list with filter groups, contacts, a short code with a keyword, and a long code to place voice calls from.

Ids come from the store's counters, so they are the same after every reset.
"""

from __future__ import annotations

from dataclasses import replace

from .models import SYSTEM_PRINCIPAL, Audit, ContactFilter, ContactList, FilterGroup
from .services.accounts import AccountService, Seed
from .services.channels import ChannelService
from .services.contacts import ContactService
from .services.keywords import KeywordService
from .store import Store

SEED_CONTACT_COUNT = 25
SEED_CHANNEL_ID = 22
SEED_CHANNEL_CODE = "55222"
SEED_LONG_CODE = "+15125550100"
SEED_KEYWORD = "JOIN"

# (FilterTypeId, OperandId, Operation, Value) of the root group's filter and of the subgroup's two filters:
# subscription 1, and a phone number beginning +1555 or an e-mail ending @example.com.
_ROOT_FILTERS = ((2, 1, "=", "1"),)
_SUBGROUP_FILTERS = ((3, 5, "^", "+1555"), (3, 4, "$", "@example.com"))


def seed_platform(
    store: Store, accounts: AccountService, contacts: ContactService, keywords: KeywordService, channels: ChannelService
) -> Seed:
    """Create the seeded account and its resources; ``resources`` holds their ids as ``GET /_emulator/seed``
    shows them."""
    with store.lock:
        account = accounts.create_seeded()
        account_id = account.account_id
        now = store.now()
        contact_list_id = store.next_id("contact_list")
        root = _group(store, account_id, contact_list_id, "AND", None, _ROOT_FILTERS)
        root.groups.append(_group(store, account_id, contact_list_id, "OR", root.id, _SUBGROUP_FILTERS))
        store.tables.contact_lists[contact_list_id] = ContactList(
            contact_list_id, account_id, "All subscribers", Audit.new(now, SYSTEM_PRINCIPAL), root.id
        )
        contacts.generate(account_id, SEED_CONTACT_COUNT)
        short_code = channels.store(account_id, SEED_CHANNEL_CODE)
        assert short_code.id == SEED_CHANNEL_ID
        long_code = channels.store(account_id, SEED_LONG_CODE)
        keyword = keywords.add(SEED_KEYWORD, SEED_CHANNEL_ID, callback_required=True)
        resources = {
            "contact_list_id": contact_list_id,
            "root_group_id": root.id,
            "channel_id": SEED_CHANNEL_ID,
            "keyword_id": keyword.id,
            "long_code_channel_id": long_code.id,
        }
        return replace(account, resources=resources)


def _group(
    store: Store,
    account_id: int,
    contact_list_id: int,
    operator: str,
    parent_id: int | None,
    filters: tuple[tuple[int, int, str, str], ...],
) -> FilterGroup:
    group = FilterGroup(store.next_id("filter_group"), account_id, contact_list_id, operator, parent_id)
    for type_id, operand_id, operation, value in filters:
        group.filters.append(
            ContactFilter(store.next_id("contact_filter"), account_id, group.id, type_id, operand_id, operation, value)
        )
    store.tables.filter_groups[group.id] = group
    return group
