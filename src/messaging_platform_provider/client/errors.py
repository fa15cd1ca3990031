"""The two exception types of the provider and the parsing of the platform's error bodies."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

_MAX_TEXT = 300


#: Codes from here up are a kind of problem in the top byte and a detail below it: written in hexadecimal.
_KIND_CODES = 0x01000000


def shown_code(code: int) -> str:
    """An error code as the docs write it: ``0x01000000`` for the platform's kinds of problem, else decimal (404)."""
    return f"0x{code:08X}" if code >= _KIND_CODES else str(code)


@dataclass(frozen=True)
class ErrorDetail:
    """One element of the platform's error array."""

    message: str
    error_code_id: int | None = None
    object_type: str | None = None
    property_name: str | None = None

    def __str__(self) -> str:
        where = ".".join(p for p in (self.object_type, self.property_name) if p)
        code = f" (code {shown_code(self.error_code_id)})" if self.error_code_id is not None else ""
        return f"{where}: {self.message}{code}" if where else f"{self.message}{code}"


def _field(item: dict[str, Any], name: str) -> Any:
    """Read a property case-insensitively: the platform answers in PascalCase or camelCase."""
    for key, value in item.items():
        if key.lower() == name.lower():
            return value
    return None


def secret_forms(api_key: str, api_secret: str) -> tuple[str, ...]:
    """
    Every form of a key's secret that a request carries and an answer may echo: the secret, ``key:secret``, its
    base64 and the ``Basic ...`` Authorization value (UTF-8 as httpx encodes the pair, Latin-1 as requests does),
    longest first: what the hooks hand to Airflow's secrets masker and the clients scrub from error text.
    """
    if not api_secret:
        return ()
    pair = f"{api_key}:{api_secret}"
    forms = {api_secret, pair}
    for encoding in ("utf-8", "latin-1"):
        try:
            token = base64.b64encode(pair.encode(encoding)).decode("ascii")
        except UnicodeEncodeError:
            continue
        forms.update((token, f"Basic {token}"))
    return tuple(sorted(forms, key=len, reverse=True))


def scrub(text: str, hidden: Iterable[str | None]) -> str:
    """``text`` with each of ``hidden`` (``secret_forms``, longest first; empty ones skipped) replaced by ``***``."""
    for secret in hidden:
        if secret:
            text = text.replace(secret, "***")
    return text


def parse_error_details(body: bytes | str | None, hidden: Iterable[str] = ()) -> list[ErrorDetail]:
    """
    Turn an error body into details; accepts the object array, a string array, or anything else as text. Each of
    ``hidden`` (the caller's ``secret_forms``) is replaced by ``***`` wherever the body holds it, before any text is
    shortened: a 401 may echo the request's Authorization header.
    """
    if not body:
        return []
    hidden = tuple(hidden)

    def shown(value: Any) -> str:
        return scrub(str(value), hidden)[:_MAX_TEXT]

    def named(value: Any) -> str | None:
        return None if value is None else scrub(str(value), hidden)

    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        return [ErrorDetail(message=shown(text.strip()))]
    items = data if isinstance(data, list) else [data]
    details = []
    for item in items:
        if isinstance(item, dict):
            code = _field(item, "ErrorCodeId")
            details.append(
                ErrorDetail(
                    message=shown(_field(item, "ErrorMessage") or _field(item, "Message") or ""),
                    error_code_id=code if isinstance(code, int) else None,
                    object_type=named(_field(item, "ObjectType")),
                    property_name=named(_field(item, "PropertyName")),
                )
            )
        else:
            details.append(ErrorDetail(message=shown(item)))
    return details


TRANSIENT_4XX = (408, 429)  # Request Timeout, Too Many Requests: the only 4xx answers that a later call can change


def is_transient_status(status: int | None) -> bool:
    """
    No answer, 408, 429 or 5xx: the same call may succeed later. Every other 4xx (400, 401, 403, 404, 409, ...)
    answers the request itself, and sending it again gets the same answer.
    """
    return status is None or status in TRANSIENT_4XX or status >= 500


def retry_cannot_help(exc: BaseException) -> bool:
    """
    Whether an error would recur on a retry of the task: bad input caught before sending, or an answer that is
    not transient. What the operators and sensors fail without retries, and what waiting treats as fatal.
    """
    if isinstance(exc, MessagingPlatformValidationError):
        return True
    return isinstance(exc, MessagingPlatformApiError) and not exc.is_transient


class MessagingPlatformApiError(Exception):
    """
    A call to the platform failed.

    Carries the HTTP ``status`` (``None`` when no response arrived), the ``method``, the ``path`` relative to
    the base URL, the platform's error ``details`` and ``retry_after``, the seconds its ``Retry-After`` header asked
    for (``None`` without one). Never carries credentials.
    """

    def __init__(
        self,
        *,
        method: str,
        path: str,
        status: int | None,
        details: Iterable[ErrorDetail] = (),
        reason: str = "",
        attempts: int = 1,
        retry_after: float | None = None,
    ) -> None:
        self.method = method
        self.path = path
        self.status = status
        self.details = list(details)
        self.reason = reason
        self.attempts = attempts
        self.retry_after = retry_after
        super().__init__(self._describe())

    def _describe(self) -> str:
        head = f"{self.method} {self.path} failed"
        head += f" with HTTP {self.status}" if self.status is not None else ": no response"
        if self.reason:
            head += f" ({self.reason})"
        if self.attempts > 1:
            head += f" after {self.attempts} attempts"
        if self.details:
            head += ": " + "; ".join(str(d) for d in self.details)
        return head

    @property
    def is_not_found(self) -> bool:
        return self.status == 404

    @property
    def is_transient(self) -> bool:
        """Whether the same call may succeed later (``is_transient_status``)."""
        return is_transient_status(self.status)


class MessagingPlatformValidationError(ValueError):
    """Bad input caught before any network call; names the field and, where known, the allowed values."""

    def __init__(self, field: str, problem: str, allowed: Iterable[object] | None = None) -> None:
        self.field = field
        self.problem = problem
        self.allowed = list(allowed) if allowed is not None else None
        message = f"{field}: {problem}"
        if self.allowed is not None:
            message += f" (allowed: {', '.join(str(a) for a in self.allowed)})"
        super().__init__(message)

    def within(self, name: str) -> MessagingPlatformValidationError:
        """The same problem, named as a part of ``name`` (``schedules[0].week_day``)."""
        return MessagingPlatformValidationError(f"{name}.{self.field}", self.problem, self.allowed)
