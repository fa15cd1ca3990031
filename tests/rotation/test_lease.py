"""
The leases that keep a second rotation of a target out (``rotation/lease.py``): in memory, a lock file, and
connections in Airflow's metadata database written through a real API server on loopback.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from messaging_platform_provider.rotation.airflow_api import AirflowRestApi
from messaging_platform_provider.rotation.lease import (
    AirflowConnectionLease,
    FileLease,
    InMemoryLease,
    LeaseHeld,
)


class Clock:
    """Seconds that move only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_in_memory_lease_renews_for_its_owner_refuses_others_and_expires():
    clock = Clock()
    lease = InMemoryLease(clock=clock)
    lease.acquire("a", 60)
    clock.now += 50
    lease.acquire("a", 60)  # renewed: now held until 1110
    clock.now += 50
    with pytest.raises(LeaseHeld, match=r"another rotation holds the lease \(owner a\) until 10 s from now"):
        lease.acquire("b", 60)
    lease.release("b")  # not the holder: nothing happens
    with pytest.raises(LeaseHeld):
        lease.acquire("b", 60)
    clock.now += 10  # expired: taken over
    lease.acquire("b", 60)
    with pytest.raises(LeaseHeld, match=r"owner b"):
        lease.acquire("a", 60)
    lease.release("b")
    lease.acquire("a", 60)


HOLD_IN_CHILD = """
import os, sys
from messaging_platform_provider.rotation.lease import FileLease
FileLease(sys.argv[1]).acquire("af:child", 60)
print("held", flush=True)
sys.stdin.read()
os._exit(0)  # dies without releasing: the kernel does
"""


def test_file_lease_is_exclusive_across_processes_and_freed_when_its_holder_dies(tmp_path):
    path = tmp_path / "credential.json.lock"
    first, second = FileLease(path), FileLease(path)
    first.acquire("a", 60)
    second.acquire("a", 60)  # the same owner, another object (a retry in this process): its own lease back
    with pytest.raises(LeaseHeld, match=r"owner a"):
        second.acquire("b", 60)
    second.release("a")
    first.acquire("b", 60)
    first.release("b")

    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_IN_CHILD, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None and child.stdin is not None
    try:
        assert child.stdout.readline().strip() == "held"
        with pytest.raises(LeaseHeld, match=r"owner af:child"):
            FileLease(path).acquire("a", 60)
    finally:
        child.stdin.close()
        try:
            code = child.wait(timeout=30)
        finally:
            if child.poll() is None:  # it never said "held", or hangs: not left behind
                child.kill()
                child.wait()
    assert code == 0
    FileLease(path).acquire("a", 60)
    FileLease(path).release("a")


# -- in Airflow's metadata database, through the REST API -------------------------------------------------------


def later(hours: float) -> Callable[[], datetime]:
    """A clock ``hours`` ahead of this machine's: the lease of a rotation that stopped that long ago has expired."""
    return lambda: datetime.now(timezone.utc) + timedelta(hours=hours)


def generations(api: AirflowRestApi, conn_id: str) -> dict[int, dict[str, Any]]:
    """The lease connections as the API lists them: number -> extra."""
    lease = AirflowConnectionLease(api, conn_id)
    page = api.get("/api/v2/connections", params={"connection_id_pattern": lease.prefix, "limit": 100})
    return {
        int(c["connection_id"].removeprefix(lease.prefix)): json.loads(c["extra"])
        for c in page["connections"]
        if c["connection_id"].startswith(lease.prefix)
    }


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_connection_lease_renews_refuses_others_is_released_and_expires(airflow_api, unique_conn_id):
    api, probe = airflow_api.api(), unique_conn_id
    a, b = AirflowConnectionLease(api, probe), AirflowConnectionLease(api, probe)
    a.acquire("af:a", 600)
    a.acquire("af:a", 600)  # a renewal is the next generation
    with pytest.raises(LeaseHeld, match=r"another rotation holds the lease \(owner af:a\) until 20"):
        b.acquire("af:b", 600)
    a.acquire("af:a", 600)
    held = generations(api, probe)
    assert sorted(held) == [2, 3]  # generation 1 collected
    assert held[3]["owner"] == "af:a" and held[3]["released"] is False
    assert datetime.fromisoformat(held[3]["expires_at"]) > datetime.now(timezone.utc) + timedelta(seconds=500)
    shown = api.get_connection(f"{probe}.rotation-lease.3")
    assert shown["conn_type"] == "generic" and f"Lease of the API key rotation of {probe}" in shown["description"]

    b.release("af:b")  # not the holder: nothing changes
    a.release("af:a")
    assert generations(api, probe)[3]["released"] is True
    b.acquire("af:b", 600)
    assert sorted(generations(api, probe)) == [3, 4]

    # b stops without releasing (a crash); its lease expires, and a rotation after that takes it over
    with pytest.raises(LeaseHeld, match=r"owner af:b"):
        a.acquire("af:a", 600)
    AirflowConnectionLease(api, probe, now=later(1)).acquire("af:c", 600)
    with pytest.raises(LeaseHeld, match=r"owner af:c"):
        b.acquire("af:b", 600)  # b, back late, finds its lease taken: it must not write


class OtherRotationFirst(AirflowRestApi):
    """The REST API, with another rotation acting between this one's listing and its first create."""

    def __init__(self, url: str, other: Callable[[], None]) -> None:
        super().__init__(url)
        self.other: Callable[[], None] | None = other

    def create_connection(self, connection: Any) -> dict[str, Any]:
        other, self.other = self.other, None
        if other is not None:
            other()
        return super().create_connection(connection)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_connection_lease_losers_of_a_race_give_up(airflow_api, unique_conn_id):
    race, stale = f"{unique_conn_id}_race", f"{unique_conn_id}_stale"
    # Both see generation 0 and create generation 1: the second create answers 409, the loser reads and gives up.
    winner = AirflowConnectionLease(airflow_api.api(), race)
    racing = OtherRotationFirst(airflow_api.url, lambda: winner.acquire("af:winner", 600))
    with pytest.raises(LeaseHeld, match=r"owner af:winner"):
        AirflowConnectionLease(racing, race).acquire("af:loser", 600)
    assert {n: g["owner"] for n, g in generations(airflow_api.api(), race).items()} == {1: "af:winner"}

    # A stale view: meanwhile the winner renewed twice and generation 1 was collected, so the loser's create of
    # generation 1 succeeds; listing again it sees a higher generation, and gives its own up.
    holder = AirflowConnectionLease(airflow_api.api(), stale)

    def renew_three_times() -> None:
        for _ in range(3):
            holder.acquire("af:winner", 600)

    loser = AirflowConnectionLease(OtherRotationFirst(airflow_api.url, renew_three_times), stale)
    with pytest.raises(LeaseHeld, match=r"owner af:winner"):
        loser.acquire("af:loser", 600)
    held = generations(airflow_api.api(), stale)
    assert {n: (g["owner"], g["released"]) for n, g in held.items()} == {
        1: ("af:loser", True),
        2: ("af:winner", False),
        3: ("af:winner", False),
    }
    with pytest.raises(LeaseHeld, match=r"owner af:winner"):
        loser.acquire("af:loser", 600)
    holder.acquire("af:winner", 600)  # still the winner's
    assert sorted(generations(airflow_api.api(), stale)) == [3, 4]
