"""Contact rules: the account's contacts by id, with OData ``$filter``, ``$skip`` and ``$top``; generated in blocks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import not_found
from ..models import ApiKey, ContactBlock, ContactPage
from ..odata import INTEGER, STRING, Predicate, read_list_query
from ..store import Store
from .access import require_account
from .accounts import AccountService

OBJECT_TYPE = "Contact"
MAX_GENERATED = 1_000_000
# $filter properties: the scalar ones of a contact (spec 2.2); Subscriptions and Attributes are collections.
FILTER_PROPERTIES = {
    "Id": INTEGER,
    "AccountId": INTEGER,
    "StatusId": INTEGER,
    "PhoneNumber": STRING,
    "Email": STRING,
    "Created": STRING,
    "CreatedBy": STRING,
    "Modified": STRING,
    "ModifiedBy": STRING,
}
Slices = list[tuple[ContactBlock, int, int]]


def _window(blocks: list[ContactBlock], offset: int, limit: int | None) -> Slices:
    """Contacts ``offset`` to ``offset + limit`` of the blocks, as (block, first offset, end offset) slices."""
    slices: Slices = []
    remaining = limit
    for block in blocks:
        if remaining == 0:
            break
        if offset >= block.count:
            offset -= block.count
            continue
        end = block.count if remaining is None else min(block.count, offset + remaining)
        slices.append((block, offset, end))
        if remaining is not None:
            remaining -= end - offset
        offset = 0
    return slices


def _matching(blocks: list[ContactBlock], predicate: Predicate, skip: int, limit: int | None) -> Slices:
    """The contacts that match, after skipping ``skip`` matches, at most ``limit``; runs merged into slices."""
    slices: Slices = []
    seen = 0
    for block in blocks:
        for offset in range(block.count):
            if limit is not None and seen >= skip + limit:
                return slices
            if not predicate(block.contact(offset)):
                continue
            seen += 1
            if seen <= skip:
                continue
            if slices and slices[-1][0] is block and slices[-1][2] == offset:
                slices[-1] = (block, slices[-1][1], offset + 1)
            else:
                slices.append((block, offset, offset + 1))
    return slices


class ContactService:
    def __init__(self, store: Store, accounts: AccountService) -> None:
        self._store = store
        self._accounts = accounts

    def _blocks(self, account_id: int) -> list[ContactBlock]:
        """The account's blocks by id (blocks are made in id order, so the table already is)."""
        return [b for b in self._store.tables.contact_blocks.values() if b.account_id == account_id]

    def list(self, key: ApiKey, account_id: int, options: Mapping[str, str | None]) -> ContactPage:
        """Contacts ordered by Id: those matching ``$filter``, then skip ``$skip``, then at most ``$top``.

        The page is rendered while it is sent, and a filter is applied, outside the lock: blocks never change
        once made.
        """
        with self._store.lock:
            require_account(self._store, key, account_id)
            query = read_list_query(options, FILTER_PROPERTIES, OBJECT_TYPE)
            blocks = self._blocks(account_id)
        if query.predicate is None:
            return ContactPage(tuple(_window(blocks, query.skip, query.top)))
        return ContactPage(tuple(_matching(blocks, query.predicate, query.skip, query.top)))

    def get(self, key: ApiKey, account_id: int, contact_id: int) -> dict[str, Any]:
        """One contact of the account (404 ``Contact`` when it has none with that id)."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            found = self.find(account_id, contact_id)
            if found is None:
                raise not_found(OBJECT_TYPE, contact_id)
            return found

    def find(self, account_id: int, contact_id: int) -> dict[str, Any] | None:
        """The API form of the account's contact, or None. Caller holds the lock."""
        for block in self._blocks(account_id):
            if block.first_id <= contact_id <= block.last_id:
                return block.contact(contact_id - block.first_id)
        return None

    def id_with_phone(self, account_id: int, phone: str) -> int | None:
        """The id of the account's first contact with that phone number, or None. Caller holds the lock."""
        for block in self._blocks(account_id):
            found = block.id_with_phone(phone)
            if found is not None:
                return found
        return None

    def first(self, account_id: int) -> dict[str, Any] | None:
        """The API form of the account's first contact, or None when it has none. Caller holds the lock."""
        blocks = self._blocks(account_id)
        return blocks[0].contact(0) if blocks else None

    def generate(self, account_id: int, count: int) -> ContactBlock:
        """Add ``count`` generated contacts to an account. Caller holds the lock."""
        ordinal = sum(b.count for b in self._blocks(account_id))
        first_id = self._store.reserve_ids("contact", count)
        block = ContactBlock(account_id, first_id, count, ordinal, self._store.now())
        self._store.tables.contact_blocks[first_id] = block
        return block

    # -- emulator controls ------------------------------------------------------------------------

    def add(self, account_id: int | None, count: int) -> dict[str, Any]:
        """Generated contacts for an account (the seeded one by default); AccountNotFound otherwise."""
        with self._store.lock:
            account = self._accounts.control_account(account_id)
            block = self.generate(account.id, count)
            return {
                "account_id": account.id,
                "first_id": block.first_id,
                "last_id": block.last_id,
                "count": block.count,
                "total": block.first_ordinal + block.count,
            }
