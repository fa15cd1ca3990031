"""Operators for external coupon lists."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.client.bodies import ExternalCouponListFields, ExternalCouponListOptions
from messaging_platform_provider.client.operations import Operations
from messaging_platform_provider.client.pacing import DEFAULT_MAX_IN_FLIGHT
from messaging_platform_provider.operators.base import (
    MessagingPlatformBaseOperator,
    MessagingPlatformCreateOperator,
)
from messaging_platform_provider.operators.literals import is_literal

if TYPE_CHECKING:
    from airflow.sdk import Context

    from messaging_platform_provider.tasks.templated import Templated

__all__ = [
    "MessagingPlatformCreateExternalCouponListOperator",
    "MessagingPlatformDeleteExternalCouponCodeOperator",
    "MessagingPlatformDeleteExternalCouponCodesOperator",
    "MessagingPlatformDeleteExternalCouponListOperator",
    "MessagingPlatformGetExternalCouponCodeOperator",
    "MessagingPlatformGetExternalCouponListOperator",
    "MessagingPlatformListExternalCouponCodesOperator",
    "MessagingPlatformListExternalCouponListsOperator",
    "MessagingPlatformUpdateExternalCouponListOperator",
]


class MessagingPlatformListExternalCouponListsOperator(MessagingPlatformBaseOperator):
    """List the account's external coupon lists; returns the list."""

    operation = Operations.list_external_coupon_lists

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_external_coupon_lists(account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Get one external coupon list; returns it. ``coupon_list_id`` is templated."""

    operation = Operations.get_external_coupon_list
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_external_coupon_list(self.coupon_list_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformCreateExternalCouponListOperator(MessagingPlatformCreateOperator):
    """
    Create an external coupon list with its codes; returns the list (codes are counted, not echoed). Templated.

    :param coupon_codes: codes to insert (any iterable of strings; duplicates dropped, at most 100 chars each).
    :param idempotent: a retry finds the list by a run marker appended to ``Description``.
    """

    operation = Operations.create_external_coupon_list
    template_fields = (
        "account_id", "messaging_platform_conn_id", "name", "description", "inheritable", "coupon_codes", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        name: Templated[str],
        description: Templated[str] | None = None,
        inheritable: Templated[bool] | None = None,
        coupon_codes: Templated[Iterable[str]] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.name = name
        self.description = description
        self.inheritable = inheritable
        self.coupon_codes = coupon_codes
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            options = self.declared_values(ExternalCouponListOptions)
            answer = self.hook.create_external_coupon_list(
                self.name, extra=self.extra, once=self.once(context), account_id=self.account, **options
            )
        return self.task_result(context, answer)


class MessagingPlatformUpdateExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Change a list's fields and add ``coupon_codes`` to it; returns the list. Templated."""

    operation = Operations.update_external_coupon_list
    template_fields = (
        "account_id", "messaging_platform_conn_id", "coupon_list_id", "name", "description", "inheritable",
        "coupon_codes", "extra",
    )  # fmt: skip

    def __init__(
        self,
        *,
        coupon_list_id: Templated[int],
        name: Templated[str] | None = None,
        description: Templated[str] | None = None,
        inheritable: Templated[bool] | None = None,
        coupon_codes: Templated[Iterable[str]] | None = None,
        extra: Templated[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.name = name
        self.description = description
        self.inheritable = inheritable
        self.coupon_codes = coupon_codes
        self.extra = extra
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            fields = self.declared_values(ExternalCouponListFields)
            answer = self.hook.update_external_coupon_list(
                self.coupon_list_id, extra=self.extra, account_id=self.account, **fields
            )
        return self.task_result(context, answer)


class MessagingPlatformDeleteExternalCouponListOperator(MessagingPlatformBaseOperator):
    """Delete a list with its codes; returns ``True``, or ``False`` if it was already gone."""

    operation = Operations.delete_external_coupon_list
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], missing_ok: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.delete_external_coupon_list(
                self.coupon_list_id, missing_ok=self.missing_ok, account_id=self.account
            )
        return self.task_result(context, answer)


class MessagingPlatformListExternalCouponCodesOperator(MessagingPlatformBaseOperator):
    """List the codes of an external coupon list; returns the list. ``coupon_list_id`` is templated."""

    operation = Operations.list_external_coupon_codes
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id")

    def __init__(self, *, coupon_list_id: Templated[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.list_external_coupon_codes(self.coupon_list_id, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformGetExternalCouponCodeOperator(MessagingPlatformBaseOperator):
    """Get one code of a list (whether it was handed out, and to whom); returns it. Templated."""

    operation = Operations.get_external_coupon_code
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id", "coupon_code")

    def __init__(self, *, coupon_list_id: Templated[int], coupon_code: Templated[str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.coupon_code = coupon_code
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.get_external_coupon_code(self.coupon_list_id, self.coupon_code, account_id=self.account)
        return self.task_result(context, answer)


class MessagingPlatformDeleteExternalCouponCodeOperator(MessagingPlatformBaseOperator):
    """Delete one code from a list; returns ``True``, or ``False`` if it was already gone. Templated."""

    operation = Operations.delete_external_coupon_code
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id", "coupon_code")

    def __init__(
        self, *, coupon_list_id: Templated[int], coupon_code: Templated[str], missing_ok: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.coupon_code = coupon_code
        self.missing_ok = missing_ok
        self.check_literal_values()

    def execute(self, context: Context) -> Any:
        with self.failing_fast():
            answer = self.hook.delete_external_coupon_code(
                self.coupon_list_id, self.coupon_code, missing_ok=self.missing_ok, account_id=self.account
            )
        return self.task_result(context, answer)


class MessagingPlatformDeleteExternalCouponCodesOperator(MessagingPlatformBaseOperator):
    """
    Delete many codes from one list: one DELETE per code, up to ``max_in_flight`` at once, at the pace the
    platform's 429 answers allow (``hook.call_many``). Each call is retried as one delete is.

    The codes are wanted off the list: one that is not on it is no failure, it is listed in ``already_gone``. That
    is also what makes a retry safe: the codes an earlier try deleted are found gone. Every code is tried before the
    task ends. If any could not be deleted, the task then fails naming how many and the first of them, and a retry
    deletes what is left; the failure skips the retries when none of the errors could change on a retry (400, 403,
    ...). Returns ``{"deleted": n, "already_gone": [codes]}``. ``coupon_list_id`` and ``coupon_codes`` are
    templated; ``coupon_codes`` is a list of codes, usually an upstream task's output (an ``XComArg``).

    :param max_in_flight: calls on the wire at once (keep it at 32 or below; see ``docs/hook.md``).
    """

    operation = Operations.delete_external_coupon_code
    template_fields = ("account_id", "messaging_platform_conn_id", "coupon_list_id", "coupon_codes")

    def __init__(
        self,
        *,
        coupon_list_id: Templated[int],
        coupon_codes: Templated[list[str]],
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.coupon_list_id = coupon_list_id
        self.coupon_codes = coupon_codes
        self.max_in_flight = max_in_flight
        self.check_literal_values()

    def check_literal_values(self) -> None:
        super().check_literal_values()
        if is_literal(self.coupon_codes):
            self.codes()

    def codes(self) -> list[str]:
        """The rendered codes, each checked and named by its place (``coupon_codes[2]``), repeats dropped."""
        from messaging_platform_provider.client.errors import MessagingPlatformValidationError
        from messaging_platform_provider.client.request import path_segment
        from messaging_platform_provider.client.values import a_list

        codes = a_list("coupon_codes", self.coupon_codes, "a list of codes")
        unique: dict[str, None] = {}  # ordered, and a repeat found at once
        for index, code in enumerate(codes):
            try:
                if not isinstance(code, str):
                    raise MessagingPlatformValidationError("coupon_code", f"must be text, got {type(code).__name__}")
                path_segment(self.operation, "coupon_code", code)
            except MessagingPlatformValidationError as exc:
                raise MessagingPlatformValidationError(f"coupon_codes[{index}]", exc.problem) from None
            unique[code] = None
        return list(unique)

    def addressed(self) -> str:
        codes = self.coupon_codes
        count = f", {len(codes)} codes" if isinstance(codes, (list, tuple)) else ""
        return f"coupon_list_id={self.coupon_list_id}{count}"

    def execute(self, context: Context) -> Any:
        from messaging_platform_provider.client.errors import retry_cannot_help
        from messaging_platform_provider.client.request import path_segment
        from messaging_platform_provider.version_compat import AirflowException, AirflowFailException

        with self.failing_fast():
            # Named as written before anything is sent, not as an item of the calls below (``calls[0].coupon_list_id``).
            path_segment(self.operation, "coupon_list_id", self.coupon_list_id)
            if self.account is not None:
                path_segment(self.operation, "account_id", self.account)
            codes = self.codes()
            ids = {"coupon_list_id": self.coupon_list_id, "account_id": self.account}
            outcomes = self.hook.call_many(
                self.operation, [{**ids, "coupon_code": code} for code in codes], max_in_flight=self.max_in_flight
            )
        deleted, gone, failed = 0, [], []
        for code, outcome in zip(codes, outcomes, strict=True):
            if outcome.ok:
                deleted += 1
            elif outcome.error is not None and outcome.error.status == 404:
                gone.append(code)
            else:
                failed.append((code, outcome.error))
        if failed:
            code, error = failed[0]
            message = (
                f"{len(failed)} of {len(codes)} codes were not deleted from coupon list {self.coupon_list_id} "
                f"(the others were); the first, {code!r}: {error}"
            )
            if all(error is not None and retry_cannot_help(error) for _, error in failed):
                raise AirflowFailException(message)
            raise AirflowException(message)
        return self.task_result(context, {"deleted": deleted, "already_gone": gone})

    def outcome_line(self, result: Any) -> str | None:
        return (
            f"delete_external_coupon_code (coupon_list_id={self.coupon_list_id}): {result['deleted']} deleted, "
            f"{len(result['already_gone'])} already gone."
        )
