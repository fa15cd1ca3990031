"""Handling each callback once in DAG tasks, even if it reached Airflow twice (see ``CallbackStore.claim``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from messaging_platform_provider.callbacks.store import shared_store


def callbacks_from_asset_events(events: Iterable[Any]) -> list[dict[str, Any]]:
    """The trigger events carried by asset events (``triggering_asset_events[asset]``), oldest first."""
    found = []
    for event in events:
        extra = getattr(event, "extra", None) or (event.get("extra") if isinstance(event, Mapping) else None) or {}
        payload = extra.get("payload") if isinstance(extra, Mapping) else None
        if isinstance(payload, Mapping) and payload.get("transaction_id"):
            found.append(dict(payload))
    return sorted(found, key=lambda e: int(e.get("seq") or 0))


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
