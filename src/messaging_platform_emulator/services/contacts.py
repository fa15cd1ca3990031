"""Contact rules: the account's contacts by id, with OData ``$filter``, ``$skip`` and ``$top``; generated in blocks;
created and changed one at a time (platform facts §11: POST ``contact``, PUT ``contact/{contactId}``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import not_found
from ..models import AUDIT_PROPERTIES, ApiKey, Audit, Contact, ContactBlock, ContactPage, read_contact
from ..odata import INTEGER, STRING, Predicate, read_list_query
from ..store import Store
from ..validation import Body, parse_json_object
from .access import require_account
from .accounts import AccountService
from .channels import LONG_CODE

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
#: Text properties a create or update reads as they are sent: (API name, attribute).
_NAMES = (("FirstName", "first_name"), ("LastName", "last_name"))


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


def _matching(
    blocks: list[ContactBlock], held: Mapping[int, Contact], predicate: Predicate, skip: int, limit: int | None
) -> Slices:
    """The contacts that match, after skipping ``skip`` matches, at most ``limit``; runs merged into slices."""
    slices: Slices = []
    seen = 0
    for block in blocks:
        for offset in range(block.count):
            if limit is not None and seen >= skip + limit:
                return slices
            if not predicate(read_contact(block, offset, held)):
                continue
            seen += 1
            if seen <= skip:
                continue
            if slices and slices[-1][0] is block and slices[-1][2] == offset:
                slices[-1] = (block, slices[-1][1], offset + 1)
            else:
                slices.append((block, offset, offset + 1))
    return slices


def _phone_number(body: Body) -> str | None:
    """``PhoneNumber``: a phone number in E.164 form, as a long code is written; blank reads as null."""
    text = body.string("PhoneNumber")
    if text is None or not text.strip():
        return None
    if not LONG_CODE.match(text.strip()):
        body.invalid(
            "PhoneNumber", f"PhoneNumber must be a phone number in E.164 form such as +15125550100; got {text!r}."
        )
        return None
    return text.strip()


def _email(body: Body) -> str | None:
    """``Email``: no white space and an ``@`` between two non-empty parts (as .NET's ``[EmailAddress]`` checks, and
    stricter on spaces); blank reads as null."""
    text = body.string("Email")
    if text is None or not text.strip():
        return None
    local, at, domain = text.strip().rpartition("@")
    if not (local and at and domain) or any(character.isspace() for character in text.strip()):
        body.invalid("Email", f"Email must be an e-mail address such as ann@example.com; got {text!r}.")
        return None
    return text.strip()


def _read_changes(body: Body) -> dict[str, Any]:
    """The changes a create or update body gives: the properties present only, null clearing one.

    ``Subscriptions`` and ``Attributes`` change through endpoints of their own on the platform
    (``contact/{id}/subscription``, ``contact/{id}/attribute``): a body may carry them back as GET answered them,
    and they are not read, nor are the other answer-only properties.
    """
    changes: dict[str, Any] = {}
    if body.has("PhoneNumber"):
        changes["phone_number"] = _phone_number(body)
    if body.has("Email"):
        changes["email"] = _email(body)
    for name, attribute in _NAMES:
        if body.has(name):
            changes[attribute] = body.string(name)
    if body.has("AssignedId"):
        changes["assigned_id"] = body.integer("AssignedId")
    body.ignore("Id", "AccountId", "StatusId", "Subscriptions", "Attributes", *AUDIT_PROPERTIES)
    return changes


def _kept(body: Body, name: str, held: str | None) -> bool:
    """Whether the contact has ``name`` after the request: sent and not null or blank, or not sent and held."""
    if not body.has(name):
        return held is not None
    value = body.raw(name)
    return value is not None and not (isinstance(value, str) and not value.strip())


def _require_reachable(body: Body, phone_number: str | None, email: str | None) -> None:
    """A contact keeps a PhoneNumber or an Email, or both (PropertyRequired naming PhoneNumber otherwise)."""
    if not _kept(body, "PhoneNumber", phone_number) and not _kept(body, "Email", email):
        body.missing("PhoneNumber", "A contact needs a PhoneNumber or an Email, or both.")


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
        once made, and a contact held whole is replaced, never changed in place.
        """
        with self._store.lock:
            require_account(self._store, key, account_id)
            query = read_list_query(options, FILTER_PROPERTIES, OBJECT_TYPE)
            blocks = self._blocks(account_id)
            held = self._store.tables.contacts
        if query.predicate is None:
            return ContactPage(tuple(_window(blocks, query.skip, query.top)), held)
        return ContactPage(tuple(_matching(blocks, held, query.predicate, query.skip, query.top)), held)

    def get(self, key: ApiKey, account_id: int, contact_id: int) -> dict[str, Any]:
        """One contact of the account (404 ``Contact`` when it has none with that id)."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            found = self.find(account_id, contact_id)
            if found is None:
                raise not_found(OBJECT_TYPE, contact_id)
            return found

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        """A new contact, held whole under the id of a block of one (so it is listed in id order)."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            changes = _read_changes(body)
            _require_reachable(body, None, None)
            body.check()
            block = self.generate(account_id, 1)
            audit = Audit.new(self._store.now(), key.principal)
            contact = Contact(id=block.first_id, account_id=account_id, audit=audit, **changes)
            self._store.tables.contacts[contact.id] = contact
            return contact.to_api()

    def update(self, key: ApiKey, account_id: int, contact_id: int, raw_body: bytes) -> dict[str, Any]:
        """Partial update: only the properties present in the body change; the contact keeps a PhoneNumber or an
        Email. A generated contact is held whole from then on."""
        with self._store.lock:
            require_account(self._store, key, account_id)
            current = self._whole(account_id, contact_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            changes = _read_changes(body)
            _require_reachable(body, current.phone_number, current.email)
            body.check()
            audit = Audit(current.audit.created, current.audit.created_by, self._store.now(), key.principal)
            changed = replace(current, audit=audit, **changes)
            self._store.tables.contacts[contact_id] = changed
            return changed.to_api()

    def _whole(self, account_id: int, contact_id: int) -> Contact:
        """The account's contact as a ``Contact`` (404 ``Contact`` when it has none with that id)."""
        held = self._store.tables.contacts.get(contact_id)
        if held is not None and held.account_id == account_id:
            return held
        block = self._block_of(account_id, contact_id)
        if block is None:
            raise not_found(OBJECT_TYPE, contact_id)
        return block.held_whole(contact_id - block.first_id)

    def _block_of(self, account_id: int, contact_id: int) -> ContactBlock | None:
        for block in self._blocks(account_id):
            if block.first_id <= contact_id <= block.last_id:
                return block
        return None

    def find(self, account_id: int, contact_id: int) -> dict[str, Any] | None:
        """The API form of the account's contact, or None. Caller holds the lock."""
        block = self._block_of(account_id, contact_id)
        if block is None:
            return None
        return read_contact(block, contact_id - block.first_id, self._store.tables.contacts)

    def id_with_phone(self, account_id: int, phone: str) -> int | None:
        """The id of the account's first contact with that phone number, or None. Caller holds the lock."""
        held = self._store.tables.contacts
        found = [c.id for c in held.values() if c.account_id == account_id and c.phone_number == phone]
        for block in self._blocks(account_id):
            generated = block.id_with_phone(phone)
            if generated is not None and generated not in held:  # a contact held whole has its own number
                found.append(generated)
                break
        return min(found, default=None)

    def first(self, account_id: int) -> dict[str, Any] | None:
        """The API form of the account's first contact, or None when it has none. Caller holds the lock."""
        blocks = self._blocks(account_id)
        return read_contact(blocks[0], 0, self._store.tables.contacts) if blocks else None

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
