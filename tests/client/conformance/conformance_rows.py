"""
The rows of the conformance table in ``docs/conformance.md``: for one operation and one field, the platform's
rule, what the provider sends, and the call and check (``tests/client/conformance/test_conformance.py``,
``test_row[<id>]``) that show it. ``python -m tests.client.conformance.conformance_table`` rewrites the docs table.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.client.conformance.conformance_calls import World, representative_call
from tests.client.conformance.spec_rules import TIMESTAMP, WEEK_DAYS, Request

MISSING = object()


@dataclass(frozen=True)
class Row:
    id: str
    operation: str
    field: str
    rule: str  # the platform's rule, in words a reader of the docs can check
    we_send: str
    expect: Callable[[Request], bool]
    call: Callable[[World], Any] | None = None  # default: the operation's call in ``CALLS``

    def run(self, world: World) -> Any:
        return (self.call or representative_call(self.operation))(world)


def body(name: str, test: Callable[[Any], bool]) -> Callable[[Request], bool]:
    """A check of one body field's value (``MISSING`` when the body lacks it)."""
    return lambda r: isinstance(r.body, dict) and test(r.body.get(name, MISSING))


def equals(name: str, value: Any) -> Callable[[Request], bool]:
    return body(name, lambda v: v == value and type(v) is type(value))


def absent(name: str) -> Callable[[Request], bool]:
    return body(name, lambda v: v is MISSING)


def timestamp(name: str, value: str) -> Callable[[Request], bool]:
    return body(name, lambda v: v == value and bool(TIMESTAMP.match(v)))


def query(expected: str) -> Callable[[Request], bool]:
    return lambda r: r.query == expected


def _coupon(kind: str, **fields: Any) -> Callable[[World], Any]:
    return lambda w: w.hook.update_coupon_definition(w.coupon_campaign(), kind, **fields)


def _dynamic(w: World) -> Any:
    return w.hook.update_coupon_definition(w.coupon_campaign(), "Dynamic")


def _rolling(w: World) -> Any:
    return w.hook.update_coupon_definition(
        w.coupon_campaign(),
        "Static",
        static_code="SPRING10",
        valid_from="2026-12-01T00:00:00+01:00",
        valid_to="2026-12-31",
        valid_date_type="Rolling",
        valid_rolling_days=7,
        valid_rolling_offset=1,
    )


def _daily(w: World) -> Any:
    return w.hook.create_schedule(w.action_id, 6, "07:00:00", "2026-12-01T07:00:00")


def _attach(w: World) -> Any:
    return w.hook.attach_keyword_campaign(w.channel_id, w.keyword_id, str(w.coupon_campaign()))


def _basic_auth(r: Request) -> bool:
    user, _, password = base64.b64decode(r.headers["authorization"].removeprefix("Basic ")).decode().partition(":")
    return bool(user) and bool(password)


ROWS: tuple[Row, ...] = (
    # every request
    Row("headers", "create_campaign", "Accept, Content-Type", "both `application/json`",
        "both, on every request", lambda r: r.headers["accept"] == r.headers["content-type"] == "application/json"),
    Row("auth", "list_campaigns", "Authorization", "HTTP Basic: the API key as user name, its secret as password",
        "HTTP Basic with the connection's login and password", _basic_auth),
    Row("path-ints", "get_campaign", "campaignId", "`accountId`, `actionId`, `campaignId` are integers",
        "decimal digits; anything else is refused before sending", lambda r: r.path.split("/")[-1].isdigit()),
    # schedules
    Row("schedule-type", "create_schedule", "ScheduleTypeId", "integer, required",
        "the type's number: OneTime 2, Daily 6, Weekly 7, Monthly 8 (named or numeric input)",
        equals("ScheduleTypeId", 7)),
    Row("schedule-run-at", "create_schedule", "RunAt", "string `HH:mm:ss`, required",
        "`HH:mm:ss` from a `time` or a string of that shape", equals("RunAt", "09:30:00")),
    Row("schedule-start", "create_schedule", "StartFrom", "date-time, required; no zone offset",
        "always; converted to the platform time zone and sent without offset",
        timestamp("StartFrom", "2026-12-01T06:00:00")),
    Row("schedule-start-daily", "create_schedule", "StartFrom", "required for every schedule type",
        "also for Daily, given as a number", timestamp("StartFrom", "2026-12-01T07:00:00"), _daily),
    Row("schedule-end", "create_schedule", "EndAfter", "date-time, optional, may be null",
        "only when given; a date alone is midnight", timestamp("EndAfter", "2027-03-01T00:00:00")),
    Row("schedule-week-day", "create_schedule", "WeekDay",
        "required when Weekly; upper-case days, comma-separated: `SUN, MON, TUE`",
        "upper-case three-letter days joined by `, `, from names in any case",
        body("WeekDay", lambda v: v == "MON, FRI" and bool(WEEK_DAYS.match(v)))),
    Row("schedule-month-day", "update_schedule", "MonthDay", "required when Monthly",
        "the given days, comma-separated", equals("MonthDay", "1,15")),
    Row("schedule-update-start", "update_schedule", "StartFrom",
        "the PUT body is not published; the vendor's client libraries send the create's schedule request, "
        "`StartFrom` required",
        "the whole schedule request, StartFrom included", timestamp("StartFrom", "2026-12-01T08:00:00")),
    Row("schedule-no-week-day", "update_schedule", "WeekDay", "optional unless Weekly",
        "left out when not given", absent("WeekDay")),
    # campaigns
    Row("campaign-name", "create_campaign", "Name", "string, required", "always; empty is refused",
        equals("Name", "Spring")),
    Row("campaign-type", "create_campaign", "CampaignTypeId", "number, required",
        "the type's number (Basic 1, Coupon 4, ...)", equals("CampaignTypeId", 1)),
    Row("campaign-user-data", "create_campaign", "UserData", "string, optional",
        "as given, plus a retry marker `[af:…]` when the create is retry-safe", equals("UserData", "batch 7")),
    Row("campaign-booleans", "create_campaign", "SingleUse, IsDefault", "boolean, optional",
        "JSON booleans, only when given",
        lambda r: r.body["SingleUse"] is False and r.body["IsDefault"] is False and "Links" not in r.body),
    Row("campaign-update", "update_campaign", "(body)",
        "the PUT body is not published; it takes the fields of the campaign create",
        "only the fields given", lambda r: r.body == {"Name": "Spring (renamed)"}),
    # coupon definition
    Row("coupon-type", "update_coupon_definition", "CouponTypeId", "number, required",
        "Static 0, Dynamic 1, External 2", equals("CouponTypeId", 2)),
    Row("coupon-static-code-external", "update_coupon_definition", "StaticCode",
        "string, required, whatever the coupon type",
        '`""` for an External coupon', equals("StaticCode", "")),
    Row("coupon-static-code-dynamic", "update_coupon_definition", "StaticCode",
        "string, required, whatever the coupon type",
        '`""` for a Dynamic coupon', equals("StaticCode", ""), _dynamic),
    Row("coupon-static-code-static", "update_coupon_definition", "StaticCode",
        "string, required, whatever the coupon type",
        "the code for a Static coupon (an empty one is refused)", equals("StaticCode", "SPRING10"), _rolling),
    Row("coupon-valid-from", "update_coupon_definition", "ValidFrom, ValidTo", "dates; date-times carry no zone offset",
        "date-times in the platform time zone, without offset",
        lambda r: timestamp("ValidFrom", "2026-11-30T23:00:00")(r) and timestamp("ValidTo", "2026-12-31T00:00:00")(r),
        _rolling),
    Row("coupon-rolling", "update_coupon_definition", "ValidRollingOffSet",
        "integer, spelled with a capital S: `OffSet`",
        "`ValidRollingOffSet`, as the platform spells it", lambda r: r.body["ValidRollingOffSet"] == 1 and
        r.body["ValidRollingDays"] == 7 and r.body["ValidDateTypeId"] == 2, _rolling),
    Row("coupon-list-id", "update_coupon_definition", "ExternalListId", "integer, optional",
        "an integer (a template's string is converted)", body("ExternalListId", lambda v: type(v) is int)),
    Row("coupon-create-static-code", "create_coupon_definition", "StaticCode",
        "string, required, on the create (POST) too",
        '`""` for a Dynamic coupon', equals("StaticCode", "")),
    Row("coupon-create-labels", "create_coupon_definition", "Name, Description",
        "optional labels the vendor's client libraries send, beyond a coupon definition's published fields",
        "only when given (empty strings included)",
        lambda r: r.body["Name"] == "Spring" and r.body["Description"] == ""),
    # callbacks and keywords
    Row("callback-type", "create_callback", "CallbackType",
        "integer, required: 1, 3, 6, 8 or 11 (the [callback types](platform.md#enumerations))",
        "the type's number from its name", equals("CallbackType", 1)),
    Row("callback-url", "create_callback", "URL", "string, required, spelled `URL`",
        "an absolute http(s) URL under the name `URL`", equals("URL", "https://hooks.example.com/keyword")),
    Row("callback-active", "create_callback", "Active", "boolean, required",
        "always; `true` unless told otherwise", equals("Active", True)),
    Row("keyword-attach", "attach_keyword_campaign", "(body)",
        "the body carries the campaign's id; its encoding is not published (the vendor's client libraries send a "
        "bare number)",
        "a bare JSON integer, also from a template's string", lambda r: type(r.body) is int, _attach),
    # API keys
    Row("api-key-label", "create_api_key", "Label",
        "bodies not published; the vendor's client libraries send a label, which is required",
        "always; empty is refused", equals("Label", "Nightly")),
    Row("api-key-type", "create_api_key", "TypeId",
        "bodies not published; Common 2, Temporary 3 (the [API key types](platform.md#enumerations))",
        "the type's number from its name", equals("TypeId", 3)),
    Row("api-key-valid-to", "create_api_key", "ValidTo", "date-time without zone offset",
        "for Temporary keys only, no offset",
        timestamp("ValidTo", "2027-01-01T00:00:00")),
    Row("api-key-secret", "change_api_key_secret", "(body)", "the platform makes the new secret; the client sends none",
        "no body", lambda r: not r.raw_body),
    # external coupon lists, filter groups, push voice calls
    Row("coupon-list-codes", "create_external_coupon_list", "CouponCodes",
        "bodies not published; the vendor's client libraries send a list of codes",
        "a JSON array of strings", equals("CouponCodes", ["A1", "B2"])),
    Row("filter-group-operator", "update_filter_group", "Operator", "bodies not published; `AND` or `OR`",
        "upper case", lambda r: r.body == {"Operator": "OR"}),
    Row("filter-group-frozen", "update_filter_group", "Groups, Filters", "the PUT cannot change subgroups or filters",
        "never sent", lambda r: "Groups" not in r.body and "Filters" not in r.body),
    Row("voice-call-schedules", "create_push_voice_call", "Schedules",
        "each inline schedule follows the schedule rules above",
        "each schedule as a schedule request", lambda r: r.body["Schedules"] == [
            {"ScheduleTypeId": 2, "RunAt": "09:00:00", "StartFrom": "2026-12-01T09:00:00"}]),
    # contacts
    Row("contact-phone", "create_contact", "PhoneNumber, Email",
        "at least one of the two; the phone number in E.164 form (`+15125550100`)",
        "each only when given; a number, or text not in E.164 form, is refused before sending",
        lambda r: r.body["PhoneNumber"] == "+15125550177" and r.body["Email"] == "ann@example.com"),
    Row("contact-assigned-id", "create_contact", "AssignedId", "integer, optional",
        "an integer (a template's string is converted)", equals("AssignedId", 42)),
    Row("contact-update", "update_contact", "(body)",
        "the vendor's client libraries PUT the contact; which fields the platform requires there is not published",
        "only the fields given", lambda r: r.body == {"LastName": "Lee"}),
    # queries
    Row("campaign-only-mine", "list_campaigns", "onlyMine, $filter", "`onlyMine`, `true` or `false`; OData `$filter`",
        "`true`/`false`; the filter as written", query("onlyMine=true&%24filter=CampaignTypeId+eq+4")),
    Row("contact-paging", "list_contacts", "$top, $skip, $filter",
        "not published; the OData options `$top`, `$skip`, `$filter`",
        "whole numbers; the filter as written", query("%24top=5&%24skip=2&%24filter=StatusId+eq+0")),
)  # fmt: skip
