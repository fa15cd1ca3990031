"""What every resource mixin relies on: ``call`` (provided by the client or the hook) and shared helpers."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.once import CreateOnce, create_once
from messaging_platform_provider.client.operations import Operation

log = logging.getLogger(__name__)


class ApiBase:
    def call(
        self,
        operation: Operation | str,
        *,
        account_id: int | None = None,
        body: Any = None,
        query: Mapping[str, Any] | None = None,
        **path_params: Any,
    ) -> Any:
        """Run one declared operation (see ``operations.OPERATIONS``) and return its decoded answer."""
        raise NotImplementedError

    def _timezone(self) -> str:
        """The platform's time zone (an IANA name): date-times given with an offset are converted to it."""
        raise NotImplementedError

    def _insecure_http_allowed(self) -> bool:
        """Whether a plain ``http://`` URL to a host that is not loopback is allowed (``allow_insecure_http``)."""
        raise NotImplementedError

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
