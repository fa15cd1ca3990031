"""
Creates that never duplicate when Airflow retries a task.

A create is sent with a ``CreateOnce``: a run-scoped token (same for every try of one task instance) and the
task's state store (Airflow's own from 3.3, an Airflow Variable before: ``tasks/state.py``, which builds a
``CreateOnce`` for a running task with ``once_for_task``). Before sending, the create looks for what an earlier try
made:

1. the id an earlier try stored in the task state store after it succeeded (re-read; still there → done);
2. otherwise a resource carrying the run-scoped marker in the operation's ``marker_field``, or, for
   resources without a free-text field, one whose ``match_fields`` equal the request's (for voice calls only
   among resources newer than the watermark an earlier try stored before sending). When an earlier try stored
   a digest of the match fields it sent, a candidate is compared with that digest rather than with this try's
   request: a value computed at run time ("once, now") differs between tries, the resource made does not.

Only when nothing is found is the POST sent. Per operation, the ``Dedupe`` declaration in ``operations.py``
says which rule applies.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from messaging_platform_provider.client.errors import MessagingPlatformApiError
from messaging_platform_provider.client.operations import Dedupe, Operation
from messaging_platform_provider.client.values import comparable

MARKER_PREFIX = "af:"
#: Why a create adopted what it found, as its INFO line says it
MADE_BY_AN_EARLIER_TRY = "made by an earlier try of this task"
SENT_BY_AN_EARLIER_TRY = "it has the fields an earlier try of this task sent and is newer than that try's create"
SAME_FIELDS = "it has the fields of this task's create (made by an earlier try of this task, or by someone else)"

log = logging.getLogger(__name__)


class StateStore(Protocol):
    """The part of Airflow's ``task_state_store`` this module uses."""

    def get(self, key: str, default: Any = None) -> Any: ...

    def set(self, key: str, value: Any) -> None: ...


class MemoryStateStore:
    """A ``StateStore`` in memory, for work that has no task state store: its state lives as long as the object."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {}

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default)

    def set(self, key: str, value: Any) -> None:
        self.data[key] = value


@dataclass(frozen=True)
class CreateOnce:
    """A run-scoped token and, where Airflow has one, the task state store that survives retries."""

    token: str
    store: StateStore | None = None

    @classmethod
    def for_task(cls, dag_id: str, task_id: str, run_id: str, map_index: int = -1, store: Any = None) -> CreateOnce:
        digest = hashlib.sha256(f"{dag_id}\x1f{task_id}\x1f{run_id}\x1f{map_index}".encode()).hexdigest()
        return cls(token=digest[:16], store=store)

    @property
    def marker(self) -> str:
        return f"[{MARKER_PREFIX}{self.token}]"

    def state_key(self, operation: Operation) -> str:
        """Where the store keeps what this task's tries did about the create ``operation``."""
        return f"messaging_platform:{operation.name}:{self.token}"

    def recorded_id(self, operation: Operation) -> Any:
        """
        The id of the resource a try of this task created with ``operation``, as the store recorded it when the
        create answered; ``None`` when none did (or no store). A resource adopted by matching its fields is not
        recorded: it may have been made by someone else.
        """
        state = self.store.get(self.state_key(operation)) if self.store is not None else None
        return (state or {}).get("id")


def with_marker(body: Mapping[str, Any], field: str, once: CreateOnce) -> dict[str, Any]:
    """The body with the run marker appended to ``field`` (kept as is if the value already carries it)."""
    marked = dict(body)
    value = str(marked.get(field) or "")
    if once.marker not in value:
        marked[field] = f"{value} {once.marker}".strip()
    return marked


def match_digest(values: Mapping[str, Any], dedupe: Dedupe) -> str:
    """
    A digest of the match fields' comparable values: what a create keeps of its request for the next try, so
    the store never holds the values themselves (a callback URL, a voice call's targets).
    """
    canonical = json.dumps([comparable(f, values.get(f)) for f in dedupe.match_fields], default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:32]


def matches(
    item: Mapping[str, Any], body: Mapping[str, Any], dedupe: Dedupe, once: CreateOnce, sent: str | None = None
) -> bool:
    """
    Marker in the marker field; or the match fields' digest equal to ``sent``, what an earlier try sent; or,
    without it, every match field equal to the request's (exactly, but for day lists' formatting).
    """
    if dedupe.marker_field:
        return once.marker in str(item.get(dedupe.marker_field) or "")
    if sent is not None:
        return match_digest(item, dedupe) == sent
    return all(comparable(f, item.get(f)) == comparable(f, body.get(f)) for f in dedupe.match_fields)


def _create_one_per_parent(
    call: Callable[..., Any],
    operation: Operation,
    dedupe: Dedupe,
    body: Mapping[str, Any],
    once: CreateOnce,
    key: str,
    state: Mapping[str, Any],
    account_id: int | None,
    path_params: Mapping[str, Any],
) -> dict[str, Any]:
    """
    A create of the one resource a parent may hold: an existing one is adopted only when the state store shows
    that an earlier try sent the create and that none existed before it. Without a store the create is sent as
    is, and a retry after a lost answer gets the platform's refusal instead of a duplicate.
    """

    def existing() -> dict[str, Any] | None:
        try:
            found: dict[str, Any] | None = call(dedupe.lookup, account_id=account_id, **path_params)
            return found
        except MessagingPlatformApiError as exc:
            if exc.is_not_found:
                return None
            raise

    if state.get("sent") and not state.get("existed"):
        if (found := existing()) is not None:
            return _made(operation, found, path_params, adopted=MADE_BY_AN_EARLIER_TRY)
    elif not state and once.store is not None:
        once.store.set(key, {"sent": True, "existed": existing() is not None})
    created: dict[str, Any] = call(operation, account_id=account_id, body=dict(body), **path_params)
    return _made(operation, created, path_params, adopted=None)


def why_adopted(dedupe: Dedupe, sent: str | None) -> str:
    """What a listed resource that ``matches`` the create says of who made it."""
    if dedupe.marker_field:
        return MADE_BY_AN_EARLIER_TRY  # it carries this task's run marker
    if sent is not None and dedupe.after_watermark:
        return SENT_BY_AN_EARLIER_TRY
    return SAME_FIELDS


def _made(
    operation: Operation, resource: dict[str, Any], path_params: Mapping[str, Any], *, adopted: str | None
) -> dict[str, Any]:
    """The one INFO line of a create: what it made, or what it adopted and why (``adopted``)."""
    made = f"Id {resource['Id']}" if isinstance(resource, Mapping) and "Id" in resource else "it"
    if adopted is not None:
        log.info("%s: adopted %s, %s.", operation.called_with(path_params), made, adopted)
    else:
        log.info("%s: created %s.", operation.called_with(path_params), made)
    return resource


def _numeric_id(item: Any) -> int | None:
    """A listed item's ``Id`` as a number; ``None`` when it has none a retry could compare (missing, null, text)."""
    text = str(item.get("Id")) if isinstance(item, Mapping) else ""
    return int(text) if text.isdigit() else None


def _max_id(items: list[Any]) -> int:
    return max((found for item in items if (found := _numeric_id(item)) is not None), default=0)


def create_once(
    call: Callable[..., Any],
    operation: Operation,
    body: Mapping[str, Any],
    once: CreateOnce | None,
    *,
    account_id: int | None,
    path_params: Mapping[str, Any],
) -> dict[str, Any]:
    """Send the create ``operation`` unless an earlier try of the same task already made the resource."""
    dedupe = operation.dedupe
    if once is None or dedupe is None:
        created: dict[str, Any] = call(operation, account_id=account_id, body=dict(body), **path_params)
        return _made(operation, created, path_params, adopted=None)
    if dedupe.marker_field:
        body = with_marker(body, dedupe.marker_field, once)
    key = once.state_key(operation)
    state = (once.store.get(key) if once.store else None) or {}
    if dedupe.one_per_parent:
        return _create_one_per_parent(call, operation, dedupe, body, once, key, state, account_id, path_params)

    def read(resource_id: Any) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = call(
                dedupe.get, account_id=account_id, **path_params, **{dedupe.id_param: resource_id}
            )
            return found
        except MessagingPlatformApiError as exc:
            if exc.is_not_found:
                return None
            raise

    if state.get("id") is not None and (found := read(state["id"])) is not None:
        return _made(operation, found, path_params, adopted=MADE_BY_AN_EARLIER_TRY)
    watermark, sent = state.get("watermark"), state.get("sent")
    can_search = not dedupe.after_watermark or watermark is not None
    items: list[Any] = call(dedupe.lookup, account_id=account_id, **path_params)
    if can_search:
        for item in items:
            listed_id = _numeric_id(item)
            newer = watermark is None or (listed_id is not None and listed_id > int(watermark))
            if newer and matches(item, body, dedupe, once, sent):
                return _made(operation, read(item["Id"]) or dict(item), path_params, adopted=why_adopted(dedupe, sent))
    kept: dict[str, Any] = {"watermark": watermark if watermark is not None else _max_id(items)}
    if dedupe.match_fields:
        kept["sent"] = match_digest(body, dedupe)
    if once.store is not None and state != kept:  # before the POST: a lost answer leaves this for the next try
        once.store.set(key, kept)
    result: dict[str, Any] = call(operation, account_id=account_id, body=dict(body), **path_params)
    if once.store is not None and result and result.get("Id") is not None:
        once.store.set(key, {"id": result["Id"], **kept})
    return _made(operation, result, path_params, adopted=None)
