"""Operators for contacts and contact filter groups."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import ContactFields, FilterGroupFields
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
    optional_int,
)

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreateContactOperator",
    "MessagingPlatformGetContactOperator",
    "MessagingPlatformGetFilterGroupOperator",
    "MessagingPlatformListContactsOperator",
    "MessagingPlatformListFilterGroupsOperator",
    "MessagingPlatformUpdateContactOperator",
    "MessagingPlatformUpdateFilterGroupOperator",
]


class MessagingPlatformListContactsOperator(MessagingPlatformBaseOperator):
    """
    List the account's contacts; returns the list. For large accounts, export to storage instead of XCom (the
    contacts export example DAG). Templated.

    :param top: at most this many contacts (OData ``$top``).
    :param skip: skip this many first (OData ``$skip``).
    :param odata_filter: an OData ``$filter`` expression, e.g. ``"StatusId eq 0"``.
    """

    operation = Operations.list_contacts
    template_fields = ("account_id", "messaging_platform_conn_id", "top", "skip", "odata_filter")

    def __init__(
        self,
        *,
        top: Templated[int] | None = None,
        skip: Templated[int] | None = None,
        odata_filter: Templated[str] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.top = top
        self.skip = skip
        self.odata_filter = odata_filter
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_contacts(
                top=optional_int("top", self.top),
                skip=optional_int("skip", self.skip),
                odata_filter=self.odata_filter or None,
                account_id=self.account,
            )
        return self.task_result(context, answer)


class MessagingPlatformGetContactOperator(MessagingPlatformBaseOperator):
    """Get one contact; returns it. ``contact_id`` is templated."""

    operation = Operations.get_contact
    template_fields = ("account_id", "messaging_platform_conn_id", "contact_id")

    def __init__(self, *, contact_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contact_id = contact_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_contact(self.contact_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformCreateContactOperator(MessagingPlatformCreateOperator):
    """
    Create a contact; returns it. Every field is templated.

    :param phone_number: the contact's phone number in E.164 form, as text (``"+15125550100"``). A number is refused:
        ``render_template_as_native_obj=True`` turns a template's ``+15125550100`` into the number 15125550100; see
        the error for how to keep it text.
    :param email_address: the contact's e-mail address. A contact needs ``phone_number`` or ``email_address``, or both.
    :param first_name: the contact's first name.
    :param last_name: the contact's last name.
    :param assigned_id: a whole number of your own that the platform keeps with the contact.
    :param extra: further request fields, merged on top.
    :param idempotent: a retry adopts a contact with the same phone number and e-mail address made after the
        first try began; a contact the account had before is never adopted.
    """

    operation = Operations.create_contact
    template_fields = (
        "account_id", "messaging_platform_conn_id", "phone_number", "email_address", "first_name", "last_name",
        "assigned_id", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        phone_number: Templated[str] | None = None,
        email_address: Templated[str] | None = None,
        first_name: Templated[str] | None = None,
        last_name: Templated[str] | None = None,
        assigned_id: Templated[int] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.phone_number = phone_number
        self.email_address = email_address
        self.first_name = first_name
        self.last_name = last_name
        self.assigned_id = assigned_id
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            fields = self.declared_values(ContactFields)
            answer = self.hook.create_contact(
                extra=self.extra, once=self.once(context), account_id=self.account, **fields
            )
        return self.task_result(context, answer)


class MessagingPlatformUpdateContactOperator(MessagingPlatformBaseOperator):
    """
    Change the given fields of a contact (``None`` fields are not sent); returns it. Templated. The fields are
    those of ``MessagingPlatformCreateContactOperator``.
    """

    operation = Operations.update_contact
    template_fields = (
        "account_id", "messaging_platform_conn_id", "contact_id", "phone_number", "email_address", "first_name",
        "last_name", "assigned_id", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        contact_id: Templated[int],
        phone_number: Templated[str] | None = None,
        email_address: Templated[str] | None = None,
        first_name: Templated[str] | None = None,
        last_name: Templated[str] | None = None,
        assigned_id: Templated[int] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.contact_id = contact_id
        self.phone_number = phone_number
        self.email_address = email_address
        self.first_name = first_name
        self.last_name = last_name
        self.assigned_id = assigned_id
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            fields = self.declared_values(ContactFields)
            answer = self.hook.update_contact(self.contact_id, extra=self.extra, account_id=self.account, **fields)
        return self.task_result(context, answer)


class MessagingPlatformListFilterGroupsOperator(MessagingPlatformBaseOperator):
    """List the filter groups of a contact list (flat); returns the list. ``contact_list_id`` is templated."""

    operation = Operations.list_filter_groups
    template_fields = ("account_id", "messaging_platform_conn_id", "contact_list_id")

    def __init__(self, *, contact_list_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contact_list_id = contact_list_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_filter_groups(self.contact_list_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetFilterGroupOperator(MessagingPlatformBaseOperator):
    """Get one filter group; returns it. Ids are templated."""

    operation = Operations.get_filter_group
    template_fields = ("account_id", "messaging_platform_conn_id", "contact_list_id", "group_id")

    def __init__(self, *, contact_list_id: Templated[int], group_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.contact_list_id = contact_list_id
        self.group_id = group_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_filter_group(self.contact_list_id, self.group_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformUpdateFilterGroupOperator(MessagingPlatformBaseOperator):
    """
    Change a filter group's own fields; returns it. Templated.

    :param operator: AND or OR.
    :param extra: further fields; ``Groups`` and ``Filters`` are refused (change them through the contact list).
    """

    operation = Operations.update_filter_group
    template_fields = ("account_id", "messaging_platform_conn_id", "contact_list_id", "group_id", "operator", "extra")

    def __init__(
        self,
        *,
        contact_list_id: Templated[int],
        group_id: Templated[int],
        operator: Templated[str] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.contact_list_id = contact_list_id
        self.group_id = group_id
        self.operator = operator
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            fields = self.declared_values(FilterGroupFields)
            answer = self.hook.update_filter_group(
                self.contact_list_id, self.group_id, extra=self.extra, account_id=self.account, **fields
            )
        return self.task_result(context, answer)
