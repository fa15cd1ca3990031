"""Handling each callback once in DAG tasks, even if it reached Airflow twice (see ``CallbackStore.claim``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from messaging_platform_provider.callbacks.store import shared_store

if TYPE_CHECKING:
    from messaging_platform_provider.triggers.callback import MessagingPlatformCallbackTrigger

#: At most this many callbacks stored after a run's own are taken on by that run (the rest have runs of their own).
CATCH_UP_LIMIT = 1000


def callbacks_from_asset_events(events: Iterable[Any]) -> list[dict[str, Any]]:
    """
    The trigger events carried by asset events (``triggering_asset_events[asset]``), oldest first.

    A callback trigger's event always has the store's ``seq`` (a positive integer) and a ``transaction_id``. An
    asset event without them came from elsewhere (a producer task, the UI, the REST API) and is skipped: read as
    seq 0, it would make the run take on every callback in the store.
    """
    found = []
    for event in events:
        extra = getattr(event, "extra", None) or (event.get("extra") if isinstance(event, Mapping) else None) or {}
        payload = extra.get("payload") if isinstance(extra, Mapping) else None
        if isinstance(payload, Mapping) and payload.get("transaction_id") and _is_seq(payload.get("seq")):
            found.append(dict(payload))
    return sorted(found, key=lambda e: e["seq"])


def _is_seq(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def claim_callbacks(
    callbacks: Iterable[Mapping[str, Any]], *, consumer: str, owner: str, database_url: str | None = None
) -> list[dict[str, Any]]:
    """
    The callbacks that ``owner`` (say, a DAG run id) may handle: those no other owner claimed for ``consumer``.
    A retry of the same owner gets its claims back; a second DAG run for a callback delivered twice gets none.
    """
    wanted = [dict(c) for c in callbacks]
    held = shared_store(database_url).claim(consumer, owner, [c["transaction_id"] for c in wanted])
    seen: set[str] = set()
    mine = []
    for callback in wanted:
        tid = callback["transaction_id"]
        if tid in held and tid not in seen:
            seen.add(tid)
            mine.append(callback)
    return mine


def claim_callbacks_for_run(
    events: Iterable[Any], *, watcher: MessagingPlatformCallbackTrigger, owner: str, limit: int = CATCH_UP_LIMIT
) -> list[dict[str, Any]]:
    """
    The callbacks a run started by ``watcher``'s asset events handles, claimed for ``owner`` (the run id): those
    its asset events carry, and every callback matching the watcher's filter stored after the first of them.

    Why more than its own: Airflow queues a DAG for an asset with one row per DAG, so events that arrive while
    the run is being created (a few milliseconds apart) can end up in no run at all until the next event comes.
    The later callbacks are in the store already, so the run takes them on; the run their own events may still
    start finds them claimed. Each callback is handled once, none waits for a later text.
    """
    own = callbacks_from_asset_events(events)
    if not own:
        return []
    store = shared_store(watcher.database_url)
    first = own[0]["seq"]
    later = [row.to_event() for row in store.read_after(first, watcher.filter, limit) if row.is_carriable()]
    return claim_callbacks(
        sorted([*own, *later], key=lambda c: c["seq"]),
        consumer=watcher.consumer,
        owner=owner,
        database_url=watcher.database_url,
    )
