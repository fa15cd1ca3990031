"""Contact lists and their tree of filter groups and filters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .base import Audit

# FilterGroup Operator values.
OPERATORS = ("AND", "OR")


@dataclass
class ContactFilter:
    id: int
    account_id: int
    group_id: int
    filter_type_id: int
    operand_id: int
    operation: str
    value: str

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "GroupId": self.group_id,
            "FilterTypeId": self.filter_type_id,
            "OperandId": self.operand_id,
            "Operation": self.operation,
            "Value": self.value,
        }


@dataclass
class FilterGroup:
    id: int
    account_id: int
    contact_list_id: int
    operator: str
    parent_id: int | None = None
    filters: list[ContactFilter] = field(default_factory=list)
    groups: list[FilterGroup] = field(default_factory=list)

    def to_api(self) -> dict[str, Any]:
        return {
            "Id": self.id,
            "AccountId": self.account_id,
            "ContactListId": self.contact_list_id,
            "ParentId": self.parent_id,
            "Operator": self.operator,
            "Filters": [f.to_api() for f in self.filters],
            "Groups": [g.to_api() for g in self.groups],
        }


@dataclass
class ContactList:
    id: int
    account_id: int
    name: str
    audit: Audit
    root_group_id: int
