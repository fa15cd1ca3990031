"""Platform error bodies (a JSON array of {ErrorCodeId, ErrorMessage, ObjectType, PropertyName}), and the errors
of control requests."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

UNKNOWN_ERROR = 0
NOT_FOUND = 404
PROPERTY_ALREADY_IN_USE = 0x01000000
PROPERTY_REQUIRED = 0x02000000
PROPERTY_INVALID_VALUE = 0x06000000

UNAUTHORIZED_MESSAGE = "Authorization has been denied for this request."


@dataclass(frozen=True)
class ErrorDetail:
    code: int
    message: str
    object_type: str | None = None
    property_name: str | None = None

    def to_api(self) -> dict[str, Any]:
        return {
            "ErrorCodeId": self.code,
            "ErrorMessage": self.message,
            "ObjectType": self.object_type,
            "PropertyName": self.property_name,
        }


class PlatformError(Exception):
    """Raised by business rules; rendered by the app as the platform's error array."""

    def __init__(self, status: int, details: list[ErrorDetail], headers: dict[str, str] | None = None) -> None:
        super().__init__(status, details)
        self.status = status
        self.details = details
        self.headers = headers or {}

    def __str__(self) -> str:
        return f"{self.status}: " + "; ".join(d.message for d in self.details)

    def body(self) -> list[dict[str, Any]]:
        return error_body(self.details)


def error_body(details: list[ErrorDetail]) -> list[dict[str, Any]]:
    return [d.to_api() for d in details]


def unauthorized() -> PlatformError:
    return PlatformError(
        401,
        [ErrorDetail(UNKNOWN_ERROR, UNAUTHORIZED_MESSAGE)],
        {"WWW-Authenticate": 'Basic realm="api"'},
    )


def not_found(object_type: str, object_id: object) -> PlatformError:
    return PlatformError(404, [ErrorDetail(NOT_FOUND, f"{object_type} {object_id} was not found.", object_type)])


def bad_request(
    message: str,
    object_type: str | None = None,
    code: int = PROPERTY_INVALID_VALUE,
    property_name: str | None = None,
) -> PlatformError:
    return PlatformError(400, [ErrorDetail(code, message, object_type, property_name)])


class ControlError(Exception):
    """A control request (``/_emulator``) the emulator refuses.

    Raised by services and answered by the app as FastAPI answers an ``HTTPException``, ``{"detail": message}``
    with ``status``, so control routes need no translation of their own. Subclasses name the case and its status.
    """

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class ControlNotFound(ControlError):
    """What a control request names does not exist."""

    status = 404


class ControlConflict(ControlError):
    """A control request conflicts with the current state (a name taken, a run already ended)."""

    status = 409
