"""Transport-free request building and response decoding, shared by the sync and async clients."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from messaging_platform_provider import __version__
from messaging_platform_provider.client.bodies import CallbackFields
from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    parse_error_details,
)
from messaging_platform_provider.client.operations import Operation
from messaging_platform_provider.client.retry import parse_retry_after
from messaging_platform_provider.client.values import shown_value

API_ROOT = "/api/v2.1"
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
USER_AGENT = f"airflow-provider-messaging-platform/{__version__}"
DEFAULT_TIMEOUT = (10.0, 60.0)  # seconds: connect, read


def account_for_call(account_id: int | None, default: int | None) -> int:
    """The account a call is for: its own ``account_id``, else the connection's; an error when neither is set."""
    account = account_id if account_id is not None else default
    if account is None:
        raise MessagingPlatformValidationError(
            "account_id", "is not set: give it to the task or set Account ID on the connection"
        )
    return account


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` (as ``urlsplit(...).hostname`` gives it) is this machine: localhost, 127.0.0.0/8 or ::1."""
    if not host:
        return False
    if host.rstrip(".").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def refuse_plain_http(field: str, url: str, allow_insecure_http: bool, carried: str) -> None:
    """
    Refuse an ``http://`` URL to a host other than loopback, unless ``allow_insecure_http``: ``carried`` (the API
    key and secret, the callback token) would cross the network in clear.
    """
    parts = urlsplit(url.strip())
    if parts.scheme.lower() == "http" and not allow_insecure_http and not is_loopback(parts.hostname):
        raise MessagingPlatformValidationError(
            field,
            f"is a plain http:// URL to a host that is not loopback, which would send {carried} in clear; use "
            "https://, or opt in with allow_insecure_http: true in the connection's extra (allow_insecure_http=True "
            "on the client)",
        )


def normalize_base_url(base_url: str | None, *, allow_insecure_http: bool = False) -> str:
    """
    Check that ``base_url`` is an absolute http(s) URL ending in ``/api/v2.1``; return it without a trailing /.
    ``http://`` only to loopback or with ``allow_insecure_http`` (``refuse_plain_http``).
    An error does not repeat the URL, which may hold the API secret (``key:secret@host`` with no scheme).
    """
    if not base_url:
        raise MessagingPlatformValidationError(
            "base_url", "is not set; give the service root, for example https://platform.example.com/api/v2.1"
        )
    url = base_url.strip().rstrip("/")
    parts = urlsplit(url)
    if parts.username or parts.password:
        raise MessagingPlatformValidationError(
            "base_url", "must not carry credentials; the API key and secret go in login and password"
        )
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise MessagingPlatformValidationError("base_url", "is not an absolute URL with a host", ["http", "https"])
    if parts.query or parts.fragment:
        raise MessagingPlatformValidationError("base_url", "must not carry a query or fragment")
    if not parts.path.endswith(API_ROOT):
        raise MessagingPlatformValidationError(
            "base_url", f"must end with {API_ROOT}, the version segment of the service root"
        )
    refuse_plain_http("base_url", url, allow_insecure_http, "the API key and secret")
    return url


def check_callback_url(op: Operation, body: Any, allow_insecure_http: bool) -> None:
    """
    A callback record's URL (``URL``, or ``Url`` as the platform's SDKs spell it) passes ``refuse_plain_http``:
    every callback the platform POSTs there carries the account's callback token.
    """
    if op.fields is not CallbackFields or not isinstance(body, Mapping):
        return
    for key, value in body.items():
        if str(key).lower() == "url" and value is not None:  # a URL object is sent as its text (json default=str)
            refuse_plain_http("url", str(value), allow_insecure_http, "the account's callback token")


@dataclass(frozen=True)
class PreparedRequest:
    method: str
    path: str  # relative to the base URL, for messages and logs
    url: str
    params: dict[str, str]
    content: bytes | None


#: The largest id the platform can hold (a signed 64-bit integer); longer digit strings are not ids.
MAX_ID = 2**63 - 1
#: Path values that URL normalisation (RFC 3986 dot segments) would turn into another path, percent-encoded or not.
_DOT_SEGMENTS = (".", "..")


def path_segment(op: Operation, name: str, value: Any) -> str:
    """One path segment: an id of ``int_params`` as a positive integer, anything else percent-encoded."""
    if value is None or (isinstance(value, str) and not value.strip()):
        raise MessagingPlatformValidationError(name, f"is required by {op.name}")
    if name in op.int_params:
        text = str(value).strip() if isinstance(value, (int, str)) and not isinstance(value, bool) else ""
        if not (text.isascii() and text.isdigit() and len(text) <= len(str(MAX_ID)) and 0 < int(text) <= MAX_ID):
            raise MessagingPlatformValidationError(name, f"must be a positive integer, got {shown_value(value, 40)}")
        return str(int(text))
    text = str(value)
    if text in _DOT_SEGMENTS:
        raise MessagingPlatformValidationError(
            name, f"{text!r} cannot be sent as a path value: it would address another resource"
        )
    return quote(text, safe="")


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def prepare(
    op: Operation,
    base_url: str,
    path_params: Mapping[str, Any],
    body: Any = None,
    query: Mapping[str, Any] | None = None,
    *,
    allow_insecure_http: bool = False,
) -> PreparedRequest:
    """
    Fill the operation's path, encode the body; raises ``MessagingPlatformValidationError`` before any I/O.
    ``allow_insecure_http``: the client's opt-in, for a callback record's URL (``check_callback_url``).
    """
    values = {name: path_segment(op, name, path_params.get(name)) for name in op.path_params}
    path = op.path.format(**values)
    params = {k: _query_value(v) for k, v in (query or {}).items() if v is not None}
    unknown = set(params) - set(op.query)
    if unknown:
        raise MessagingPlatformValidationError(sorted(unknown)[0], f"is not a query option of {op.name}", op.query)
    content: bytes | None = None
    if op.body == "none":
        if body is not None:
            raise MessagingPlatformValidationError("body", f"{op.name} takes no body")
    else:
        if body is None:
            raise MessagingPlatformValidationError("body", f"is required by {op.name}")
        if op.body == "object" and not isinstance(body, Mapping):
            raise MessagingPlatformValidationError("body", f"{op.name} takes a JSON object, got {type(body).__name__}")
        check_callback_url(op, body, allow_insecure_http)
        content = json.dumps(body, separators=(",", ":"), default=str).encode()
    return PreparedRequest(op.method, path, base_url + path, params, content)


#: Spelling of the spec where simple capitalisation of a camelCase name does not give it.
_CANONICAL = {"url": "URL"}


def pascal_keys(value: Any) -> Any:
    """
    Property names as the spec spells them (PascalCase), at every depth. The platform is a .NET service whose
    answers have been seen in camelCase too (platform facts §1); everything downstream (secret masking, XCom
    shaping, create de-duplication, ProcessStatus) reads one spelling.
    """
    if isinstance(value, dict):
        return {_pascal(k): pascal_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [pascal_keys(v) for v in value]
    return value


def _pascal(key: Any) -> Any:
    if not isinstance(key, str) or not key:
        return key
    return _CANONICAL.get(key.lower(), key[0].upper() + key[1:])


def decode(
    op: Operation,
    prepared: PreparedRequest,
    status: int,
    content: bytes,
    attempts: int = 1,
    hidden: Iterable[str] = (),
    retry_after: str | None = None,
) -> Any:
    """
    Return the decoded answer of a 2xx response; raise ``MessagingPlatformApiError`` for anything else, its details
    without any of ``hidden`` (the client's ``errors.secret_forms``) and with the answer's ``Retry-After`` header.
    """
    if status >= 300:
        raise MessagingPlatformApiError(
            method=prepared.method,
            path=prepared.path,
            status=status,
            details=parse_error_details(content, hidden),
            attempts=attempts,
            retry_after=parse_retry_after(retry_after),
        )
    if status == 204 or not content.strip():
        return [] if op.returns == "list" else None
    try:
        data = json.loads(content)
    except ValueError as exc:
        raise MessagingPlatformApiError(
            method=prepared.method, path=prepared.path, status=status, reason="the answer is not JSON"
        ) from exc
    if op.returns == "list" and not isinstance(data, list):
        raise MessagingPlatformApiError(
            method=prepared.method, path=prepared.path, status=status, reason="expected a JSON array"
        )
    return pascal_keys(data)
