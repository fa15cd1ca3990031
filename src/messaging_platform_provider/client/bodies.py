"""
Every request body but the schedule's (``client/schedules.py``), declared once (``client/fields.py`` says how a
declaration reads), with the rules that relate one field to another.

Each resource has two declarations: ``...Options``, the fields a create takes as keywords, and ``...Fields``, which
adds the fields a create requires (its positional parameters) and is the whole body. An update takes any of the
``...Fields``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, TypedDict

from messaging_platform_provider.client.errors import MessagingPlatformValidationError
from messaging_platform_provider.client.fields import (
    Named,
    Texts,
    Url,
    Wire,
    count,
    flag,
    identifier,
    identifiers,
    listed,
    mapping,
    moment,
    not_blank,
    whole,
)
from messaging_platform_provider.client.schedules import schedule_list
from messaging_platform_provider.client.values import phone_text

CAMPAIGN_TYPES = {"Gateway": 0, "Basic": 1, "Dialog": 2, "Question": 3, "Coupon": 4, "Sweepstakes": 5, "Chat": 6}
COUPON_TYPES = {"Static": 0, "Dynamic": 1, "External": 2}
VALID_DATE_TYPES = {"None": 0, "Static": 1, "Rolling": 2}
API_KEY_TYPES = {"Common": 2, "Temporary": 3}
KEYWORD, DIALOG, STOP, NEW_ACCOUNT, INCOMING_MESSAGE = 1, 3, 6, 8, 11
#: The events the platform posts to a callback record's URL ; the receiver takes the same types.
CALLBACK_TYPES = {
    "Keyword": KEYWORD,
    "Dialog": DIALOG,
    "Stop": STOP,
    "NewAccount": NEW_ACCOUNT,
    "IncomingMessage": INCOMING_MESSAGE,
}
FILTER_GROUP_OPERATORS = ("AND", "OR")
MAX_CODE_LENGTH = 100
AUDIO_SUFFIXES = (".mp3", ".wav")
#: A phone number in E.164 form: ``+``, then 7 to 15 digits, the first not 0.
E164_PHONE = re.compile(r"\+[1-9]\d{6,14}")


class CampaignOptions(TypedDict, total=False):
    """A campaign's optional fields."""

    subscription_id: Annotated[int | None, identifier]
    content_id: Annotated[int | None, identifier]
    content: Annotated[Mapping[str, Any] | None, mapping]
    user_data: str | None
    single_use: bool | None
    single_use_content_id: Annotated[int | None, identifier]
    links: Annotated[list[Any] | None, listed]
    is_default: bool | None


class CampaignFields(CampaignOptions, total=False):
    name: Annotated[str | None, not_blank]
    campaign_type: Annotated[int | str | None, Named(CAMPAIGN_TYPES), Wire("CampaignTypeId")]


def campaign_rules(body: dict[str, Any]) -> dict[str, Any]:
    if "ContentId" in body and "Content" in body:
        raise MessagingPlatformValidationError("content_id", "give content_id or content, not both")
    return body


class CouponDefinitionOptions(TypedDict, total=False):
    """A coupon definition's optional fields; ``name`` and ``description`` label it in the UI."""

    static_code: str | None
    prefix: str | None
    external_id1: str | None
    external_id2: str | None
    valid_from: Annotated[Any, moment]
    valid_to: Annotated[Any, moment]
    max_uses: Annotated[int | str | None, count]
    valid_date_type: Annotated[int | str | None, Named(VALID_DATE_TYPES), Wire("ValidDateTypeId")]
    valid_rolling_days: Annotated[int | str | None, count]
    valid_rolling_offset: Annotated[int | str | None, whole, Wire("ValidRollingOffSet")]
    external_list_id: Annotated[int | str | None, whole]
    external_coupon_list: Annotated[Mapping[str, Any] | None, mapping]
    name: str | None
    description: str | None


class CouponDefinitionFields(CouponDefinitionOptions, total=False):
    coupon_type: Annotated[int | str, Named(COUPON_TYPES), Wire("CouponTypeId")]


def coupon_definition_rules(body: dict[str, Any]) -> dict[str, Any]:
    """
    A code for Static, a list for External, days for Rolling, ValidTo not before ValidFrom. ``StaticCode`` is
    required in every definition, whatever its type: Dynamic and External carry it as ``""``.
    """
    kind = body["CouponTypeId"]
    if kind == COUPON_TYPES["Static"] and not str(body.get("StaticCode") or "").strip():
        raise MessagingPlatformValidationError("static_code", "is required for a Static coupon")
    body.setdefault("StaticCode", "")
    if kind == COUPON_TYPES["External"] and body.get("ExternalListId") is None and not body.get("ExternalCouponList"):
        raise MessagingPlatformValidationError(
            "external_list_id", "an External coupon needs external_list_id or external_coupon_list"
        )
    if body.get("ValidDateTypeId") == VALID_DATE_TYPES["Rolling"] and not body.get("ValidRollingDays"):
        raise MessagingPlatformValidationError("valid_rolling_days", "is required when valid_date_type is Rolling")
    if "ValidFrom" in body and "ValidTo" in body and body["ValidTo"] < body["ValidFrom"]:  # same fixed-width format
        raise MessagingPlatformValidationError("valid_to", "is before valid_from")
    return body


class ExternalCouponListOptions(TypedDict, total=False):
    """An external coupon list; ``coupon_codes`` are added to the list."""

    description: str | None
    inheritable: bool | None
    coupon_codes: Annotated[Iterable[str] | None, Texts(MAX_CODE_LENGTH)]


class ExternalCouponListFields(ExternalCouponListOptions, total=False):
    name: Annotated[str | None, not_blank]


class PushVoiceCallOptions(TypedDict, total=False):
    """
    A push voice call action: who is called (``targets``: E.164 numbers or contact ids, ``contact_list_ids`` or
    ``targets_url``), what they hear (``message`` spoken, or ``audio_url`` played: .mp3/.wav) and when
    (``schedules``: each a mapping with the keys a schedule operator takes, ``client/schedules.py``). ``channels``
    and ``targets`` are text, ids too: a number there is refused, for it may be a phone number that native
    rendering stripped of its ``+``.
    """

    targets: Annotated[Iterable[str] | str | None, Texts(phones=True)]
    contact_list_ids: Annotated[Iterable[int] | None, identifiers]
    targets_url: Annotated[str | None, Url()]
    exclude_list_ids: Annotated[Iterable[int] | None, identifiers]
    message: str | None
    audio_url: Annotated[str | None, Url(AUDIO_SUFFIXES)]
    campaign_id: Annotated[int | str | None, identifier]
    execute_now: Annotated[bool | None, flag, Wire("Execute")]  # ``execute`` is an operator's own method
    schedules: Annotated[Iterable[Mapping[str, Any]] | None, schedule_list]


class PushVoiceCallFields(PushVoiceCallOptions, total=False):
    channels: Annotated[Iterable[str] | str, Texts(phones=True)]


def push_voice_call_rules(body: dict[str, Any]) -> dict[str, Any]:
    """Somebody to call from at least one channel, exactly one of Message and AudioUrl."""
    if not body.get("Channels"):
        raise MessagingPlatformValidationError("channels", "needs at least one long code or channel id")
    if not (body.get("Targets") or body.get("ContactListIds") or body.get("TargetsUrl")):
        raise MessagingPlatformValidationError(
            "targets", "the call needs someone to call", ["targets", "contact_list_ids", "targets_url"]
        )
    if ("Message" in body) == ("AudioUrl" in body):
        raise MessagingPlatformValidationError("message", "give exactly one of message (text to speak) or audio_url")
    if "Message" in body and not str(body["Message"]).strip():
        raise MessagingPlatformValidationError("message", "must not be empty")
    return body


class ApiKeyOptions(TypedDict, total=False):
    """An API key: ``valid_to`` is required for a Temporary key and refused for a Common one."""

    key_type: Annotated[int | str, Named(API_KEY_TYPES), Wire("TypeId")]
    valid_to: Annotated[Any, moment]


class ApiKeyFields(ApiKeyOptions, total=False):
    key_label: Annotated[str, not_blank, Wire("Label")]


def api_key_rules(body: dict[str, Any]) -> dict[str, Any]:
    if body["TypeId"] == API_KEY_TYPES["Temporary"] and "ValidTo" not in body:
        raise MessagingPlatformValidationError("valid_to", "is required for a Temporary key")
    if body["TypeId"] != API_KEY_TYPES["Temporary"] and "ValidTo" in body:
        raise MessagingPlatformValidationError("valid_to", "is only for a Temporary key")
    return body


class CallbackOptions(TypedDict, total=False):
    """A callback record: where events of a type are POSTed, and whether it is in use."""

    active: Annotated[bool, flag]


class CallbackFields(CallbackOptions, total=False):
    callback_type: Annotated[int | str, Named(CALLBACK_TYPES)]
    url: Annotated[str, Url(), Wire("URL")]


def group_operator(name: str, value: Any, platform_timezone: str) -> Any:
    if str(value).upper() not in FILTER_GROUP_OPERATORS:
        raise MessagingPlatformValidationError(name, f"{value!r} is not valid", FILTER_GROUP_OPERATORS)
    return str(value).upper()


class FilterGroupFields(TypedDict, total=False):
    """A contact filter group's own fields: its subgroups and filters cannot change through it."""

    operator: Annotated[str | None, group_operator]


def e164_phone(name: str, value: Any, platform_timezone: str) -> Any:
    """
    A phone number in E.164 form (``+15125550100``), as text: a number is refused (``values.phone_text``), and blank
    text (a template that rendered nothing) leaves the field out.
    """
    text = phone_text(name, value).strip()
    if not text:
        return None
    if not E164_PHONE.fullmatch(text):
        hint = f" (+{text}?)" if text.isdigit() else ""
        raise MessagingPlatformValidationError(
            name, f"{text!r} is not a phone number in E.164 form, such as +15125550100{hint}"
        )
    return text


def checked_email(name: str, value: Any, platform_timezone: str) -> Any:
    """An e-mail address: text with no white space and an ``@`` between two non-empty parts; blank text leaves the
    field out."""
    if not isinstance(value, str):
        raise MessagingPlatformValidationError(name, f"must be an e-mail address (text), got {type(value).__name__}")
    text = value.strip()
    if not text:
        return None
    local, at, domain = text.rpartition("@")
    if not (local and at and domain) or any(character.isspace() for character in text):
        raise MessagingPlatformValidationError(name, f"{text!r} is not an e-mail address such as ann@example.com")
    return text


class ContactFields(TypedDict, total=False):
    """
    A contact: how it is reached, ``phone_number`` (E.164 text) and ``email_address``, its ``first_name`` and
    ``last_name``, and ``assigned_id``, a number of the caller's own that the platform keeps with it. One declaration
    serves the create and the update: no field is required on its own, but a create needs a phone number or an
    e-mail address (``contact_rules``).
    """

    phone_number: Annotated[str | None, e164_phone]
    # Not ``email``: an operator's ``email`` is Airflow's, the addresses its task's alerts go to.
    email_address: Annotated[str | None, checked_email, Wire("Email")]
    first_name: str | None
    last_name: str | None
    assigned_id: Annotated[int | str | None, whole]


def contact_rules(body: dict[str, Any]) -> dict[str, Any]:
    """A contact is reached by phone or e-mail: a create needs ``PhoneNumber`` or ``Email``, or both."""
    if "PhoneNumber" not in body and "Email" not in body:
        raise MessagingPlatformValidationError(
            "phone_number",
            "a contact needs a phone number or an e-mail address, or both",
            ["phone_number", "email_address"],
        )
    return body
