"""What the typed API methods share: ``call`` (the client's or the hook's) and the helpers around it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.once import CreateOnce, create_once
from messaging_platform_provider.client.operations import Operation

log = logging.getLogger(__name__)


class ApiBase:
    """
    The helpers the typed methods share. The class that has the methods provides the three callables below:
    ``MessagingPlatformClient`` (whose ``call`` is the transport) and ``MessagingPlatformHook`` (whose ``call`` runs
    the client's, reading the connection again after a 401 and masking secrets in the answer).
    """

    #: Run one declared operation (see ``operations.OPERATIONS``) and return its decoded answer.
    call: Callable[..., Any]
    #: The platform's time zone (an IANA name): date-times given with an offset are converted to it.
    _timezone: Callable[[], str]
    #: Whether a plain ``http://`` URL to a host that is not loopback is allowed (``allow_insecure_http``).
    _insecure_http_allowed: Callable[[], bool]

    def _one(self, operation: Operation, **kwargs: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.call(operation, **kwargs)
        return result

    def _many(self, operation: Operation, **kwargs: Any) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self.call(operation, **kwargs)
        return result

    def _create(
        self,
        operation: Operation,
        body: Mapping[str, Any],
        once: CreateOnce | None,
        account_id: int | None,
        **path_params: Any,
    ) -> dict[str, Any]:
        return create_once(self.call, operation, body, once, account_id=account_id, path_params=path_params)

    def _delete(self, operation: Operation, missing_ok: bool, **kwargs: Any) -> bool:
        """
        Delete; ``True`` if it was there. With ``missing_ok`` a resource already gone counts as success: the answer
        is ``False`` and a warning says that nothing was deleted, quoting the platform's 404.
        """
        try:
            self.call(operation, **kwargs)
        except MessagingPlatformApiError as exc:
            if missing_ok and exc.is_not_found:
                log.warning("Nothing deleted (missing_ok): %s", exc)
                return False
            raise
        return True
