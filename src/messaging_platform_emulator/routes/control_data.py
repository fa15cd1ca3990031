"""/_emulator control routes that add platform data: contacts in bulk, channels, keywords, API keys of any type.

Never authenticated, faulted or recorded. Errors use FastAPI's usual ``{"detail": ...}`` body (``ControlError``).
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field

from ..seed_data import SEED_CHANNEL_ID
from ..services.channels import LONG_CODE, SHORT_CODE
from ..services.contacts import MAX_GENERATED
from .deps import EmulatorDep

router = APIRouter(tags=["emulator control"])


class ContactsIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    count: int = Field(ge=1, le=MAX_GENERATED)
    account_id: int | None = None


class ChannelIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    code: str = Field(pattern=f"{LONG_CODE.pattern}|{SHORT_CODE.pattern}")
    account_id: int | None = None


class KeywordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, max_length=50, pattern=r"^\S+$")
    channel_id: int = SEED_CHANNEL_ID
    callback_required: bool = False


class ApiKeyIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    account_id: int | None = None
    type_id: Literal[1, 2] = 1
    label: str = Field("Master key", min_length=1)


@router.post("/contacts", status_code=201)
async def add_contacts(body: ContactsIn, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.contacts.add(body.account_id, body.count)


@router.post("/channels", status_code=201)
async def add_channel(body: ChannelIn, emulator: EmulatorDep) -> dict[str, Any]:
    """A long code (E.164, ``+15125550101``: voice calls are placed from it) or a short code (``55333``)."""
    return emulator.channels.add(body.code, body.account_id).to_dict()


@router.post("/keywords", status_code=201)
async def add_keyword(body: KeywordIn, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.keywords.add(body.name, body.channel_id, callback_required=body.callback_required).to_api()


@router.post("/api-keys", status_code=201)
async def add_api_key(body: ApiKeyIn, emulator: EmulatorDep) -> dict[str, Any]:
    return emulator.accounts.add_api_key(body.account_id, body.type_id, body.label)
