"""Synchronous client: one pooled ``requests.Session``, retries per ``RetryPolicy``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import requests
from urllib3.exceptions import NewConnectionError

from messaging_platform_provider.client.api import ApiMethods
from messaging_platform_provider.client.errors import (
    MessagingPlatformApiError,
    MessagingPlatformValidationError,
    secret_forms,
)
from messaging_platform_provider.client.operations import Operation, resolve
from messaging_platform_provider.client.request import (
    DEFAULT_TIMEOUT,
    JSON_HEADERS,
    USER_AGENT,
    account_for_call,
    decode,
    normalize_base_url,
    prepare,
)
from messaging_platform_provider.client.retry import Failure, RetryPolicy

log = logging.getLogger(__name__)

_FAILURE_TEXT = {
    Failure.NOT_SENT: "could not connect",
    Failure.LOST: "connection lost after the request was sent",
}


def classify_requests_error(exc: requests.RequestException) -> Failure | None:
    """Map a ``requests`` exception to a transport failure kind; ``None`` for errors that are not transient."""
    if isinstance(exc, requests.ConnectTimeout):
        return Failure.NOT_SENT
    if isinstance(exc, requests.ConnectionError):
        reason = getattr(exc.args[0], "reason", None) if exc.args else None
        return Failure.NOT_SENT if isinstance(reason, NewConnectionError) else Failure.LOST
    if isinstance(exc, (requests.Timeout, requests.exceptions.ChunkedEncodingError)):
        return Failure.LOST
    return None


class MessagingPlatformClient(ApiMethods):
    """
    Authenticated access to one platform deployment; usable without Airflow.

    :param base_url: service root ending in ``/api/v2.1``.
    :param api_key: API key (HTTP Basic user name).
    :param api_secret: the key's secret (HTTP Basic password).
    :param account_id: account used when a call does not name one.
    :param timeout: ``(connect, read)`` seconds.
    :param retry_policy: which failures are retried and how long to wait.
    :param platform_timezone: IANA zone date-times are converted to before they are sent.
    :param allow_insecure_http: allow a plain ``http://`` ``base_url`` or callback record URL to a host that is not
        loopback, which sends the key and secret (the callback token) in clear; refused otherwise.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        api_secret: str,
        *,
        account_id: int | None = None,
        timeout: tuple[float, float] = DEFAULT_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        platform_timezone: str = "UTC",
        allow_insecure_http: bool = False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = normalize_base_url(base_url, allow_insecure_http=allow_insecure_http)
        if not api_key or not api_secret:
            raise MessagingPlatformValidationError("login/password", "the API key and its secret are both required")
        self.allow_insecure_http = allow_insecure_http
        self.hidden = secret_forms(api_key, api_secret)  # scrubbed from error text built from an answer
        self.account_id = account_id
        self.timeout = timeout
        self.retry_policy = retry_policy or RetryPolicy()
        self.platform_timezone = platform_timezone
        self._sleep = sleep
        self.session = requests.Session()
        self.session.auth = (api_key, api_secret)
        self.session.headers.update({**JSON_HEADERS, "User-Agent": USER_AGENT})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, account_id={self.account_id!r})"

    def _timezone(self) -> str:
        return self.platform_timezone

    def _insecure_http_allowed(self) -> bool:
        return self.allow_insecure_http

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> MessagingPlatformClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self,
        operation: str | Operation,
        *,
        account_id: int | None = None,
        body: Any = None,
        query: Mapping[str, Any] | None = None,
        **path_params: Any,
    ) -> Any:
        """Run one declared operation and return its decoded answer (a dict, a list, or ``None``)."""
        op = resolve(operation)
        account = account_for_call(account_id, self.account_id)
        prepared = prepare(
            op,
            self.base_url,
            {"account_id": account, **path_params},
            body,
            query,
            allow_insecure_http=self.allow_insecure_http,
        )
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self.session.request(
                    prepared.method,
                    prepared.url,
                    params=prepared.params or None,
                    data=prepared.content,
                    timeout=self.timeout,
                    allow_redirects=False,  # as the async client: a 3xx is an answer, never followed
                )
            except requests.RequestException as exc:
                failure = classify_requests_error(exc)
                delay = (
                    None
                    if failure is None
                    else self.retry_policy.delay_after_failure(failure, idempotent=op.idempotent, attempt=attempt)
                )
                if delay is None:
                    raise MessagingPlatformApiError(
                        method=prepared.method,
                        path=prepared.path,
                        status=None,
                        reason=f"{type(exc).__name__}: {_FAILURE_TEXT[failure] if failure else 'request error'}",
                        attempts=attempt,
                    ) from exc
                log.warning("%s %s: %s; retrying in %.2f s", prepared.method, prepared.path, type(exc).__name__, delay)
                self._sleep(delay)
                continue
            status = response.status_code
            delay = self.retry_policy.delay_after_status(
                status, idempotent=op.idempotent, attempt=attempt, retry_after=response.headers.get("Retry-After")
            )
            if status >= 400 and delay is not None:
                log.warning("%s %s answered %s; retrying in %.2f s", prepared.method, prepared.path, status, delay)
                response.close()
                self._sleep(delay)
                continue
            log.debug("%s %s answered %s", prepared.method, prepared.path, status)
            retry_after = response.headers.get("Retry-After")
            return decode(op, prepared, status, response.content, attempt, hidden=self.hidden, retry_after=retry_after)
