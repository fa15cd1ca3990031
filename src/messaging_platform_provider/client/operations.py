"""
One declaration per API operation: method, path, what the body and the answer are.

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

    @property
    def idempotent(self) -> bool:
        """Whether a blind resend cannot change the outcome (HTTP semantics of the method)."""
        return self.method != "POST"

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(f for _, f, _, _ in string.Formatter().parse(self.path) if f)


def _ints(*names: str) -> frozenset[str]:
    return frozenset({"account_id", *names})


_CAMPAIGN = "/account/{account_id}/campaign"
_SCHEDULE = "/account/{account_id}/action/{action_id}/schedule"

_DECLARED = (
    # Campaigns (spec 4.4)
    Operation("list_campaigns", "campaign", "GET", _CAMPAIGN, "List campaigns.", "list", query=("onlyMine",)),
    Operation(
        "get_campaign",
        "campaign",
        "GET",
        _CAMPAIGN + "/{campaign_id}",
        "Get one campaign.",
        int_params=_ints("campaign_id"),
    ),
    Operation("create_campaign", "campaign", "POST", _CAMPAIGN, "Create a campaign.", body="object"),
    Operation(
        "update_campaign",
        "campaign",
        "PUT",
        _CAMPAIGN + "/{campaign_id}",
        "Update a campaign.",
        body="object",
        int_params=_ints("campaign_id"),
    ),
    Operation(
        "delete_campaign",
        "campaign",
        "DELETE",
        _CAMPAIGN + "/{campaign_id}",
        "Delete a campaign.",
        "none",
        int_params=_ints("campaign_id"),
    ),
    # Action schedules (spec 4.2)
    Operation(
        "list_schedules",
        "action schedule",
        "GET",
        _SCHEDULE,
        "List the schedules of an action.",
        "list",
        int_params=_ints("action_id"),
    ),
    Operation(
        "get_schedule",
        "action schedule",
        "GET",
        _SCHEDULE + "/{schedule_id}",
        "Get one schedule.",
        int_params=_ints("action_id"),
    ),
    Operation(
        "create_schedule",
        "action schedule",
        "POST",
        _SCHEDULE,
        "Create a schedule on an action.",
        body="object",
        int_params=_ints("action_id"),
    ),
    Operation(
        "update_schedule",
        "action schedule",
        "PUT",
        _SCHEDULE + "/{schedule_id}",
        "Update a schedule.",
        body="object",
        int_params=_ints("action_id"),
    ),
    Operation(
        "delete_schedule",
        "action schedule",
        "DELETE",
        _SCHEDULE + "/{schedule_id}",
        "Remove a schedule from its action.",
        "none",
        int_params=_ints("action_id"),
    ),
)

OPERATIONS: dict[str, Operation] = {op.name: op for op in _DECLARED}
