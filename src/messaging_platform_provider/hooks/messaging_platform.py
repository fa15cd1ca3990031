"""The Airflow hook: a Messaging Platform connection turned into an authenticated, pooled client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Iterator, Mapping
from functools import cached_property
from typing import Any

from messaging_platform_provider import version_compat
from messaging_platform_provider.client.api import (
    ApiKeyApi,
    ApiMethods,
    CallbackApi,
    CampaignApi,
    ContactApi,
    CouponListApi,
    ScheduleApi,
    VoiceCallApi,
)
from messaging_platform_provider.client.async_client import AsyncMessagingPlatformClient
from messaging_platform_provider.client.bulk import BulkOutcome, BulkRun, prepare_calls
from messaging_platform_provider.client.client import MessagingPlatformClient
from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    secret_forms,
)
from messaging_platform_provider.client.operations import Operation, Operations, resolve
from messaging_platform_provider.client.pacing import DEFAULT_MAX_IN_FLIGHT, AdaptivePace
from messaging_platform_provider.client.pages import PagesAhead
from messaging_platform_provider.client.request import PreparedRequest, account_for_call
from messaging_platform_provider.client.retry import RetryPolicy
from messaging_platform_provider.client.values import filter_expression
from messaging_platform_provider.hooks.connection import (
    ConnectionSettings,
    client_from_settings,
    settings_from_connection,
)
from messaging_platform_provider.hooks.names import CONN_TYPE, DEFAULT_CONN_ID
from messaging_platform_provider.version_compat import BaseHook, mask_secret


def _connection_type(conn_type: str) -> dict[str, Any]:
    """One of our connection types (its name or its former name), as declared once in the provider info."""
    from messaging_platform_provider.get_provider_info import get_provider_info

    (declared,) = [t for t in get_provider_info()["connection-types"] if t["connection-type"] == conn_type]
    return dict(declared)


class MessagingPlatformHook(BaseHook, ApiMethods):
    """
    Authenticated access to the Messaging Platform API v2.1.

    The connection holds the API key (login), its secret (password) and, as extra fields, ``base_url``
    (ending in ``/api/v2.1``), the default ``account_id`` and the platform ``timezone``. Every API method
    takes ``account_id=`` to act on another account. One pooled HTTP session is kept per hook.

    :param messaging_platform_conn_id: the Airflow connection id.
    :param account_id: default account for this hook, over the connection's.
    :param timeout: ``(connect, read)`` seconds, over the connection's ``connect_timeout``/``read_timeout``.
    :param retry_policy: retries of transient failures; see ``RetryPolicy``.
    """

    conn_name_attr = "messaging_platform_conn_id"
    default_conn_name = DEFAULT_CONN_ID
    conn_type = CONN_TYPE
    hook_name = "Messaging Platform"

    @classmethod
    def get_connection_form_widgets(cls) -> dict[str, Any]:
        """The connection form's extra fields, for Airflow before 3.2 (3.2+ reads ``conn-fields`` instead)."""
        return version_compat.connection_form_widgets(_connection_type(cls.conn_type)["conn-fields"])

    @classmethod
    def get_ui_field_behaviour(cls) -> dict[str, Any]:
        """Hidden and relabelled standard fields, for Airflow before 3.2 (3.2+ reads ``ui-field-behaviour``)."""
        return version_compat.ui_field_behaviour(_connection_type(cls.conn_type)["ui-field-behaviour"])

    # The typed API methods, one per operation: the functions ``MessagingPlatformClient`` has too, written once in
    # ``client/api/``. Named here as well as inherited, so that this class's own namespace, ``help()`` and an IDE show
    # each with its signature and docstring. Each sends its call through ``call`` below.
    list_external_coupon_lists = CouponListApi.list_external_coupon_lists
    get_external_coupon_list = CouponListApi.get_external_coupon_list
    create_external_coupon_list = CouponListApi.create_external_coupon_list
    update_external_coupon_list = CouponListApi.update_external_coupon_list
    delete_external_coupon_list = CouponListApi.delete_external_coupon_list
    list_external_coupon_codes = CouponListApi.list_external_coupon_codes
    get_external_coupon_code = CouponListApi.get_external_coupon_code
    delete_external_coupon_code = CouponListApi.delete_external_coupon_code
    list_schedules = ScheduleApi.list_schedules
    get_schedule = ScheduleApi.get_schedule
    create_schedule = ScheduleApi.create_schedule
    update_schedule = ScheduleApi.update_schedule
    delete_schedule = ScheduleApi.delete_schedule
    list_api_keys = ApiKeyApi.list_api_keys
    get_api_key = ApiKeyApi.get_api_key
    create_api_key = ApiKeyApi.create_api_key
    change_api_key_secret = ApiKeyApi.change_api_key_secret
    revoke_api_key = ApiKeyApi.revoke_api_key
    list_campaigns = CampaignApi.list_campaigns
    get_campaign = CampaignApi.get_campaign
    create_campaign = CampaignApi.create_campaign
    update_campaign = CampaignApi.update_campaign
    delete_campaign = CampaignApi.delete_campaign
    get_coupon_definition = CampaignApi.get_coupon_definition
    create_coupon_definition = CampaignApi.create_coupon_definition
    update_coupon_definition = CampaignApi.update_coupon_definition
    get_coupon_redemption_details = CampaignApi.get_coupon_redemption_details
    list_push_voice_calls = VoiceCallApi.list_push_voice_calls
    get_push_voice_call = VoiceCallApi.get_push_voice_call
    create_push_voice_call = VoiceCallApi.create_push_voice_call
    delete_push_voice_call = VoiceCallApi.delete_push_voice_call
    list_contacts = ContactApi.list_contacts
    get_contact = ContactApi.get_contact
    create_contact = ContactApi.create_contact
    update_contact = ContactApi.update_contact
    iter_contacts = ContactApi.iter_contacts
    list_filter_groups = ContactApi.list_filter_groups
    get_filter_group = ContactApi.get_filter_group
    update_filter_group = ContactApi.update_filter_group
    list_callbacks = CallbackApi.list_callbacks
    get_callback = CallbackApi.get_callback
    create_callback = CallbackApi.create_callback
    attach_keyword_campaign = CallbackApi.attach_keyword_campaign

    def __init__(
        self,
        messaging_platform_conn_id: str = default_conn_name,
        *,
        account_id: int | None = None,
        timeout: tuple[float, float] | None = None,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        super().__init__()
        self.messaging_platform_conn_id = messaging_platform_conn_id
        self.account_id = account_id
        self.timeout = timeout
        self.retry_policy = retry_policy

    @cached_property
    def settings(self) -> ConnectionSettings:
        """What the connection holds, read once per hook (and again after a 401, see ``call``)."""
        conn = self.get_connection(self.messaging_platform_conn_id)
        for secret in secret_forms(conn.login or "", conn.password or ""):  # the base64 Basic credential too
            mask_secret(secret)
        return settings_from_connection(conn)

    @cached_property
    def client(self) -> MessagingPlatformClient:
        return client_from_settings(
            self.settings,
            MessagingPlatformClient,
            account_id=self.account_id,
            timeout=self.timeout,
            retry_policy=self.retry_policy,
        )

    def get_conn(self) -> MessagingPlatformClient:
        return self.client

    def call(self, operation: Operation | str, **arguments: Any) -> Any:
        """
        ``MessagingPlatformClient.call`` (the same arguments: ``account_id``, ``body``, ``query``, path values) on
        the connection's client, which is the transport. After a 401 the connection is read again, and the call sent
        once more if it now holds another key; secrets in the answer are masked the moment it is read.
        """
        try:
            result = self.client.call(operation, **arguments)
        except MessagingPlatformApiError as exc:
            # 401: the key may have been rotated since this hook read the connection (a long wait, a retry).
            # A 401 is refused before anything is done, so sending the call again is safe, even a create.
            if exc.status != 401 or not self._reread_connection():
                raise
            result = self.client.call(operation, **arguments)
        for secret in resolve(operation).secrets_in(result):
            mask_secret(secret)  # masked the moment it is read, before anything can log it
        return result

    def call_many(
        self,
        operation: Operation | str,
        calls: Iterable[Mapping[str, Any]],
        *,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        start_rate: float = 50.0,
    ) -> list[BulkOutcome]:
        """
        Many calls of one ``operation``, up to ``max_in_flight`` on the wire at once and paced by the platform's
        429s (``client/bulk.py``); the outcomes in the order of ``calls``, each with its ``value`` or its ``error``.
        An item holds what ``call`` takes: ``{"coupon_list_id": 2001, "coupon_code": "A1"}``, with ``body``,
        ``query`` and ``account_id`` when needed. Every item is checked before anything is sent; a bad one raises
        ``MessagingPlatformValidationError`` naming it (``calls[3].coupon_code``). Retries are a single call's (a
        POST is never resent blindly); items refused 401 are sent again once if the connection holds another key
        by then. Runs its own event loop: call it from a task, not from a coroutine.
        """
        op = resolve(operation)
        items = list(calls)
        prepared = self._prepare_many(op, items)
        started = time.monotonic()
        outcomes, limited = self._run_many(op, prepared, max_in_flight, start_rate)
        refused = [i for i, outcome in enumerate(outcomes) if outcome.error is not None and outcome.error.status == 401]
        if refused and self._reread_connection():  # a 401 is refused before anything is done: safe to resend
            # Built again on what the connection holds now: its base URL and account may have changed too.
            again_prepared = self._prepare_many(op, [items[i] for i in refused])
            again, more = self._run_many(op, again_prepared, max_in_flight, start_rate)
            limited += more
            for index, outcome in zip(refused, again, strict=True):
                outcomes[index] = outcome
        for outcome in outcomes:
            for secret in op.secrets_in(outcome.value):
                mask_secret(secret)
        failed = sum(not outcome.ok for outcome in outcomes)
        self.log.info(
            "%s: %d calls, %d done, %d failed; %d answers 429; %.1f s",
            op.name,
            len(outcomes),
            len(outcomes) - failed,
            failed,
            limited,
            time.monotonic() - started,
        )
        return outcomes

    def stream_contacts(
        self,
        *,
        page_size: int = 500,
        lookahead: int = 4,
        odata_filter: str | None = None,
        account_id: int | None = None,
    ) -> Iterator[dict[str, Any]]:
        """
        Every contact (that ``odata_filter`` selects), ``lookahead`` pages read ahead of the caller and never more
        than ``2 * lookahead + 1`` pages in memory (``client/pages.py``): ``iter_contacts`` without a round trip's wait
        between pages. Stop early and the reading stops too.
        """
        account = account_for_call(account_id, self._default_account())
        query = {"$filter": filter_expression("odata_filter", odata_filter)}

        def make_client() -> AsyncMessagingPlatformClient:
            return client_from_settings(
                self.settings, AsyncMessagingPlatformClient, account_id=account, timeout=self.timeout
            )

        pages = PagesAhead(
            make_client,
            Operations.list_contacts,
            account_id=account,
            page_size=page_size,
            lookahead=lookahead,
            query=query,
            retry_policy=self.retry_policy,
        )
        for page in pages:
            yield from page

    def _prepare_many(self, op: Operation, items: list[Mapping[str, Any]]) -> list[PreparedRequest]:
        return prepare_calls(
            op,
            self.settings.base_url,
            self._default_account(),
            items,
            allow_insecure_http=self.settings.allow_insecure_http,
        )

    def _default_account(self) -> int | None:
        """The account a call that names none acts on: the hook's, else the connection's."""
        return self.account_id if self.account_id is not None else self.settings.account_id

    def _run_many(
        self, op: Operation, prepared: list[PreparedRequest], max_in_flight: int, start_rate: float
    ) -> tuple[list[BulkOutcome], int]:
        """The outcomes, and how many answers were 429."""

        async def run() -> tuple[list[BulkOutcome], int]:
            client = client_from_settings(
                self.settings,
                AsyncMessagingPlatformClient,
                account_id=self.account_id,
                timeout=self.timeout,
                max_connections=max_in_flight,
            )
            try:
                pace = AdaptivePace(start_rate=start_rate)
                bulk = BulkRun(
                    client, op, prepared, max_in_flight=max_in_flight, retry_policy=self.retry_policy, pace=pace
                )
                return await bulk.run(), bulk.limited
            finally:
                await client.aclose()

        return asyncio.run(run())

    def _reread_connection(self) -> bool:
        """Read the connection again; whether it now holds other settings (the client is then rebuilt on them)."""
        before = self.settings
        self.__dict__.pop("settings", None)
        if self.settings == before:
            return False
        self.close()  # the next call builds the client on what was just read
        return True

    def _timezone(self) -> str:
        return self.client.platform_timezone

    def _insecure_http_allowed(self) -> bool:
        return self.client.allow_insecure_http

    def close(self) -> None:
        if "client" in self.__dict__:
            self.client.close()
            del self.__dict__["client"]

    def test_connection(self) -> tuple[bool, str]:
        """Check credentials, base URL and account with one read (the Test button of the connection form)."""
        try:
            campaigns = self.list_campaigns(only_mine=True)
            return True, f"Connected to account {self.client.account_id}: {len(campaigns)} campaign(s) visible."
        except (MessagingPlatformApiError, MessagingPlatformValidationError) as exc:
            return False, str(exc)
        finally:
            self.close()
