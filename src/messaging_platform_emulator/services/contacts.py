"""Contact rules: the account's contacts by id, paged with OData ``$top``/``$skip``; generated in blocks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..models import ContactBlock, ContactPage
from ..validation import read_paging
from .access import control_account, require_account

if TYPE_CHECKING:
    from ..models import ApiKey
    from ..state import PlatformState

OBJECT_TYPE = "Contact"
MAX_GENERATED = 1_000_000


class ContactService:
    def __init__(self, state: PlatformState) -> None:
        self._state = state

    def _blocks(self, account_id: int) -> list[ContactBlock]:
        """The account's blocks by id (blocks are made in id order, so the table already is)."""
        return [b for b in self._state.tables.contact_blocks.values() if b.account_id == account_id]

    def list(self, key: ApiKey, account_id: int, top: str | None, skip: str | None) -> ContactPage:
        """Contacts ordered by Id: skip ``$skip``, then at most ``$top`` (all when absent).

        The page is rendered while it is sent, outside the lock: blocks never change once made.
        """
        with self._state.lock:
            require_account(self._state, key, account_id)
            limit, offset = read_paging(top, skip, OBJECT_TYPE)
            slices: list[tuple[ContactBlock, int, int]] = []
            remaining = limit
            for block in self._blocks(account_id):
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
            return ContactPage(tuple(slices))

    def generate(self, account_id: int, count: int) -> ContactBlock:
        """Add ``count`` generated contacts to an account. Caller holds the lock."""
        ordinal = sum(b.count for b in self._blocks(account_id))
        first_id = self._state.reserve_ids("contact", count)
        block = ContactBlock(account_id, first_id, count, ordinal, self._state.now())
        self._state.tables.contact_blocks[first_id] = block
        return block

    # -- emulator controls ------------------------------------------------------------------------

    def add(self, account_id: int | None, count: int) -> dict[str, Any]:
        """Generated contacts for an account (the seeded one by default); AccountNotFound otherwise."""
        with self._state.lock:
            account = control_account(self._state, account_id)
            block = self.generate(account.id, count)
            return {
                "account_id": account.id,
                "first_id": block.first_id,
                "last_id": block.last_id,
                "count": block.count,
                "total": block.first_ordinal + block.count,
            }
