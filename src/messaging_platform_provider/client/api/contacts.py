"""Contacts (spec 4.7; create and update as the vendor's client libraries call them) and filter groups (spec 4.6)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from typing_extensions import Unpack

from messaging_platform_provider.client.api.base import ApiBase
from messaging_platform_provider.client.bodies import ContactFields, FilterGroupFields, contact_rules
from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.fields import extra_fields, to_wire
from messaging_platform_provider.client.once import CreateOnce
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.values import filter_expression

#: What a filter group holds that its own endpoint cannot change (the contact list's endpoint does).
_FROZEN_GROUP_FIELDS = ("Groups", "Filters")


def filter_group_body(fields: Mapping[str, Any], extra: Mapping[str, Any] | None) -> dict[str, Any]:
    extra = extra_fields(extra)
    for key in extra:
        if key.lower() in (f.lower() for f in _FROZEN_GROUP_FIELDS):
            raise MessagingPlatformValidationError(
                key,
                "subgroups and filters cannot be changed through the filter group endpoint; change them through "
                "the contact list endpoint (account/{accountId}/contactList/{contactListId})",
            )
    body = {**extra, **to_wire(FilterGroupFields, fields)}
    if not body:
        raise MessagingPlatformValidationError("body", "update_filter_group needs a field to change")
    return body


class ContactApi(ApiBase):
    def list_contacts(
        self,
        *,
        top: int | None = None,
        skip: int | None = None,
        odata_filter: str | None = None,
        account_id: int | None = None,
    ) -> list[dict[str, Any]]:
        """
        Contacts of the account; ``top``/``skip`` page through them and ``odata_filter`` selects them with an
        OData ``$filter`` expression such as ``"StatusId eq 0"`` (the platform's OData query options).
        """
        for name, value in (("top", top), ("skip", skip)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise MessagingPlatformValidationError(name, f"must be a whole number of at least 0, got {value!r}")
        query = {"$top": top, "$skip": skip, "$filter": filter_expression("odata_filter", odata_filter)}
        return self._many(Operations.list_contacts, account_id=account_id, query=query)

    def get_contact(self, contact_id: int | str, *, account_id: int | None = None) -> dict[str, Any]:
        """One contact by its id."""
        return self._one(Operations.get_contact, account_id=account_id, contact_id=contact_id)

    def create_contact(
        self,
        *,
        extra: Mapping[str, Any] | None = None,
        once: CreateOnce | None = None,
        account_id: int | None = None,
        **fields: Unpack[ContactFields],
    ) -> dict[str, Any]:
        """
        Create a contact; it needs ``phone_number`` (E.164 text such as ``"+15125550100"``) or ``email_address``, or
        both. ``first_name``, ``last_name`` and ``assigned_id`` (a whole number of your own) are optional. Given
        ``once``, a retry adopts the contact with the same phone number and e-mail address that an earlier try made.
        """
        body = contact_rules(to_wire(ContactFields, fields))
        return self._create(Operations.create_contact, {**body, **extra_fields(extra)}, once, account_id)

    def update_contact(
        self,
        contact_id: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **fields: Unpack[ContactFields],
    ) -> dict[str, Any]:
        """Change the given fields of a contact (those of ``create_contact``); fields left ``None`` are not sent."""
        body = {**to_wire(ContactFields, fields), **extra_fields(extra)}
        if not body:
            raise MessagingPlatformValidationError("body", "update_contact needs at least one field to change")
        return self._one(Operations.update_contact, account_id=account_id, contact_id=contact_id, body=body)

    def iter_contacts(
        self, *, page_size: int = 1000, odata_filter: str | None = None, account_id: int | None = None
    ) -> Iterator[dict[str, Any]]:
        """Every contact (that ``odata_filter`` selects), one page in memory at a time."""
        if page_size < 1:
            raise MessagingPlatformValidationError("page_size", f"must be at least 1, got {page_size!r}")
        skip = 0
        while True:
            page = self.list_contacts(top=page_size, skip=skip, odata_filter=odata_filter, account_id=account_id)
            yield from page
            if len(page) < page_size:
                return
            skip += len(page)

    def list_filter_groups(self, contact_list_id: int | str, *, account_id: int | None = None) -> list[dict[str, Any]]:
        """The filter groups of a contact list, as one flat list."""
        return self._many(Operations.list_filter_groups, account_id=account_id, contact_list_id=contact_list_id)

    def get_filter_group(
        self, contact_list_id: int | str, group_id: int | str, *, account_id: int | None = None
    ) -> dict[str, Any]:
        """One filter group of a contact list."""
        return self._one(
            Operations.get_filter_group, account_id=account_id, contact_list_id=contact_list_id, group_id=group_id
        )

    def update_filter_group(
        self,
        contact_list_id: int | str,
        group_id: int | str,
        *,
        extra: Mapping[str, Any] | None = None,
        account_id: int | None = None,
        **fields: Unpack[FilterGroupFields],
    ) -> dict[str, Any]:
        """Change a filter group's own fields (``operator`` AND/OR); subgroups and filters are refused."""
        return self._one(
            Operations.update_filter_group,
            account_id=account_id,
            contact_list_id=contact_list_id,
            group_id=group_id,
            body=filter_group_body(fields, extra),
        )
