"""Waiting for one platform callback (for example the Dialog answer of one phone number): poke or deferrable."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from airflow.sdk import PokeReturnValue

from messaging_platform_provider.sensors.base import MessagingPlatformBaseSensor
from messaging_platform_provider.version_compat import AirflowException, AirflowSensorTimeout

if TYPE_CHECKING:
    from airflow.sdk import Context
    from airflow.triggers.base import BaseTrigger

    from messaging_platform_provider.tasks.templated import Templated


class MessagingPlatformCallbackSensor(MessagingPlatformBaseSensor):
    """
    Wait until the callback store holds a callback matching every given criterion, received at or after
    ``received_after``; the XCom is that callback (``{"seq", "transaction_id", "callback_type", "account_id",
    "received_at", "payload"}``; the payload without its CallbackToken).

    The receiver (``messaging-platform-callbacks serve`` or the API server plugin) must write to the same store.

    :param callback_type: name or number, e.g. ``"Dialog"``.
    :param phone_number: the callback's PhoneNumber (compared on digits), as text: a number is refused, for
        ``render_template_as_native_obj=True`` turns a template's ``+15125550100`` into 15125550100.
    :param keyword: the callback's Keyword (case-insensitive).
    :param account_id: the callback's AccountId.
    :param received_after: an instant (ISO text or datetime; naive means UTC). Default: the start of the DAG run,
        so that a retry, a reschedule or a deferral looks from the same point. Templated.
    :param database_url: the store; ``None``: the configured one (see ``callbacks.settings``).
    :param deferrable: wait in the triggerer (default ``[operators] default_deferrable``); the sensor's
        ``timeout`` then becomes an absolute UTC deadline fixed when the wait starts.
    """

    template_fields: Sequence[str] = ("phone_number", "keyword", "account_id", "received_after")
    ui_color = "#e8f5e9"

    def __init__(
        self,
        *,
        callback_type: int | str | Iterable[int | str] | None = None,
        phone_number: Templated[str] | None = None,
        keyword: Templated[str] | None = None,
        account_id: Templated[int] | None = None,
        received_after: Templated[str | datetime] | None = None,
        database_url: str | None = None,
        deferrable: bool | None = None,
        **kwargs: Any,
    ) -> None:
        from messaging_platform_provider.callbacks.filters import CallbackFilter

        super().__init__(deferrable=deferrable, **kwargs)
        CallbackFilter.build(callback_types=callback_type)  # an unknown type fails when the DAG is parsed
        self.callback_type = callback_type
        self.phone_number = phone_number
        self.keyword = keyword
        self.account_id = account_id
        self.received_after = received_after
        self.database_url = database_url
        self.checked_values(literals_only=True)  # a literal's mistake fails when the DAG is parsed

    def checked_values(self, *, literals_only: bool = False) -> tuple[str | None, int | None]:
        """
        The rendered ``phone_number`` (text: ``values.phone_text``) and ``account_id`` (a positive whole number), or
        a ``MessagingPlatformValidationError`` naming the parameter; ``literals_only``: the values written in the
        DAG file, not templates and XComArgs.
        """
        from messaging_platform_provider.client.values import phone_text, positive_int
        from messaging_platform_provider.operators.literals import is_literal

        phone, account = self.phone_number, self.account_id
        if literals_only:
            phone = phone if is_literal(phone) else None
            account = account if is_literal(account) else None
        return (
            phone_text("phone_number", phone) if phone not in (None, "") else None,
            positive_int("account_id", account) if account not in (None, "") else None,
        )

    def filter_kwargs(self) -> dict[str, Any]:
        from messaging_platform_provider.callbacks.filters import CallbackFilter

        phone, account = self.checked_values()
        return CallbackFilter.build(
            callback_types=self.callback_type, keywords=self.keyword or None, account_ids=account, phone_numbers=phone
        ).to_kwargs()

    def since(self, context: Context) -> str:
        if self.received_after not in (None, ""):
            value = self.received_after
            return value.isoformat() if isinstance(value, datetime) else str(value)
        dag_run = context.get("dag_run")
        start = getattr(dag_run, "start_date", None) or datetime.now(timezone.utc)
        return start.isoformat()

    def make_trigger(
        self, context: Context, *, poll_interval: float, deadline: str | None, try_number: int
    ) -> BaseTrigger:
        from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackSensorTrigger

        return MessagingPlatformCallbackSensorTrigger(
            filter_kwargs=self.filter_kwargs(),
            received_after=self.since(context),
            database_url=self.database_url,
            poll_interval=poll_interval,
            deadline=deadline,
            try_number=try_number,
        )

    def poke(self, context: Context) -> bool | PokeReturnValue:
        from messaging_platform_provider.callbacks.filters import CallbackFilter
        from messaging_platform_provider.callbacks.store import shared_store
        from messaging_platform_provider.triggers.callback import find_callback

        wanted = CallbackFilter.build(**self.filter_kwargs())  # a bad value is refused before the store is opened
        found = find_callback(shared_store(self.database_url), wanted, self.since(context))
        if found is None:
            return False
        return PokeReturnValue(is_done=True, xcom_value=found)

    def result_from_event(self, event: dict[str, Any]) -> Any:
        from messaging_platform_provider.waiting.outcome import malformed_event

        problem = malformed_event(event, ("success", "timeout"))
        if problem is not None:
            raise AirflowException(problem)
        if event["outcome"] == "success":
            return event["callback"]
        raise AirflowSensorTimeout(str(event.get("message", "timed out")))
