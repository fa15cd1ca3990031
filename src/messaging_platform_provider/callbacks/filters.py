"""Which stored callbacks a trigger or sensor wants: one filter shared by the SQL query and the in-memory check."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from messaging_platform_provider.callbacks.models import CALLBACK_TYPE_NAMES, callback_type_number


def _many(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, str | int):
        return [value]
    return list(value)


def normalise_phone(value: str) -> str:
    """Digits with a leading ``+`` kept: ``+1 (555) 010-0000`` and ``+15550100000`` are the same number."""
    text = str(value).strip()
    digits = "".join(ch for ch in text if ch.isdigit())
    return ("+" if text.startswith("+") else "") + digits


@dataclass(frozen=True)
class CallbackFilter:
    """
    Every given criterion must hold; within one criterion any listed value matches. Empty: no restriction.

    :param callback_types: names or numbers (``"Keyword"``, ``3``).
    :param keywords: keyword names, compared case-insensitively (Keyword callbacks carry one).
    :param account_ids: the payload's AccountId.
    :param phone_numbers: the payload's PhoneNumber, compared on digits (and a leading ``+``).
    """

    callback_types: tuple[int, ...] = ()
    keywords: tuple[str, ...] = ()
    account_ids: tuple[int, ...] = ()
    phone_numbers: tuple[str, ...] = ()

    @classmethod
    def build(
        cls,
        callback_types: Iterable[int | str] | int | str | None = None,
        keywords: Iterable[str] | str | None = None,
        account_ids: Iterable[int | str] | int | str | None = None,
        phone_numbers: Iterable[str] | str | None = None,
    ) -> CallbackFilter:
        return cls(
            tuple(sorted({callback_type_number(t) for t in _many(callback_types)})),
            tuple(sorted({str(k).strip().upper() for k in _many(keywords)})),
            tuple(sorted({int(a) for a in _many(account_ids)})),
            tuple(sorted({normalise_phone(p) for p in _many(phone_numbers)})),
        )

    def to_kwargs(self) -> dict[str, list[Any]]:
        return {
            "callback_types": list(self.callback_types),
            "keywords": list(self.keywords),
            "account_ids": list(self.account_ids),
            "phone_numbers": list(self.phone_numbers),
        }

    def matches(self, callback_type: int, account_id: int, keyword: str | None, phone_number: str | None) -> bool:
        if self.callback_types and callback_type not in self.callback_types:
            return False
        if self.account_ids and account_id not in self.account_ids:
            return False
        if self.keywords and (keyword or "").upper() not in self.keywords:
            return False
        if self.phone_numbers and normalise_phone(phone_number or "") not in self.phone_numbers:
            return False
        return True

    def describe(self) -> str:
        parts = []
        if self.callback_types:
            parts.append("type=" + "|".join(CALLBACK_TYPE_NAMES[t] for t in self.callback_types))
        if self.keywords:
            parts.append("keyword=" + "|".join(self.keywords))
        if self.account_ids:
            parts.append("account=" + "|".join(str(a) for a in self.account_ids))
        if self.phone_numbers:
            parts.append("phone=" + "|".join(self.phone_numbers))
        return ",".join(parts) or "all"
