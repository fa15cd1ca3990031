"""
One declaration per API operation: method, path, what the body and the answer are, and how a create is
found again after a lost response.

Each is an attribute of ``Operations``, so code names it as ``Operations.get_campaign`` (which an IDE follows to
its declaration) and the attribute's name is the operation's name. Hook methods, operators, emulator tests and the
docs' reference table are built on or checked against ``OPERATIONS``, so they cannot drift from each other.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from messaging_platform_provider.client.bodies import (
    ApiKeyFields,
    CallbackFields,
    CampaignFields,
    ContactFields,
    CouponDefinitionFields,
    ExternalCouponListFields,
    FilterGroupFields,
    PushVoiceCallFields,
)
from messaging_platform_provider.client.fields import wire_names
from messaging_platform_provider.client.schedules import ScheduleFields

Returns = Literal["object", "list", "none"]
Body = Literal["none", "object", "scalar"]


@dataclass(frozen=True)
class Dedupe:
    """
    How a create finds the resource an earlier try of the same task made (see ``client/once.py``).

    ``lookup`` lists the candidates. ``marker_field`` names a text field that carries the run-scoped marker;
    without one, a candidate matches when ``match_fields`` equal the request's. ``after_watermark`` limits
    matches to resources with an ``Id`` above the highest one seen before the first try (needs a task state
    store). ``get``/``id_param`` re-read a resource by id (the list may omit fields, e.g. an API key's secret).
    ``one_per_parent``: the parent holds at most one (a campaign's coupon definition); ``lookup`` reads it, and it
    is adopted only when the task state store says an earlier try sent the create and found none before.
    """

    lookup: Operation
    get: Operation
    id_param: str
    marker_field: str | None = None
    match_fields: tuple[str, ...] = ()
    after_watermark: bool = False
    one_per_parent: bool = False


@dataclass(frozen=True)
class Operation:
    resource: str
    method: Literal["GET", "POST", "PUT", "DELETE"]
    path: str
    summary: str
    returns: Returns = "object"
    fields: type | None = None  # the body's declaration (``client/bodies.py``), when the body is an object
    scalar_body: bool = False  # the body is one bare JSON value
    query: tuple[str, ...] = ()
    int_params: frozenset[str] = field(default=frozenset({"account_id"}))
    secret_fields: tuple[str, ...] = ()
    dedupe: Dedupe | None = None
    resend_safe: bool = False  # a POST whose resend cannot change the outcome
    resend_unsafe: bool = False  # a PUT or DELETE whose resend does change it
    in_spec: bool = True  # False: documented by the platform facts only (read-backs the provider relies on)
    name: str = field(default="", init=False)  # the attribute of ``Operations`` that declares it

    def __set_name__(self, owner: type, name: str) -> None:
        if not self.name:  # the first class attribute it is assigned to is its declaration in ``Operations``
            object.__setattr__(self, "name", name)

    @property
    def idempotent(self) -> bool:
        """Whether a blind resend cannot change the outcome: HTTP semantics, or a POST declared ``resend_safe``."""
        return (self.method != "POST" or self.resend_safe) and not self.resend_unsafe

    @property
    def body(self) -> Body:
        return "object" if self.fields is not None else "scalar" if self.scalar_body else "none"

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.path) if f)

    def called_with(self, path_params: Mapping[str, Any]) -> str:
        """How a log line names a call: its name and the ids it addressed, ``get_schedule (action_id=5001, ...)``."""
        ids = [
            f"{p}={path_params[p]}" for p in self.path_params if p != "account_id" and path_params.get(p) is not None
        ]
        return f"{self.name} ({', '.join(ids)})" if ids else self.name

    def secrets_in(self, answer: Any) -> list[str]:
        """The secrets in this operation's answer (its ``secret_fields``), for the hooks to mask as they read them."""
        if not isinstance(answer, dict):
            return []
        return [answer[name] for name in self.secret_fields if answer.get(name)]


def _ints(*names: str) -> frozenset[str]:
    return frozenset({"account_id", *names})


_COUPON_LIST = "/account/{account_id}/external-couponlist"
_SCHEDULE = "/account/{account_id}/action/{action_id}/schedule"
_API_KEY = "/account/{account_id}/api-key"
_CAMPAIGN = "/account/{account_id}/campaign"
_COUPON = _CAMPAIGN + "/{campaign_id}/coupon"
_VOICE = "/account/{account_id}/action-pushvoicecall"
_GROUP = "/account/{account_id}/contactlist/{contact_list_id}/group"
_CONTACT = "/account/{account_id}/contact"
_CALLBACK = "/account/{account_id}/callback"
_KEYWORD = "/account/{account_id}/channel/{channel}/keyword/{keyword_id}/campaign"

#: What tells one push voice call action from another: who it calls, from where, and what they hear.
_VOICE_MATCH = (
    "Channels", "Targets", "ContactListIds", "TargetsUrl", "ExcludeListIds", "Message", "AudioUrl", "CampaignId",
)  # fmt: skip


# fmt: off
class Operations:
    """Every operation, each under its name (``Operation.__set_name__`` records it)."""

    # External coupon lists (spec 4.1)
    list_external_coupon_lists = Operation(
        "external coupon list", "GET", _COUPON_LIST, "List external coupon list definitions.", "list")
    get_external_coupon_list = Operation(
        "external coupon list", "GET", _COUPON_LIST + "/{coupon_list_id}", "Get one external coupon list.")
    create_external_coupon_list = Operation(
        "external coupon list", "POST", _COUPON_LIST, "Create a list definition with its coupon codes.",
        fields=ExternalCouponListFields,
        dedupe=Dedupe(list_external_coupon_lists, get_external_coupon_list, "coupon_list_id",
                      marker_field="Description"))
    update_external_coupon_list = Operation(
        "external coupon list", "PUT", _COUPON_LIST + "/{coupon_list_id}", "Update a list and add coupon codes.",
        fields=ExternalCouponListFields)
    delete_external_coupon_list = Operation(
        "external coupon list", "DELETE", _COUPON_LIST + "/{coupon_list_id}", "Delete a list and its coupon codes.",
        "none")
    list_external_coupon_codes = Operation(
        "external coupon list", "GET", _COUPON_LIST + "/{coupon_list_id}/code", "List the coupon codes of a list.",
        "list", in_spec=False)
    get_external_coupon_code = Operation(
        "external coupon list", "GET", _COUPON_LIST + "/{coupon_list_id}/code/{coupon_code}",
        "Get one coupon code of a list.", in_spec=False)
    delete_external_coupon_code = Operation(
        "external coupon list", "DELETE", _COUPON_LIST + "/{coupon_list_id}/code/{coupon_code}",
        "Delete one coupon code from a list.", "none", in_spec=False)
    # Action schedules (spec 4.2)
    list_schedules = Operation(
        "action schedule", "GET", _SCHEDULE, "List the schedules of an action.", "list",
        int_params=_ints("action_id"))
    get_schedule = Operation(
        "action schedule", "GET", _SCHEDULE + "/{schedule_id}", "Get one schedule.", int_params=_ints("action_id"))
    create_schedule = Operation(
        "action schedule", "POST", _SCHEDULE, "Create a schedule on an action.", fields=ScheduleFields,
        int_params=_ints("action_id"),
        dedupe=Dedupe(list_schedules, get_schedule, "schedule_id", match_fields=wire_names(ScheduleFields)))
    update_schedule = Operation(
        "action schedule", "PUT", _SCHEDULE + "/{schedule_id}", "Update a schedule.", fields=ScheduleFields,
        int_params=_ints("action_id"))
    delete_schedule = Operation(
        "action schedule", "DELETE", _SCHEDULE + "/{schedule_id}", "Remove a schedule from its action.", "none",
        int_params=_ints("action_id"))
    # API keys (spec 4.3)
    list_api_keys = Operation(
        "API key", "GET", _API_KEY, "List the API keys of the account (no secrets).", "list")
    get_api_key = Operation(
        "API key", "GET", _API_KEY + "/{key_id}", "Get one API key, including its secret.",
        secret_fields=("Secret",))
    create_api_key = Operation(
        "API key", "POST", _API_KEY, "Create an API key.", fields=ApiKeyFields, secret_fields=("Secret",),
        dedupe=Dedupe(list_api_keys, get_api_key, "key_id", marker_field="Label"))
    change_api_key_secret = Operation(
        "API key", "PUT", _API_KEY + "/{key_id}", "Change a key's secret; the platform generates the new one.",
        secret_fields=("Secret",),
        resend_unsafe=True)  # each PUT makes a new secret and kills the last: never resent blindly
    revoke_api_key = Operation("API key", "DELETE", _API_KEY + "/{key_id}", "Revoke an API key.", "none")
    # Campaigns (spec 4.4)
    list_campaigns = Operation(
        "campaign", "GET", _CAMPAIGN, "List campaigns.", "list", query=("onlyMine", "$filter"))
    get_campaign = Operation(
        "campaign", "GET", _CAMPAIGN + "/{campaign_id}", "Get one campaign.", int_params=_ints("campaign_id"))
    create_campaign = Operation(
        "campaign", "POST", _CAMPAIGN, "Create a campaign.", fields=CampaignFields,
        dedupe=Dedupe(list_campaigns, get_campaign, "campaign_id", marker_field="UserData"))
    update_campaign = Operation(
        "campaign", "PUT", _CAMPAIGN + "/{campaign_id}", "Update a campaign.", fields=CampaignFields,
        int_params=_ints("campaign_id"))
    delete_campaign = Operation(
        "campaign", "DELETE", _CAMPAIGN + "/{campaign_id}", "Delete a campaign.", "none",
        int_params=_ints("campaign_id"))
    update_coupon_definition = Operation(
        "coupon definition", "PUT", _COUPON, "Update the coupon definition of a coupon campaign.",
        fields=CouponDefinitionFields, int_params=_ints("campaign_id"))
    # Coupon definition read, create and redemption counts (platform facts)
    get_coupon_definition = Operation(
        "coupon definition", "GET", _COUPON, "Get the coupon definition of a coupon campaign.",
        int_params=_ints("campaign_id"), in_spec=False)
    create_coupon_definition = Operation(
        "coupon definition", "POST", _COUPON, "Create the coupon definition of a coupon campaign.",
        fields=CouponDefinitionFields, int_params=_ints("campaign_id"), in_spec=False,
        dedupe=Dedupe(get_coupon_definition, get_coupon_definition, "campaign_id", one_per_parent=True))
    get_coupon_redemption_details = Operation(
        "coupon definition", "GET", _COUPON + "/redemptions", "Get the redemption counts of a coupon campaign.",
        int_params=_ints("campaign_id"), in_spec=False)
    # Push voice call actions (spec 4.5)
    list_push_voice_calls = Operation(
        "push voice call", "GET", _VOICE, "List push voice call actions.", "list")
    get_push_voice_call = Operation(
        "push voice call", "GET", _VOICE + "/{action_id}", "Get one push voice call action.",
        int_params=_ints("action_id"))
    create_push_voice_call = Operation(
        "push voice call", "POST", _VOICE, "Create a push voice call action.", fields=PushVoiceCallFields,
        dedupe=Dedupe(list_push_voice_calls, get_push_voice_call, "action_id", match_fields=_VOICE_MATCH,
                      after_watermark=True))
    delete_push_voice_call = Operation(
        "push voice call", "DELETE", _VOICE + "/{action_id}", "Stop a push voice call action and all its schedules.",
        "none", int_params=_ints("action_id"))
    # Contact filter groups (spec 4.6)
    list_filter_groups = Operation(
        "contact filter group", "GET", _GROUP, "List the filter groups of a contact list (flat).", "list")
    get_filter_group = Operation(
        "contact filter group", "GET", _GROUP + "/{group_id}", "Get one filter group.")
    update_filter_group = Operation(
        "contact filter group", "PUT", _GROUP + "/{group_id}", "Change a filter group (not its subgroups or filters).",
        fields=FilterGroupFields)
    # Contacts (spec 4.7)
    list_contacts = Operation(
        "contact", "GET", _CONTACT, "List the account's contacts.", "list", query=("$top", "$skip", "$filter"))
    get_contact = Operation(
        "contact", "GET", _CONTACT + "/{contact_id}", "Get one contact.", int_params=_ints("contact_id"),
        in_spec=False)
    # Contact create and update (platform facts: the vendor's client libraries make them)
    create_contact = Operation(
        "contact", "POST", _CONTACT, "Create a contact.", fields=ContactFields, in_spec=False,
        # A contact has no free-text field of its own to carry a run marker (its names are shown to people), and
        # its phone number and e-mail address are what tell it from another. Only a contact newer than the
        # watermark stored before the first POST is adopted: a contact the account had before the task, with the
        # same number, is someone else's record and must not be returned as the one this task made.
        dedupe=Dedupe(list_contacts, get_contact, "contact_id", match_fields=("PhoneNumber", "Email"),
                      after_watermark=True))
    update_contact = Operation(
        "contact", "PUT", _CONTACT + "/{contact_id}", "Change the given fields of a contact.", fields=ContactFields,
        int_params=_ints("contact_id"), in_spec=False)  # the same fields sent again set the same values: resend safe
    # Read-back of callback records (platform facts, not in the spec's list): lets a retried create find its record.
    list_callbacks = Operation(
        "callback record", "GET", _CALLBACK, "List callback records.", "list", in_spec=False)
    get_callback = Operation(
        "callback record", "GET", _CALLBACK + "/{callback_id}", "Get one callback record.", in_spec=False)
    # Callback records and keyword attachment (spec 4.8)
    create_callback = Operation(
        "callback record", "POST", _CALLBACK, "Create a callback record.", fields=CallbackFields,
        dedupe=Dedupe(list_callbacks, get_callback, "callback_id", match_fields=wire_names(CallbackFields)))
    attach_keyword_campaign = Operation(
        "keyword attachment", "POST", _KEYWORD, "Attach a campaign to a keyword.", scalar_body=True,
        resend_safe=True)
# fmt: on


OPERATIONS: dict[str, Operation] = {op.name: op for op in vars(Operations).values() if isinstance(op, Operation)}

#: The 31 operations of the spec's section 4; ``OPERATIONS`` adds what the platform facts document.
SPEC_OPERATIONS = tuple(name for name, op in OPERATIONS.items() if op.in_spec)


def resolve(operation: Operation | str) -> Operation:
    """An operation given as itself (``Operations.get_campaign``) or by its name (``"get_campaign"``)."""
    return OPERATIONS[operation] if isinstance(operation, str) else operation
