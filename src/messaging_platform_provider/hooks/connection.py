"""
A Messaging Platform Airflow connection (type ``messagingplatform``, or ``messaging_platform``, its former name)
turned into a client, in two steps that the sync hook (``MessagingPlatformHook``) and the async hook
(``MessagingPlatformAsyncHook``) share: ``settings_from_connection`` reads the connection, ``client_from_settings``
builds the client on what was read. Only the lookup differs between the hooks (the async one must not block the
triggerer's event loop). No network, and no client imported here (the caller passes the client class): the
triggerer imports this module on its event loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.request import DEFAULT_TIMEOUT, normalize_base_url
from messaging_platform_provider.client.values import zone
from messaging_platform_provider.hooks.names import CONN_TYPE, LEGACY_CONN_TYPE
from messaging_platform_provider.hooks.web_app_urls import WEB_APP_URLS, usable_web_app_urls

ClientT = TypeVar("ClientT")


@dataclass(frozen=True)
class ConnectionSettings:
    base_url: str
    api_key: str
    api_secret: str
    account_id: int | None
    platform_timezone: str
    timeout: tuple[float, float]
    allow_insecure_http: bool = False
    #: the URL template of each web app page the connection names, by its extra (``hooks/web_app_urls.py``)
    web_app_urls: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # the secret stays out of any log line or traceback
        return f"ConnectionSettings(base_url={self.base_url!r}, account_id={self.account_id!r})"


def _extra(extras: dict[str, Any], name: str) -> Any:
    """An extra by its name, or by the name an older connection form saved it under (prefixed with the type)."""
    for key in (name, f"extra__{CONN_TYPE}__{name}", f"extra__{LEGACY_CONN_TYPE}__{name}"):
        if extras.get(key) not in (None, ""):
            return extras[key]
    return None


def _number(extras: dict[str, Any], name: str, default: float) -> float:
    value = _extra(extras, name)
    if value is None:
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if number <= 0:
        raise MessagingPlatformValidationError(name, f"{value!r} is not a positive number of seconds")
    return number


def _flag(extras: dict[str, Any], name: str) -> bool:
    """A true/false extra: JSON true/false, or the text ``true``/``false`` (any case) a URI or a form gives."""
    value = _extra(extras, name)
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise MessagingPlatformValidationError(name, f"{value!r} is not true or false", ["true", "false"])


class AirflowConnection(Protocol):
    """What is read of an Airflow connection (``airflow.sdk.Connection``, sync or async lookup alike)."""

    host: str | None
    login: str | None
    password: str | None
    extra: str | None


def connection_extras(conn: AirflowConnection) -> dict[str, Any]:
    """
    The connection's extra fields, parsed the same way for the sync and the async lookup (``aextra_dejson`` is
    new in Airflow 3.3), without handing them to the secrets masker once more: none of them is secret.
    """
    if not conn.extra:
        return {}
    try:
        extras = json.loads(conn.extra)
    except ValueError:
        raise MessagingPlatformValidationError("extra", "the connection's extra is not a JSON object") from None
    if not isinstance(extras, dict):
        raise MessagingPlatformValidationError("extra", "the connection's extra is not a JSON object")
    return extras


def settings_from_connection(
    conn: AirflowConnection, *, default_timeout: tuple[float, float] = DEFAULT_TIMEOUT
) -> ConnectionSettings:
    """
    ``base_url`` comes from the extra field of that name; a host given as a full URL is accepted instead.
    ``account_id`` and ``timezone`` are extra fields; ``connect_timeout``/``read_timeout`` optional extras;
    ``allow_insecure_http`` (true/false, default false) allows a plain ``http://`` base URL or callback URL to a host
    that is not loopback (``request.refuse_plain_http``). ``web_app_campaign_url``, ``web_app_schedule_url`` and
    ``web_app_push_voice_call_url`` are optional URL templates of the web app's pages (``hooks/web_app_urls.py``):
    a bad one is left out with a warning rather than refused, as it only costs its page's link.
    The caller hands the password to Airflow's secrets masker (``mask_secret`` in tasks, ``amask_secret`` in
    triggers, where the synchronous call would block the event loop on the supervisor).
    """
    host, login, password = conn.host, conn.login, conn.password
    extras = connection_extras(conn)
    base_url = _extra(extras, "base_url") or (host if host and "://" in host else None)
    account = _extra(extras, "account_id")
    if account is not None and (isinstance(account, bool) or not str(account).strip().isdigit()):
        raise MessagingPlatformValidationError("account_id", f"{account!r} is not a positive integer")
    timezone_name = str(_extra(extras, "timezone") or "UTC")
    zone(timezone_name)
    allow_insecure_http = _flag(extras, "allow_insecure_http")
    web_app_urls = usable_web_app_urls(
        {name: value for name in WEB_APP_URLS if (value := _extra(extras, name)) is not None}
    )
    if not login or not password:
        raise MessagingPlatformValidationError(
            "login/password", "the connection needs the API key as login and its secret as password"
        )
    return ConnectionSettings(
        base_url=normalize_base_url(base_url, allow_insecure_http=allow_insecure_http),
        api_key=login,
        api_secret=password,
        account_id=int(account) if account is not None else None,
        platform_timezone=timezone_name,
        timeout=(
            _number(extras, "connect_timeout", default_timeout[0]),
            _number(extras, "read_timeout", default_timeout[1]),
        ),
        allow_insecure_http=allow_insecure_http,
        web_app_urls=web_app_urls,
    )


def client_from_settings(
    settings: ConnectionSettings,
    client_class: Callable[..., ClientT],
    *,
    account_id: int | None = None,
    timeout: tuple[float, float] | None = None,
    **options: Any,
) -> ClientT:
    """
    A client (``MessagingPlatformClient`` or ``AsyncMessagingPlatformClient``) on what the connection holds: its
    base URL, credentials, account, timeouts, platform time zone and ``allow_insecure_http``, built the same way for
    tasks and triggers.
    ``account_id`` and ``timeout`` given by the caller win over the connection's; ``options`` are the client's own
    (``retry_policy`` for the sync client).
    """
    return client_class(
        settings.base_url,
        settings.api_key,
        settings.api_secret,
        account_id=account_id if account_id is not None else settings.account_id,
        timeout=timeout or settings.timeout,
        platform_timezone=settings.platform_timezone,
        allow_insecure_http=settings.allow_insecure_http,
        **options,
    )
