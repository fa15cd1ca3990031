"""
How the lease of an Airflow connection (``rotation/lease.py``) reads its generations back from the list of
connections: only the exact prefix (the API filters by substring, case-insensitively), page after page, and extras it
cannot read (a generation edited by hand, or by an older version), which leave that generation free. No server: the
list comes from ``Listing``, which pages and filters as Airflow's API does.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from typing import Any

from messaging_platform_provider.rotation.airflow_api import AirflowRestApi
from messaging_platform_provider.rotation.lease import AirflowConnectionLease, Generation
from tests.rotation.test_connection_lease import T0, UNTIL, held

PREFIX = "rotated.rotation-lease."


class Listing(AirflowRestApi):
    """Airflow's list of connections over ``items`` (no server): a case-insensitive substring filter, and pages."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        super().__init__("http://listing.invalid")
        self.items = items
        self.asked: list[tuple[str, Any]] = []

    def get(self, path: str, params: Any = None) -> Any:
        self.asked.append((path, params))
        if len(self.asked) > 10:
            raise RuntimeError("the lease lists without end")
        pattern = params["connection_id_pattern"].lower()
        matching = [item for item in self.items if pattern in str(item.get("connection_id", "")).lower()]
        offset, limit = params["offset"], params["limit"]
        return {"connections": matching[offset : offset + limit], "total_entries": len(matching)}


def lease_over(items: list[dict[str, Any]]) -> tuple[AirflowConnectionLease, Listing]:
    listing = Listing(items)
    return AirflowConnectionLease(listing, "rotated"), listing


def page(offset: int) -> tuple[str, dict[str, Any]]:
    return "/api/v2/connections", {"connection_id_pattern": PREFIX, "limit": 100, "offset": offset}


def test_generations_are_read_page_after_page() -> None:
    items = [{"connection_id": f"{PREFIX}{n}", "extra": json.dumps(held(f"af:{n}"))} for n in range(1, 151)]
    items[40:40] = [{"connection_id": f"x{PREFIX}999"}, {"connection_id": f"{PREFIX.upper()}998"}]  # not ours
    lease, listing = lease_over(items)
    found = lease.generations()
    assert sorted(found) == list(range(1, 151))
    assert found[150] == Generation(150, "af:150", T0 + timedelta(seconds=600), False)
    assert listing.asked == [page(0), page(100)]

    lease, listing = lease_over(items[:100])  # exactly one page
    assert len(lease.generations()) == 98 and listing.asked == [page(0)]
    lease, listing = lease_over([])
    assert lease.generations() == {} and listing.asked == [page(0)]


def test_a_generation_whose_extra_cannot_be_read_is_free() -> None:
    extras: list[Any] = [
        None,
        "not json",
        "[1, 2]",
        json.dumps({"owner": "af:a", "expires_at": "2030-01-01T12:10:00", "released": True}),  # naive: UTC
        json.dumps({"owner": "af:b", "expires_at": "2030-01-01T14:10:00+02:00", "released": "true"}),
        json.dumps({"owner": 42, "expires_at": "next tuesday"}),
        json.dumps({"owner": None, "expires_at": None, "released": False}),
        json.dumps({"released": True}),
    ]
    items = [{"connection_id": f"{PREFIX}{n}", "extra": extra} for n, extra in enumerate(extras, start=1)]
    items += [{"connection_id": f"{PREFIX}9a"}, {"connection_id": PREFIX}, {"connection_id": "other"}]
    found = AirflowConnectionLease(Listing(items), "rotated").generations()
    until = datetime(2030, 1, 1, 12, 10, tzinfo=timezone.utc)
    assert found == {
        1: Generation(1, "", None, False),
        2: Generation(2, "", None, False),
        3: Generation(3, "", None, False),
        4: Generation(4, "af:a", until, True),
        5: Generation(5, "af:b", until, False),
        6: Generation(6, "42", None, False),
        7: Generation(7, "", None, False),
        8: Generation(8, "", None, True),
    }
    assert found[5].until == "2030-01-01T14:10:00+02:00" and found[4].until == UNTIL
    assert [n for n, g in found.items() if g.free(T0)] == [1, 2, 3, 4, 6, 7, 8]
    assert found[1].until == "(unreadable)"


def test_a_generation_is_free_once_released_or_expired() -> None:
    until = T0 + timedelta(seconds=600)
    lease = Generation(3, "af:a", until, False)
    assert (lease.free(until - timedelta(seconds=1)), lease.free(until), lease.free(until + timedelta(days=1))) == (
        False,
        True,
        True,
    )
    assert Generation(3, "af:a", until, True).free(T0)
    assert Generation(3, "af:a", None, False).free(T0)
