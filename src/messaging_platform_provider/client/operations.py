"""
One declaration per API operation: method, path, what the body and the answer are, and how a create is
found again after a lost response.

Hook methods, operators, emulator tests and the docs' reference table are built on or checked against
``OPERATIONS``, so they cannot drift from each other.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Literal

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

    lookup: str
    get: str
    id_param: str
    marker_field: str | None = None
    match_fields: tuple[str, ...] = ()
    after_watermark: bool = False
    one_per_parent: bool = False


@dataclass(frozen=True)
class Operation:
    name: str
    resource: str
    method: Literal["GET", "POST", "PUT", "DELETE"]
    path: str
    summary: str
    returns: Returns = "object"
    body: Body = "none"
    query: tuple[str, ...] = ()
    int_params: frozenset[str] = field(default=frozenset({"account_id"}))
    secret_fields: tuple[str, ...] = ()
    dedupe: Dedupe | None = None
    resend_safe: bool = False  # a POST whose resend cannot change the outcome
    resend_unsafe: bool = False  # a PUT or DELETE whose resend does change it
    in_spec: bool = True  # False: documented by the platform facts only (read-backs the provider relies on)

    @property
    def idempotent(self) -> bool:
        """Whether a blind resend cannot change the outcome: HTTP semantics, or a POST declared ``resend_safe``."""
        return (self.method != "POST" or self.resend_safe) and not self.resend_unsafe

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.path) if f)


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

_SCHEDULE_FIELDS = ("ScheduleTypeId", "RunAt", "StartFrom", "EndAfter", "WeekDay", "MonthDay")
_VOICE_FIELDS = (
    "Channels", "Targets", "ContactListIds", "TargetsUrl", "ExcludeListIds", "Message", "AudioUrl", "CampaignId",
)  # fmt: skip

_DECLARED = (
    # External coupon lists (spec 4.1)
    Operation("list_external_coupon_lists", "external coupon list", "GET", _COUPON_LIST,
              "List external coupon list definitions.", "list"),
    Operation("get_external_coupon_list", "external coupon list", "GET", _COUPON_LIST + "/{coupon_list_id}",
              "Get one external coupon list."),
    Operation("create_external_coupon_list", "external coupon list", "POST", _COUPON_LIST,
              "Create a list definition with its coupon codes.", body="object",
              dedupe=Dedupe("list_external_coupon_lists", "get_external_coupon_list", "coupon_list_id",
                            marker_field="Description")),
    Operation("update_external_coupon_list", "external coupon list", "PUT", _COUPON_LIST + "/{coupon_list_id}",
              "Update a list and add coupon codes.", body="object"),
    Operation("delete_external_coupon_list", "external coupon list", "DELETE", _COUPON_LIST + "/{coupon_list_id}",
              "Delete a list and its coupon codes.", "none"),
    Operation("list_external_coupon_codes", "external coupon list", "GET", _COUPON_LIST + "/{coupon_list_id}/code",
              "List the coupon codes of a list.", "list", in_spec=False),
    Operation("delete_external_coupon_code", "external coupon list", "DELETE",
              _COUPON_LIST + "/{coupon_list_id}/code/{coupon_code}", "Delete one coupon code from a list.", "none",
              in_spec=False),
    # Action schedules (spec 4.2)
    Operation("list_schedules", "action schedule", "GET", _SCHEDULE, "List the schedules of an action.", "list",
              int_params=_ints("action_id")),
    Operation("get_schedule", "action schedule", "GET", _SCHEDULE + "/{schedule_id}", "Get one schedule.",
              int_params=_ints("action_id")),
    Operation("create_schedule", "action schedule", "POST", _SCHEDULE, "Create a schedule on an action.",
              body="object", int_params=_ints("action_id"),
              dedupe=Dedupe("list_schedules", "get_schedule", "schedule_id", match_fields=_SCHEDULE_FIELDS)),
    Operation("update_schedule", "action schedule", "PUT", _SCHEDULE + "/{schedule_id}", "Update a schedule.",
              body="object", int_params=_ints("action_id")),
    Operation("delete_schedule", "action schedule", "DELETE", _SCHEDULE + "/{schedule_id}",
              "Remove a schedule from its action.", "none", int_params=_ints("action_id")),
    # API keys (spec 4.3)
    Operation("list_api_keys", "API key", "GET", _API_KEY, "List the API keys of the account (no secrets).", "list"),
    Operation("get_api_key", "API key", "GET", _API_KEY + "/{key_id}", "Get one API key, including its secret.",
              secret_fields=("Secret",)),
    Operation("create_api_key", "API key", "POST", _API_KEY, "Create an API key.", body="object",
              secret_fields=("Secret",),
              dedupe=Dedupe("list_api_keys", "get_api_key", "key_id", marker_field="Label")),
    Operation("change_api_key_secret", "API key", "PUT", _API_KEY + "/{key_id}",
              "Change a key's secret; the platform generates the new one.", secret_fields=("Secret",),
              resend_unsafe=True),  # each PUT makes a new secret and kills the last: never resent blindly
    Operation("revoke_api_key", "API key", "DELETE", _API_KEY + "/{key_id}", "Revoke an API key.", "none"),
    # Campaigns (spec 4.4)
    Operation("list_campaigns", "campaign", "GET", _CAMPAIGN, "List campaigns.", "list",
              query=("onlyMine", "$filter")),
    Operation("get_campaign", "campaign", "GET", _CAMPAIGN + "/{campaign_id}", "Get one campaign.",
              int_params=_ints("campaign_id")),
    Operation("create_campaign", "campaign", "POST", _CAMPAIGN, "Create a campaign.", body="object",
              dedupe=Dedupe("list_campaigns", "get_campaign", "campaign_id", marker_field="UserData")),
    Operation("update_campaign", "campaign", "PUT", _CAMPAIGN + "/{campaign_id}", "Update a campaign.",
              body="object", int_params=_ints("campaign_id")),
    Operation("delete_campaign", "campaign", "DELETE", _CAMPAIGN + "/{campaign_id}", "Delete a campaign.",
              "none", int_params=_ints("campaign_id")),
    Operation("update_campaign_coupon", "campaign", "PUT", _COUPON,
              "Update the coupon definition of a coupon campaign.", body="object", int_params=_ints("campaign_id")),
    # Coupon definition read, create and redemption counts (platform facts)
    Operation("get_campaign_coupon", "campaign", "GET", _COUPON, "Get the coupon definition of a coupon campaign.",
              int_params=_ints("campaign_id"), in_spec=False),
    Operation("create_campaign_coupon", "campaign", "POST", _COUPON,
              "Create the coupon definition of a coupon campaign.", body="object", int_params=_ints("campaign_id"),
              in_spec=False,
              dedupe=Dedupe("get_campaign_coupon", "get_campaign_coupon", "campaign_id", one_per_parent=True)),
    Operation("get_campaign_coupon_redemptions", "campaign", "GET", _COUPON + "/redemptions",
              "Get the redemption counts of a coupon campaign.", int_params=_ints("campaign_id"), in_spec=False),
    # Push voice call actions (spec 4.5)
    Operation("list_push_voice_calls", "push voice call", "GET", _VOICE, "List push voice call actions.", "list"),
    Operation("get_push_voice_call", "push voice call", "GET", _VOICE + "/{action_id}",
              "Get one push voice call action.", int_params=_ints("action_id")),
    Operation("create_push_voice_call", "push voice call", "POST", _VOICE, "Create a push voice call action.",
              body="object",
              dedupe=Dedupe("list_push_voice_calls", "get_push_voice_call", "action_id",
                            match_fields=_VOICE_FIELDS, after_watermark=True)),
    Operation("delete_push_voice_call", "push voice call", "DELETE", _VOICE + "/{action_id}",
              "Stop a push voice call action and all its schedules.", "none", int_params=_ints("action_id")),
    # Contact filter groups (spec 4.6)
    Operation("list_filter_groups", "contact filter group", "GET", _GROUP,
              "List the filter groups of a contact list (flat).", "list"),
    Operation("get_filter_group", "contact filter group", "GET", _GROUP + "/{group_id}", "Get one filter group."),
    Operation("update_filter_group", "contact filter group", "PUT", _GROUP + "/{group_id}",
              "Change a filter group (not its subgroups or filters).", body="object"),
    # Contacts (spec 4.7)
    Operation("list_contacts", "contact", "GET", _CONTACT, "List the account's contacts.", "list",
              query=("$top", "$skip", "$filter")),
    Operation("get_contact", "contact", "GET", _CONTACT + "/{contact_id}", "Get one contact.",
              int_params=_ints("contact_id"), in_spec=False),
    # Callback records and keyword attachment (spec 4.8)
    Operation("create_callback", "callback record", "POST", _CALLBACK, "Create a callback record.", body="object",
              dedupe=Dedupe("list_callbacks", "get_callback", "callback_id",
                            match_fields=("CallbackType", "URL", "Active"))),
    Operation("attach_keyword_campaign", "keyword attachment", "POST", _KEYWORD,
              "Attach a campaign to a keyword.", body="scalar", resend_safe=True),
    # Read-back of callback records (platform facts, not in the spec's list): lets a retried create find its record.
    Operation("list_callbacks", "callback record", "GET", _CALLBACK, "List callback records.", "list",
              in_spec=False),
    Operation("get_callback", "callback record", "GET", _CALLBACK + "/{callback_id}", "Get one callback record.",
              in_spec=False),
)  # fmt: skip

OPERATIONS: dict[str, Operation] = {op.name: op for op in _DECLARED}

#: The 31 operations of the spec's section 4; ``OPERATIONS`` adds what the platform facts document.
SPEC_OPERATIONS = tuple(name for name, op in OPERATIONS.items() if op.in_spec)
