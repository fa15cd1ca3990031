"""External coupon list rules: lists with their codes; codes are added through the list's create and update."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..errors import not_found
from ..models import AUDIT_PROPERTIES, MAX_COUPON_CODE_LENGTH, ApiKey, Audit, ExternalCouponCode, ExternalCouponList
from ..store import Store
from ..validation import Body, parse_json_object
from .access import owned_rows, require_account, require_owned

OBJECT_TYPE = "ExternalCouponList"
CODE_OBJECT_TYPE = "ExternalCouponCode"
# Answer rows; named here because the service's ``list`` method hides the builtin inside the class.
Rows = list[dict[str, Any]]


@dataclass
class CouponListInput:
    """Validated list properties of a create (all) or update (only those given) body."""

    changes: dict[str, Any]
    codes: list[str]


def read_coupon_list(body: Body, *, creating: bool) -> CouponListInput:
    """Collect the list properties of ``body``; problems go to ``body.errors`` (the caller checks)."""
    changes: dict[str, Any] = {}
    if creating or body.has("Name"):
        changes["name"] = body.string("Name", required=True)
    if body.has("Description"):
        changes["description"] = body.string("Description")
    if body.has("Inheritable"):
        changes["inheritable"] = bool(body.boolean("Inheritable"))
    codes = body.string_list(
        "CouponCodes",
        max_length=MAX_COUPON_CODE_LENGTH,
        rule=f"a non-empty string of at most {MAX_COUPON_CODE_LENGTH} characters",
    )
    body.ignore("Id", "AccountId", "TotalCodesAvailable", *AUDIT_PROPERTIES)
    return CouponListInput(changes, codes or [])


class CouponListService:
    def __init__(self, store: Store) -> None:
        self._store = store

    def _find(self, key: ApiKey, account_id: int, list_id: int) -> ExternalCouponList:
        return require_owned(self._store, key, account_id, self._store.tables.coupon_lists, list_id, OBJECT_TYPE)

    def find(self, account_id: int, list_id: int) -> ExternalCouponList | None:
        """The account's list, or None. Caller holds the lock."""
        found = self._store.tables.coupon_lists.get(list_id)
        return found if found is not None and found.account_id == account_id else None

    def list(self, key: ApiKey, account_id: int) -> Rows:
        with self._store.lock:
            lists = owned_rows(self._store, key, account_id, self._store.tables.coupon_lists.values())
            return [c.to_api() for c in lists]

    def get(self, key: ApiKey, account_id: int, list_id: int) -> dict[str, Any]:
        with self._store.lock:
            return self._find(key, account_id, list_id).to_api()

    def create(self, key: ApiKey, account_id: int, raw_body: bytes) -> dict[str, Any]:
        with self._store.lock:
            require_account(self._store, key, account_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            given = read_coupon_list(body, creating=True)
            body.check()
            return self.store(account_id, given, key.principal).to_api()

    def update(self, key: ApiKey, account_id: int, list_id: int, raw_body: bytes) -> dict[str, Any]:
        """Change the properties given; CouponCodes given are added (codes already in the list are ignored)."""
        with self._store.lock:
            found = self._find(key, account_id, list_id)
            body = parse_json_object(raw_body, OBJECT_TYPE)
            given = read_coupon_list(body, creating=False)
            body.check()
            for attribute, value in given.changes.items():
                setattr(found, attribute, value)
            now = self._store.now()
            self._add_codes(found, given.codes)
            found.audit.touch(now, key.principal)
            return found.to_api()

    def delete(self, key: ApiKey, account_id: int, list_id: int) -> dict[str, Any]:
        """Hard delete of the list and its codes; returns the list as it was."""
        with self._store.lock:
            found = self._find(key, account_id, list_id)
            del self._store.tables.coupon_lists[found.id]
            return found.to_api()

    def store(self, account_id: int, given: CouponListInput, principal: str) -> ExternalCouponList:
        """Create a validated list (also used for a list defined inline in a coupon definition)."""
        created = ExternalCouponList(
            id=self._store.next_id("coupon_list"),
            account_id=account_id,
            audit=Audit.new(self._store.now(), principal),
            **given.changes,
        )
        self._add_codes(created, given.codes)
        self._store.tables.coupon_lists[created.id] = created
        return created

    def _add_codes(self, target: ExternalCouponList, codes: Iterable[str]) -> None:
        now = self._store.now()
        for code in codes:
            if code not in target.codes:
                target.codes[code] = ExternalCouponCode(
                    self._store.next_id("coupon_code"), target.account_id, target.id, code, now
                )

    # -- codes ------------------------------------------------------------------------------------

    def _find_code(self, key: ApiKey, account_id: int, list_id: int, coupon_code: str) -> ExternalCouponCode:
        found = self._find(key, account_id, list_id).codes.get(coupon_code)
        if found is None:
            raise not_found(CODE_OBJECT_TYPE, coupon_code)
        return found

    def list_codes(self, key: ApiKey, account_id: int, list_id: int) -> Rows:
        with self._store.lock:
            return [c.to_api() for c in self._find(key, account_id, list_id).codes.values()]

    def get_code(self, key: ApiKey, account_id: int, list_id: int, coupon_code: str) -> dict[str, Any]:
        with self._store.lock:
            return self._find_code(key, account_id, list_id, coupon_code).to_api()

    def delete_code(self, key: ApiKey, account_id: int, list_id: int, coupon_code: str) -> dict[str, Any]:
        """Remove one code from its list; returns it as it was."""
        with self._store.lock:
            found = self._find_code(key, account_id, list_id, coupon_code)
            del self._store.tables.coupon_lists[list_id].codes[coupon_code]
            return found.to_api()
