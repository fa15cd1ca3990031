"""
``MessagingPlatformRetryPolicy``: Airflow's retry policy (``retry_policy=`` on a task, Airflow 3.3+) for a task that
calls the platform, deciding as the provider's operators do (``errors.platform_error_kind``).

On Airflow before 3.3 this module imports, so a module of shared task settings can import it on any Airflow the
provider supports, but building the policy raises a ``RuntimeError`` that says it needs Airflow 3.3.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import airflow

from messaging_platform_provider.client.errors import MessagingPlatformApiError, MessagingPlatformValidationError
from messaging_platform_provider.tasks.errors import PlatformErrorKind, platform_error_kind
from messaging_platform_provider.version_compat import HAVE_RETRY_POLICIES

if TYPE_CHECKING or HAVE_RETRY_POLICIES:
    from airflow.sdk.definitions.retry_policy import RetryAction, RetryDecision, RetryPolicy
else:  # Airflow < 3.3: the class is defined on a stand-in base, and refuses to be built
    RetryPolicy = object

if TYPE_CHECKING:
    from airflow.sdk.definitions.context import Context

#: The longest wait a ``Retry-After`` can set by default: a platform that asks for more is tried again after this.
DEFAULT_MAX_RETRY_DELAY = timedelta(hours=1)


class MessagingPlatformRetryPolicy(RetryPolicy):
    """
    Decides, after a task has failed, whether Airflow runs it again, from the platform's error:

    - an error a retry cannot change (bad input caught before sending; an answer such as 400, 401, 403, 404 or 409):
      fail now, without the task's remaining retries, the reason naming the request and the answer;
    - a transient one (no answer, 408, 429, 5xx): retry, after the platform's ``Retry-After`` when its answer had
      one (at most ``max_retry_delay``), else after the task's own ``retry_delay``;
    - any other exception: no decision; the task's ``retries`` and ``retry_delay`` apply.

    A retry still counts against the task's ``retries``: with ``retries=0`` nothing is retried. Airflow never asks a
    policy about an ``AirflowFailException``, which is what ``failing_fast()`` (around every operator's and sensor's
    work) makes of an error a retry cannot change: the task fails at once all the same, without this policy's reason.

    Not the client's ``client.retry.RetryPolicy``, which resends one HTTP request within a single hook call (backoff,
    a ``Retry-After`` of up to two minutes waited out in the call): that happens first, and this policy only sees the
    error the hook call finally raised.

    :param max_retry_delay: the longest wait before a retry that a ``Retry-After`` can set (default one hour); a
        ``timedelta`` longer than zero.
    """

    def __init__(self, *, max_retry_delay: timedelta = DEFAULT_MAX_RETRY_DELAY) -> None:
        if not HAVE_RETRY_POLICIES:
            raise RuntimeError(
                f"MessagingPlatformRetryPolicy needs Airflow 3.3 or later, where a task takes retry_policy=; this is "
                f"Airflow {airflow.__version__}. On this Airflow, run the hook calls of the task inside "
                "messaging_platform_provider.tasks.errors.failing_fast() to fail at once on an error a retry cannot "
                "change."
            )
        if not isinstance(max_retry_delay, timedelta) or max_retry_delay <= timedelta(0):
            raise MessagingPlatformValidationError(
                "max_retry_delay", f"must be a timedelta longer than zero, got {max_retry_delay!r}"
            )
        self.max_retry_delay = max_retry_delay

    def evaluate(
        self,
        exception: BaseException,
        try_number: int,
        max_tries: int,
        context: Context | None = None,
    ) -> RetryDecision:
        kind = platform_error_kind(exception)
        if kind is PlatformErrorKind.PERMANENT:
            return RetryDecision.fail(f"a retry cannot change this: {exception}")
        if kind is PlatformErrorKind.NOT_PLATFORM:
            reason = f"not a platform error ({type(exception).__name__}): the task's own retries apply"
            return RetryDecision(action=RetryAction.DEFAULT, reason=reason)
        asked = exception.retry_after if isinstance(exception, MessagingPlatformApiError) else None
        if asked is None:
            return RetryDecision.retry(reason=f"a retry may get past this: {exception}")
        longest = self.max_retry_delay.total_seconds()
        if asked > longest:  # compared as seconds: a Retry-After can be beyond what a timedelta holds
            delay = self.max_retry_delay
            wait = f"{longest:g} s (max_retry_delay; the platform's Retry-After asked for {asked:g} s)"
        else:
            delay = timedelta(seconds=asked)
            wait = f"{asked:g} s, as the platform's Retry-After asked"
        return RetryDecision.retry(delay, f"retrying after {wait}: {exception}")

    def serialize(self) -> dict[str, Any]:
        """The policy's setting as JSON. Airflow 3.3 and 3.4 never call it: a DAG stores only that a task has one."""
        return {"max_retry_delay": self.max_retry_delay.total_seconds()}

    @classmethod
    def deserialize(cls, data: dict[str, Any]) -> MessagingPlatformRetryPolicy:
        """The policy ``serialize`` wrote."""
        return cls(max_retry_delay=timedelta(seconds=data["max_retry_delay"]))


__all__ = ["DEFAULT_MAX_RETRY_DELAY", "MessagingPlatformRetryPolicy"]
