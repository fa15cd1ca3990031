"""
The lease of an Airflow connection (``rotation/lease.py``, ``AirflowConnectionLease``): what each acquisition,
renewal and release writes through a real Airflow API server (the connections ``<conn_id>.rotation-lease.<n>``),
who is refused and until when, and what a rotation that lost a race leaves behind. The lease's clock is fixed, so
that every expiry is written out. The basics and the races of test_lease.py are not repeated here; how the lease
reads the generations back is in test_lease_generations.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
import requests

from messaging_platform_provider.rotation.airflow_api import AirflowApiError, AirflowRestApi
from messaging_platform_provider.rotation.lease import AirflowConnectionLease, Generation, LeaseHeld
from tests.support.airflow_api_harness import AirflowApiServer

T0 = datetime(2030, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
UNTIL = "2030-01-01T12:10:00+00:00"  # T0 + 600 s, as the lease writes it


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


class Clock:
    """The lease's clock: T0 until moved."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


class Recorded(AirflowRestApi):
    """
    The REST client on the real server, noting the lease's writes (``writes``: ``(call, connection id)``).
    ``on[call]`` runs with the connection id before that write (raising: the server failed it), and
    ``on["created"]`` after a create.
    """

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.writes: list[tuple[str, str]] = []
        self.on: dict[str, Callable[[str], None]] = {}
        self.lists = 0

    def _write(self, call: str, conn_id: str) -> None:
        self.writes.append((call, conn_id))
        if call in self.on:
            self.on[call](conn_id)

    def get(self, path: str, params: Any = None) -> Any:
        self.lists += 1
        if self.lists > 40:
            raise RuntimeError("the lease lists without end")
        return super().get(path, params)

    def create_connection(self, connection: Any) -> dict[str, Any]:
        self._write("create", connection["connection_id"])
        created = super().create_connection(connection)
        if "created" in self.on:
            self.on["created"](connection["connection_id"])
        return created

    def update_connection(self, conn_id: str, fields: Any, *, conn_type: str) -> dict[str, Any]:
        self._write("update", conn_id)
        return super().update_connection(conn_id, fields, conn_type=conn_type)

    def delete_connection(self, conn_id: str, *, missing_ok: bool = False) -> bool:
        self._write("delete", conn_id)
        return super().delete_connection(conn_id, missing_ok=missing_ok)


def stored(api: AirflowRestApi, conn_id: str) -> dict[int, dict[str, Any]]:
    """The lease connections the server holds for ``conn_id``: number -> extra (read without the lease's code)."""
    prefix = f"{conn_id}.rotation-lease."
    page = api.get("/api/v2/connections", params={"connection_id_pattern": prefix, "limit": 100})
    numbered = {c["connection_id"].removeprefix(prefix): c for c in page["connections"]}
    return {int(n): json.loads(c["extra"]) for n, c in numbered.items() if n.isdigit()}


def held(owner: str, until: str = UNTIL, released: bool = False) -> dict[str, Any]:
    return {"owner": owner, "expires_at": until, "released": released}


def server_error(method: str) -> Callable[[str], None]:
    """The server failing a write (``Recorded.on``) with a 500."""

    def fail(conn_id: str) -> None:
        raise AirflowApiError(method, f"/api/v2/connections/{conn_id}", 500, "database is locked")

    return fail


def deleted_by(api: AirflowRestApi) -> Callable[[str], None]:
    """The connection deleted (``Recorded.on``): by another rotation's collecting, or by hand."""

    def delete(conn_id: str) -> None:
        api.delete_connection(conn_id)

    return delete


@pytest.fixture(name="conn_id")
def cleaned_conn_id(airflow_api: AirflowApiServer, unique_conn_id: str) -> Iterator[str]:
    """
    ``unique_conn_id``; after the test, every connection named after it is deleted (with plain ``requests``): the
    server is shared, by all the mutants of a mutation run too, and each connection left makes every listing slower.
    """
    yield unique_conn_id
    with requests.Session() as http:
        http.trust_env = False
        token = http.get(f"{airflow_api.url}/auth/token", timeout=30).json()["access_token"]
        http.headers["Authorization"] = f"Bearer {token}"
        listed = http.get(
            f"{airflow_api.url}/api/v2/connections",
            params={"connection_id_pattern": unique_conn_id, "limit": "100"},
            timeout=30,
        ).json()
        for connection in listed["connections"]:
            http.delete(f"{airflow_api.url}/api/v2/connections/{connection['connection_id']}", timeout=30)


def test_a_lease_is_named_after_its_connection_or_refused() -> None:
    api = AirflowRestApi("http://unused.invalid")
    lease = AirflowConnectionLease(api, "messaging_platform_rotated")
    assert (lease.api, lease.conn_id) == (api, "messaging_platform_rotated")
    assert lease.prefix == "messaging_platform_rotated.rotation-lease."
    assert lease.lease_id(12) == "messaging_platform_rotated.rotation-lease.12"
    AirflowConnectionLease(api, "x" * 178)  # its generations' ids fit Airflow's 200 characters up to 999999
    for bad in ("x" * 179, "team rotated", "a/b"):
        with pytest.raises(ValueError) as caught:
            AirflowConnectionLease(api, bad)
        assert str(caught.value) == f"no lease connection can be named after {bad!r} (letters, digits, _ . - only)"


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_each_acquisition_creates_the_next_generation_and_collects_the_old(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    api, clock = Recorded(airflow_api.url), Clock()
    prefix = f"{conn_id}.rotation-lease."
    for decoy in (f"x{prefix}9", f"{prefix}9x"):  # listed (a substring match) but no generations of this lease
        api.create_connection({"connection_id": decoy, "conn_type": "generic", "extra": json.dumps(held("af:d"))})
    api.writes.clear()
    lease = AirflowConnectionLease(api, conn_id, now=clock)
    lease.acquire("af:a", 600)
    assert api.writes == [("create", f"{prefix}1")]
    shown = api.get_connection(f"{prefix}1")
    assert shown["conn_type"] == "generic"
    assert shown["description"] == (
        f"Lease of the API key rotation of {conn_id}: held until {UNTIL}. To free it by hand, delete the {prefix}* "
        "connections."
    )
    assert stored(api, conn_id) == {1: held("af:a")}

    clock.now = at(90)
    lease.acquire("af:a", 600)  # a renewal is the next generation; the one below it stays
    assert stored(api, conn_id)[2] == held("af:a", "2030-01-01T12:11:30+00:00") and 1 in stored(api, conn_id)
    lease.acquire("af:a", 30)
    lease.acquire("af:a", 45)
    assert api.writes[1:] == [
        ("create", f"{prefix}2"),
        ("create", f"{prefix}3"),
        ("delete", f"{prefix}1"),
        ("create", f"{prefix}4"),
        ("delete", f"{prefix}2"),
    ]
    assert lease.generations() == {3: Generation(3, "af:a", at(120), False), 4: Generation(4, "af:a", at(135), False)}


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_another_owner_is_refused_until_the_second_the_lease_expires(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    clock, other = Clock(), Recorded(airflow_api.url)
    AirflowConnectionLease(airflow_api.api(), conn_id, now=clock).acquire("af:a", 600)
    lease = AirflowConnectionLease(other, conn_id, now=clock)
    clock.now = at(599)
    with pytest.raises(LeaseHeld) as caught:
        lease.acquire("af:b", 600)
    assert (caught.value.holder, caught.value.until) == ("af:a", UNTIL)
    assert str(caught.value) == f"another rotation holds the lease (owner af:a) until {UNTIL}"
    assert other.writes == []
    clock.now = at(600)  # expired: taken over
    lease.acquire("af:b", 600)
    assert stored(other, conn_id) == {1: held("af:a"), 2: held("af:b", "2030-01-01T12:20:00+00:00")}


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_without_a_clock_the_lease_uses_utc(airflow_api: AirflowApiServer, conn_id: str) -> None:
    AirflowConnectionLease(airflow_api.api(), conn_id).acquire("af:a", 600)
    assert stored(airflow_api.api(), conn_id)[1]["expires_at"].endswith("+00:00")
    with pytest.raises(LeaseHeld, match="owner af:a"):
        AirflowConnectionLease(airflow_api.api(), conn_id).acquire("af:b", 600)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_release_marks_every_generation_of_its_owner_and_frees_the_lease(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    clock, mine, others = Clock(), Recorded(airflow_api.url), Recorded(airflow_api.url)
    lease, other = (
        AirflowConnectionLease(mine, conn_id, now=clock),
        AirflowConnectionLease(others, conn_id, now=clock),
    )
    lease.acquire("af:a", 600)
    lease.acquire("af:a", 600)
    other.release("af:b")  # not the holder: nothing written
    assert others.writes == [] and stored(mine, conn_id) == {1: held("af:a"), 2: held("af:a")}
    mine.writes.clear()
    lease.release("af:a")
    prefix = lease.prefix
    assert sorted(mine.writes) == [("update", f"{prefix}1"), ("update", f"{prefix}2")]
    assert stored(mine, conn_id) == {1: held("af:a", released=True), 2: held("af:a", released=True)}
    assert mine.get_connection(f"{prefix}2")["description"] == (
        f"Lease of the API key rotation of {conn_id}: released. To free it by hand, delete the {prefix}* connections."
    )
    mine.writes.clear()
    lease.release("af:a")  # released already: nothing to write
    assert mine.writes == []
    other.acquire("af:b", 600)  # not expired, but released
    assert stored(mine, conn_id) == {2: held("af:a", released=True), 3: held("af:b")}


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_release_skips_a_generation_deleted_meanwhile_but_not_a_failed_write(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    api, plain = Recorded(airflow_api.url), airflow_api.api()
    lease = AirflowConnectionLease(api, conn_id, now=Clock())
    lease.acquire("af:a", 600)
    api.on["update"] = deleted_by(plain)  # collected between the listing and the write
    lease.release("af:a")
    assert stored(plain, conn_id) == {}
    del api.on["update"]
    lease.acquire("af:a", 600)
    api.on["update"] = server_error("PATCH")
    with pytest.raises(AirflowApiError, match="HTTP 500: database is locked"):
        lease.release("af:a")


def lose_to_a_stale_view(server: AirflowApiServer, conn_id: str, *, update_fails: bool) -> None:
    """Meanwhile the winner renewed twice, so the loser's create of generation 1 succeeds; it lists and yields."""
    clock, loser_api = Clock(), Recorded(server.url)
    winner = AirflowConnectionLease(server.api(), conn_id, now=clock)

    def renew_three_times(conn_id: str) -> None:
        del loser_api.on["create"]
        for _ in range(3):
            winner.acquire("af:winner", 900)

    loser_api.on["create"] = renew_three_times
    if update_fails:  # giving its generation up is best effort: the lease is the winner's either way
        loser_api.on["update"] = server_error("PATCH")
    with pytest.raises(LeaseHeld) as caught:
        AirflowConnectionLease(loser_api, conn_id, now=clock).acquire("af:loser", 600)
    assert (caught.value.holder, caught.value.until) == ("af:winner", "2030-01-01T12:15:00+00:00")
    assert stored(server.api(), conn_id) == {
        1: held("af:loser", released=not update_fails),
        2: held("af:winner", "2030-01-01T12:15:00+00:00"),
        3: held("af:winner", "2030-01-01T12:15:00+00:00"),
    }


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_rotation_that_decided_on_a_stale_view_gives_its_generation_up(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    lose_to_a_stale_view(airflow_api, conn_id, update_fails=False)
    lose_to_a_stale_view(airflow_api, f"{conn_id}_b", update_fails=True)


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_generation_gone_right_after_its_create_leaves_the_holder_unknown(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    api = Recorded(airflow_api.url)
    api.on["created"] = deleted_by(airflow_api.api())  # by hand, say
    with pytest.raises(LeaseHeld) as caught:
        AirflowConnectionLease(api, conn_id, now=Clock()).acquire("af:a", 600)
    assert (caught.value.holder, caught.value.until) == ("unknown", "unknown")
    prefix = f"{conn_id}.rotation-lease."
    assert api.writes == [("create", f"{prefix}1"), ("update", f"{prefix}1")]


def failing_first(count: int) -> Callable[[str], None]:
    """A create the server fails ``count`` times (503), then lets through."""
    tries: list[str] = []

    def create(conn_id: str) -> None:
        tries.append(conn_id)
        if len(tries) <= count:
            raise AirflowApiError("POST", "/api/v2/connections", 503, f"try {len(tries)}")

    return create


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_a_create_that_fails_is_tried_in_four_rounds_then_its_error_is_raised(
    airflow_api: AirflowApiServer, conn_id: str
) -> None:
    api, lucky, unlucky = Recorded(airflow_api.url), conn_id, f"{conn_id}_b"
    api.on["create"] = failing_first(3)
    AirflowConnectionLease(api, lucky, now=Clock()).acquire("af:a", 600)  # the fourth round creates it
    assert api.writes == [("create", f"{lucky}.rotation-lease.1")] * 4
    assert stored(api, lucky) == {1: held("af:a")}
    api.writes.clear()
    api.on["create"] = failing_first(4)
    with pytest.raises(AirflowApiError) as caught:
        AirflowConnectionLease(api, unlucky, now=Clock()).acquire("af:a", 600)
    assert (caught.value.status, caught.value.detail) == (503, "try 4")
    assert api.writes == [("create", f"{unlucky}.rotation-lease.1")] * 4


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_collecting_old_generations_is_housekeeping_that_may_fail(airflow_api: AirflowApiServer, conn_id: str) -> None:
    api = Recorded(airflow_api.url)
    api.on["delete"] = server_error("DELETE")
    lease = AirflowConnectionLease(api, conn_id, now=Clock())
    for _ in range(3):
        lease.acquire("af:a", 600)
    assert sorted(stored(api, conn_id)) == [1, 2, 3]
    assert api.writes[-1] == ("delete", f"{lease.prefix}1")


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_the_longest_connection_id_has_room_for_its_generations(airflow_api: AirflowApiServer, conn_id: str) -> None:
    longest = conn_id.ljust(178, "x")
    AirflowConnectionLease(airflow_api.api(), longest, now=Clock()).acquire("af:a", 600)
    assert stored(airflow_api.api(), longest) == {1: held("af:a")}
