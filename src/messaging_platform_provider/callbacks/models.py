"""
The callback payloads of spec section 6.3, one pydantic model per CallbackType.

Each model takes the fields the spec lists for its type, plus those the spec names but its listed shapes omit
(``Campaign`` on every type, ``ContactAccountId`` and ``ContactAccountName`` on Dialog and Stop), and keeps any
other field it is sent (the platform may add some). Property names are read case-insensitively, as the platform's
.NET serialiser may send camelCase (platform facts 1). ``CallbackUrl`` is read as ``CallbackURL``; a NewAccount
payload's ``AccountName`` is read as ``Name`` when ``Name`` is absent.

Validation errors name the field and the problem, never the value: a body carries the callback token.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from messaging_platform_provider.client.bodies import (
    CALLBACK_TYPES,
    DIALOG,
    INCOMING_MESSAGE,
    KEYWORD,
    NEW_ACCOUNT,
    STOP,
)

CALLBACK_TYPE_NAMES = {number: name for name, number in CALLBACK_TYPES.items()}
TOKEN_FIELD = "CallbackToken"


class CallbackValidationError(ValueError):
    """A body that is not a valid callback; ``errors`` are ``{"loc", "msg", "type"}`` without input values."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        self.errors = errors
        super().__init__("; ".join(f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in errors))


class CallbackBase(BaseModel):
    """Fields of every payload (6.3)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    AccountId: int
    CallbackTimestamp: str
    CallbackToken: str = Field(repr=False, min_length=1, max_length=200)
    CallbackType: int
    CallbackURL: str = Field(max_length=2048)
    TransactionId: str
    Campaign: Any = None

    @field_validator("CallbackTimestamp")
    @classmethod
    def _timestamp(cls, value: str) -> str:
        try:
            datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValueError("must be an ISO 8601 date and time (UTC)") from exc
        return value

    @field_validator("TransactionId")
    @classmethod
    def _transaction_id(cls, value: str) -> str:
        """A GUID, kept in one canonical form so that a resend is recognised whatever braces or case it has."""
        try:
            return str(uuid.UUID(value.strip()))
        except ValueError as exc:
            raise ValueError("must be a GUID") from exc

    def stored_payload(self) -> dict[str, Any]:
        """The payload as stored and handed to DAGs: every field sent (known names in spec spelling) but the token."""
        return self.model_dump(exclude={TOKEN_FIELD}, exclude_unset=True, mode="json")

    @property
    def keyword(self) -> str | None:
        return None

    @property
    def phone_number(self) -> str | None:
        value = getattr(self, "PhoneNumber", None)
        return str(value) if value is not None else None


class _Contact(CallbackBase):
    ChannelId: int | None = None
    ContactId: int | None = None
    PhoneNumber: str = Field(min_length=1, max_length=64)
    SubscriptionId: int | None = None


class KeywordCallback(_Contact):
    CampaignId: int | None = None
    Keyword: str = Field(min_length=1, max_length=255)
    KeywordId: int | None = None

    @property
    def keyword(self) -> str | None:
        return self.Keyword


class DialogCallback(_Contact):
    Answer: str | bool | int | float
    QuestionCampaignId: int | None = None
    QuestionText: str | None = None
    DialogCampaignId: int | None = None
    ContactAccountId: int | None = None
    ContactAccountName: str | None = None


class StopCallback(_Contact):
    ContactAccountId: int | None = None
    ContactAccountName: str | None = None


class NewAccountCallback(CallbackBase):
    Name: str | None = None
    AccountName: str | None = None
    ParentId: int | None = None

    @model_validator(mode="after")
    def _name(self) -> NewAccountCallback:
        if not (self.Name or self.AccountName):
            raise ValueError("Name (or AccountName) is required for a NewAccount callback")
        self.Name = self.Name or self.AccountName
        return self

    def stored_payload(self) -> dict[str, Any]:
        return {**super().stored_payload(), "Name": self.Name}


class IncomingMessageCallback(_Contact):
    Message: str
    ChannelCode: str | None = None
    AccountName: str | None = None


MODELS: dict[int, type[CallbackBase]] = {
    KEYWORD: KeywordCallback,
    DIALOG: DialogCallback,
    STOP: StopCallback,
    NEW_ACCOUNT: NewAccountCallback,
    INCOMING_MESSAGE: IncomingMessageCallback,
}

_CANONICAL: dict[str, str] = {}
for _model in MODELS.values():
    for _name in _model.model_fields:
        _CANONICAL[_name.lower()] = _name


def canonical_keys(body: dict[str, Any]) -> dict[str, Any]:
    """Known property names in their spec spelling, whatever their case; unknown ones as sent."""
    result: dict[str, Any] = {}
    for key, value in body.items():
        result[_CANONICAL.get(str(key).lower(), str(key))] = value
    return result


def find_token(body: dict[str, Any]) -> str | None:
    """The body's CallbackToken (any casing), or None."""
    for key, value in body.items():
        if str(key).lower() == TOKEN_FIELD.lower():
            return value if isinstance(value, str) else None
    return None


def _clean_errors(exc: ValidationError) -> list[dict[str, Any]]:
    return [{"loc": list(e["loc"]), "msg": e["msg"], "type": e["type"]} for e in exc.errors(include_input=False)]


def parse_callback(body: Any) -> CallbackBase:
    """The model of the body's CallbackType, validated; ``CallbackValidationError`` otherwise."""
    if not isinstance(body, dict):
        raise CallbackValidationError([{"loc": [], "msg": "the body must be a JSON object", "type": "object_type"}])
    data = canonical_keys(body)
    raw_type = data.get("CallbackType")
    try:
        callback_type = int(raw_type) if not isinstance(raw_type, bool) and raw_type is not None else None
    except (TypeError, ValueError):
        callback_type = None
    model = MODELS.get(callback_type) if callback_type is not None else None
    if model is None:
        allowed = ", ".join(f"{n} ({name})" for n, name in CALLBACK_TYPE_NAMES.items())
        raise CallbackValidationError(
            [{"loc": ["CallbackType"], "msg": f"must be one of {allowed}", "type": "callback_type"}]
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise CallbackValidationError(_clean_errors(exc)) from None


def callback_type_number(value: int | str) -> int:
    """A CallbackType given by number or name (``"Keyword"``, ``"dialog"``, ``3``, ``"3"``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        text = str(value).strip()
        by_name = {name.lower(): n for name, n in CALLBACK_TYPES.items()}
        if text.lower() in by_name:
            return by_name[text.lower()]
        if not text.isdigit():
            raise ValueError(f"unknown callback type {value!r}; use one of {sorted(CALLBACK_TYPES)}")
        number = int(text)
    if number not in CALLBACK_TYPE_NAMES:
        raise ValueError(f"unknown callback type {value!r}; use one of {sorted(CALLBACK_TYPES)}")
    return number
