"""
The platform's request rules, written down a second time from the API reference text, for checking what goes
over the wire.

This module is deliberately independent: it imports nothing from the provider or the emulator, and each rule
names the reference section it was read from (sections 1, 2, 4 and 5 of the API v2.1 reference; "facts" where the
reference says "not shown" and the vendor's public SDKs and documentation fill the gap). If the provider and the
emulator ever agree on a misreading, a request still has to pass this reading to conform.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

API_ROOT = "/api/v2.1"

#: §1: "Timestamps are strings in ISO 8601 date-time form without a zone offset."
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")
LOOKS_LIKE_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
#: §2.1 RunAt: "Time of day to run, shaped HH:mm:ss".
TIME_OF_DAY = re.compile(r"^([01]\d|2[0-3]):[0-5]\d:[0-5]\d$")
#: §2.1 WeekDay: "Comma-separated three-letter upper-case abbreviations such as SUN, MON, TUE".
WEEK_DAYS = re.compile(r"^(SUN|MON|TUE|WED|THU|FRI|SAT)(, ?(SUN|MON|TUE|WED|THU|FRI|SAT))*$")
#: §1: "Property names are PascalCase".
PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")

# Facts §2: ScheduleType 7 Weekly, 8 Monthly (the reference names the types but not their numbers).
WEEKLY, MONTHLY = 7, 8


@dataclass(frozen=True)
class Field:
    """One request property: its JSON type (as the reference words it) and whether it is required."""

    kind: str  # "integer", "number", "string", "boolean", "object", "array", "timestamp", "time", "weekdays"
    required: bool = False
    nullable: bool = False
    choices: tuple[Any, ...] = ()


@dataclass(frozen=True)
class BodyRule:
    """The properties of a request body. ``closed``: a property not listed is a misspelling."""

    section: str
    fields: Mapping[str, Field]
    closed: bool = True
    required_when: tuple[tuple[str, str, Any], ...] = ()  # (field, other field, value): required if other == value
    frozen: tuple[str, ...] = ()  # properties this request cannot change (§4.6)
    nested: Mapping[str, BodyRule] = field(default_factory=dict)  # arrays of objects checked by their own rule


@dataclass(frozen=True)
class Endpoint:
    method: str
    template: str  # relative to {base_url}; {name:int} is an integer segment, {name} any single segment
    section: str
    body: BodyRule | str | None = None  # a rule, "integer" (a bare JSON integer), or None (no body)
    query: Mapping[str, str] = field(default_factory=dict)  # name -> "boolean", "count" or "filter"


SCHEDULE = BodyRule(
    "§2.1 (create); §4.2 and facts §4.1 (the PUT takes the same schedule)",
    {
        "ScheduleTypeId": Field("integer", required=True),
        "RunAt": Field("time", required=True),
        "StartFrom": Field("timestamp", required=True),
        "EndAfter": Field("timestamp", nullable=True),
        "WeekDay": Field("weekdays"),
        "MonthDay": Field("string"),
    },
    required_when=(("WeekDay", "ScheduleTypeId", WEEKLY), ("MonthDay", "ScheduleTypeId", MONTHLY)),
)
CAMPAIGN = BodyRule(
    "§2.3",
    {
        "SubscriptionId": Field("integer"),
        "Name": Field("string", required=True),
        "CampaignTypeId": Field("number", required=True),
        "ContentId": Field("integer"),
        "Content": Field("object"),
        "UserData": Field("string"),
        "SingleUse": Field("boolean"),
        "SingleUseContentId": Field("integer"),
        "Links": Field("array"),
        "IsDefault": Field("boolean"),
    },
)
# §4.4: the body of the campaign PUT is not shown; the fields of §2.3 are what a campaign has, none required.
CAMPAIGN_UPDATE = BodyRule(
    "§2.3 fields; §4.4 (PUT body not shown)", {n: Field(f.kind) for n, f in CAMPAIGN.fields.items()}
)
COUPON_DEFINITION = BodyRule(
    "§2.4 (PUT); facts §8.2 (POST takes the same, plus Name and Description)",
    {
        "CouponTypeId": Field("number", required=True),
        "Prefix": Field("string"),
        "StaticCode": Field("string", required=True),
        "ExternalId1": Field("string"),
        "ExternalId2": Field("string"),
        "ValidFrom": Field("timestamp"),
        "ValidTo": Field("timestamp"),
        "MaxUses": Field("number"),
        "ValidDateTypeId": Field("number"),
        "ValidRollingDays": Field("integer"),
        "ValidRollingOffSet": Field("integer"),
        "ExternalListId": Field("integer"),
        "ExternalCouponList": Field("object"),
        "Name": Field("string"),
        "Description": Field("string"),
    },
)
CALLBACK_RECORD = BodyRule(
    "§2.5",
    {
        "CallbackType": Field("integer", required=True, choices=(1, 3, 6, 8, 11)),
        "URL": Field("string", required=True),
        "Active": Field("boolean", required=True),
    },
)
# §4.1 "payload shapes: not shown"; facts §9.2 list the fields of an external coupon list.
COUPON_LIST = BodyRule(
    "facts §9.2",
    {
        "Name": Field("string"),
        "Description": Field("string"),
        "Inheritable": Field("boolean"),
        "CouponCodes": Field("array"),
    },
)
# §4.3 "bodies: not shown"; facts §7.1: Label and the type are required, ValidTo for temporary keys.
API_KEY = BodyRule(
    "facts §7.1",
    {"Label": Field("string", required=True), "TypeId": Field("integer"), "Type": Field("integer"),
     "ValidTo": Field("timestamp", nullable=True)},
)  # fmt: skip
# §4.6: bodies not shown, "The PUT cannot change any property of subgroups or filters"; facts §10: Operator.
FILTER_GROUP = BodyRule(
    "§4.6; facts §10",
    {"Operator": Field("string", choices=("AND", "OR"))},
    closed=False,
    frozen=("Groups", "Filters"),
)
# §4.7 lists only the contact reads; facts §11: a contact's PhoneNumber (E.164) and/or Email, names, AssignedId.
CONTACT = BodyRule("facts §11", {name: Field(kind, nullable=True) for name, kind in (
    ("PhoneNumber", "string"), ("Email", "string"), ("FirstName", "string"), ("LastName", "string"),
    ("AssignedId", "integer"))})  # fmt: skip
# §4.5: bodies not shown, and no public source shows them: the general rules of §1 apply, and inline schedules
# (facts §3: every action carries ``Schedules``) are schedule requests of §2.1.
VOICE_CALL = BodyRule("§4.5 (not shown); facts §3", {"Schedules": Field("array")}, closed=False,
                      nested={"Schedules": SCHEDULE})  # fmt: skip

_LIST = "/account/{accountId:int}/external-couponlist"
_SCHEDULES = "/account/{accountId:int}/action/{actionId:int}/schedule"
_KEYS = "/account/{accountId:int}/api-key"
_CAMPAIGNS = "/account/{accountId:int}/campaign"
_VOICE = "/account/{accountId:int}/action-pushvoicecall"
_GROUPS = "/account/{accountId:int}/contactlist/{contactListId}/group"
_COUPON = _CAMPAIGNS + "/{campaignId:int}/coupon"

ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint("GET", _LIST, "§4.1"),
    Endpoint("GET", _LIST + "/{externalCouponListId}", "§4.1"),
    Endpoint("POST", _LIST, "§4.1", COUPON_LIST),
    Endpoint("PUT", _LIST + "/{externalCouponListId}", "§4.1", COUPON_LIST),
    Endpoint("DELETE", _LIST + "/{externalCouponListId}", "§4.1"),
    Endpoint("GET", _LIST + "/{externalCouponListId}/code", "facts §9.1"),
    Endpoint("GET", _LIST + "/{externalCouponListId}/code/{couponCode}", "facts §9.1"),
    Endpoint("DELETE", _LIST + "/{externalCouponListId}/code/{couponCode}", "facts §9.1"),
    Endpoint("GET", _SCHEDULES, "§4.2"),
    Endpoint("GET", _SCHEDULES + "/{scheduleId}", "§4.2"),
    Endpoint("POST", _SCHEDULES, "§4.2", SCHEDULE),
    Endpoint("PUT", _SCHEDULES + "/{scheduleId}", "§4.2", SCHEDULE),
    Endpoint("DELETE", _SCHEDULES + "/{scheduleId}", "§4.2"),
    Endpoint("GET", _KEYS, "§4.3"),
    Endpoint("GET", _KEYS + "/{keyId}", "§4.3"),
    Endpoint("POST", _KEYS, "§4.3", API_KEY),
    Endpoint("PUT", _KEYS + "/{keyId}", "§4.3; facts §7.1 (no body: the platform makes the secret)"),
    Endpoint("DELETE", _KEYS + "/{keyId}", "§4.3"),
    Endpoint("GET", _CAMPAIGNS, "§4.4; facts §8.1", query={"onlyMine": "boolean", "$filter": "filter"}),
    Endpoint("GET", _CAMPAIGNS + "/{campaignId:int}", "§4.4"),
    Endpoint("POST", _CAMPAIGNS, "§4.4", CAMPAIGN),
    Endpoint("PUT", _CAMPAIGNS + "/{campaignId:int}", "§4.4", CAMPAIGN_UPDATE),
    Endpoint("DELETE", _CAMPAIGNS + "/{campaignId:int}", "§4.4"),
    Endpoint("PUT", _COUPON, "§4.4", COUPON_DEFINITION),
    Endpoint("GET", _COUPON, "facts §8.2"),
    Endpoint("POST", _COUPON, "facts §8.2", COUPON_DEFINITION),
    Endpoint("GET", _COUPON + "/redemptions", "facts §8.2"),
    Endpoint("GET", _VOICE, "§4.5"),
    Endpoint("GET", _VOICE + "/{actionId:int}", "§4.5"),
    Endpoint("POST", _VOICE, "§4.5", VOICE_CALL),
    Endpoint("DELETE", _VOICE + "/{actionId:int}", "§4.5"),
    Endpoint("GET", _GROUPS, "§4.6"),
    Endpoint("GET", _GROUPS + "/{groupId}", "§4.6"),
    Endpoint("PUT", _GROUPS + "/{groupId}", "§4.6", FILTER_GROUP),
    Endpoint("GET", "/account/{accountId:int}/contact", "§4.7; facts §1 (OData options)",
             query={"$top": "count", "$skip": "count", "$filter": "filter"}),
    Endpoint("GET", "/account/{accountId:int}/contact/{contactId}", "facts §11"),
    Endpoint("POST", "/account/{accountId:int}/contact", "facts §11", CONTACT),
    Endpoint("PUT", "/account/{accountId:int}/contact/{contactId:int}", "facts §11", CONTACT),
    Endpoint("POST", "/account/{accountId:int}/callback", "§4.8", CALLBACK_RECORD),
    Endpoint("GET", "/account/{accountId:int}/callback", "facts §12"),
    Endpoint("GET", "/account/{accountId:int}/callback/{callbackId}", "facts §12"),
    Endpoint("POST", "/account/{accountId:int}/channel/{channel}/keyword/{keywordId}/campaign",
             "§4.8; facts §13 (the body is the bare campaign id)", "integer"),
)  # fmt: skip


def _segments(template: str) -> list[tuple[str, str | None]]:
    """A template as (literal, None) and (name, kind) parts, one per path segment."""
    parts: list[tuple[str, str | None]] = []
    for segment in template.strip("/").split("/"):
        if segment.startswith("{"):
            name, _, kind = segment[1:-1].partition(":")
            parts.append((name, kind or "segment"))
        else:
            parts.append((segment, None))
    return parts


def find_endpoint(method: str, path: str) -> Endpoint | None:
    """The endpoint a request addresses, by method and literal segments (values are checked by ``check``)."""
    segments = path.removeprefix(API_ROOT).strip("/").split("/")
    for endpoint in ENDPOINTS:
        parts = _segments(endpoint.template)
        if endpoint.method == method and len(parts) == len(segments):
            if all(kind is not None or literal == seg for (literal, kind), seg in zip(parts, segments, strict=True)):
                return endpoint
    return None


@dataclass(frozen=True)
class Request:
    """A request as it went over the wire: what the emulator's request record holds."""

    method: str
    path: str  # with or without the /api/v2.1 root
    query: str
    headers: Mapping[str, str]  # lower-case names
    body: Any  # the decoded JSON body, or None
    raw_body: str = ""

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Request:
        return cls(record["method"], record["path"], record["query"], record["headers"], record["json"],
                   record.get("body", ""))  # fmt: skip


def check(request: Request) -> list[str]:
    """Every way ``request`` breaks a rule of the reference; empty when it conforms."""
    endpoint = find_endpoint(request.method, request.path)
    if endpoint is None:
        return [f"{request.method} {request.path}: no such endpoint"]
    problems = _check_path(endpoint, request.path) + _check_query(endpoint, request.query)
    problems += _check_headers(request)
    if endpoint.body is None:
        if request.raw_body.strip():
            problems.append(f"{endpoint.section}: this request takes no body")
    elif endpoint.body == "integer":
        if isinstance(request.body, bool) or not isinstance(request.body, int):
            problems.append(f"{endpoint.section}: the body must be a bare JSON integer, got {request.raw_body!r}")
    elif isinstance(endpoint.body, BodyRule):
        problems += check_body(endpoint.body, request.body)
    return problems


def _check_path(endpoint: Endpoint, path: str) -> list[str]:
    problems = []
    segments = path.removeprefix(API_ROOT).strip("/").split("/")
    for (name, kind), raw in zip(_segments(endpoint.template), segments, strict=True):
        value = unquote(raw)
        if kind == "int" and not (value.isascii() and value.isdigit() and int(value) > 0):
            problems.append(f"§4: path segment {name} must be a positive integer, got {value!r}")
        elif kind == "segment" and (value in ("", ".", "..") or "/" in value):
            problems.append(f"§4: path segment {name} must be one non-empty segment, got {value!r}")
    return problems


def _check_query(endpoint: Endpoint, query: str) -> list[str]:
    problems = []
    for name, value in parse_qsl(query, keep_blank_values=True):
        kind = endpoint.query.get(name)
        if kind is None:
            problems.append(f"{endpoint.section}: {name} is not a query option of this endpoint")
        elif kind == "boolean" and value not in ("true", "false"):
            problems.append(f"{endpoint.section}: {name} must be true or false, got {value!r}")
        elif kind == "count" and not (value.isascii() and value.isdigit()):
            problems.append(f"{endpoint.section}: {name} must be a whole number, got {value!r}")
        elif kind == "filter" and not value.strip():
            problems.append(f"{endpoint.section}: {name} must not be empty")
    return problems


def _check_headers(request: Request) -> list[str]:
    problems = []
    if request.headers.get("accept", "").split(";")[0].strip() != "application/json":
        problems.append("§1: requests carry Accept: application/json")
    if request.raw_body.strip() and request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
        problems.append("§1: requests carry Content-Type: application/json")
    if not request.headers.get("authorization", "").startswith("Basic "):
        problems.append("§5: calls are authenticated with the API key and secret as a user name and password")
    return problems


def check_body(rule: BodyRule, body: Any) -> list[str]:
    """The rules of one body, plus §1's rules (PascalCase names, timestamps without offset) at every depth."""
    if not isinstance(body, dict):
        return [f"{rule.section}: the body must be a JSON object"]
    problems = [f"§1: {p}" for p in _general(body, "")]
    for name, spec in rule.fields.items():
        present = name in body
        value = body.get(name)
        if spec.required and (not present or (value is None and not spec.nullable)):
            problems.append(f"{rule.section}: {name} is required")
        elif present and value is not None:
            problems += [f"{rule.section}: {name} {p}" for p in _kind_problems(spec, value)]
        elif present and not spec.nullable:
            problems.append(f"{rule.section}: {name} must not be null")
    for name, other, value in rule.required_when:
        if body.get(other) == value and body.get(name) in (None, ""):
            problems.append(f"{rule.section}: {name} is required when {other} is {value}")
    if rule.closed:
        problems += [
            f"{rule.section}: {name} is not a property of this body" for name in body if name not in rule.fields
        ]
    problems += [f"{rule.section}: {name} cannot be changed by this request" for name in rule.frozen if name in body]
    for name, item_rule in rule.nested.items():
        items = body.get(name)
        for index, item in enumerate(items if isinstance(items, list) else []):
            problems += [f"{name}[{index}]: {p}" for p in check_body(item_rule, item) if not p.startswith("§1:")]
    return problems


def _kind_problems(spec: Field, value: Any) -> list[str]:
    kind = spec.kind
    wrong = {
        "integer": isinstance(value, bool) or not isinstance(value, int),
        "number": isinstance(value, bool) or not isinstance(value, (int, float)),
        "string": not isinstance(value, str),
        "boolean": not isinstance(value, bool),
        "object": not isinstance(value, dict),
        "array": not isinstance(value, list),
        "timestamp": not (isinstance(value, str) and TIMESTAMP.match(value)),
        "time": not (isinstance(value, str) and TIME_OF_DAY.match(value)),
        "weekdays": not (isinstance(value, str) and WEEK_DAYS.match(value)),
    }[kind]
    if wrong:
        return [f"must be {'an' if kind[0] in 'aeiou' else 'a'} {kind}, got {value!r}"]
    if spec.choices and value not in spec.choices:
        return [f"must be one of {', '.join(map(str, spec.choices))}, got {value!r}"]
    return []


def _general(value: Any, where: str) -> list[str]:
    """§1 at every depth: property names PascalCase, date-time strings without a zone offset."""
    problems = []
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            if not PASCAL.match(str(key)):
                problems.append(f"property name {path!r} is not PascalCase")
            problems += _general(item, path)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problems += _general(item, f"{where}[{index}]")
    elif isinstance(value, str) and LOOKS_LIKE_TIMESTAMP.match(value) and not TIMESTAMP.match(value):
        problems.append(f"{where} {value!r} is not a date-time without a zone offset")
    return problems
