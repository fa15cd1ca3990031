"""
Two rotations of one Airflow connection started together (two rotation tasks, or a DAG with ``max_active_runs``
above 1), round after round, against the emulator and a real Airflow API server on loopback: one wins, the other
stops at once without retry, and the platform never keeps a valid key that nobody holds.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformClient
from messaging_platform_provider.hooks.messaging_platform import MessagingPlatformHook
from messaging_platform_provider.rotation import (
    AirflowConnectionLease,
    AirflowConnectionTarget,
    ApiKeyRotation,
    RotationError,
    RotationResult,
)
from tests.rotation.test_rotation import Store, assert_no_secret_leaked, stored_connection, works
from tests.support.airflow_api_harness import AIRFLOW_API_CONN_ID, prepare_rotated_connection

CONN_ID = "messaging_platform_raced"
ROUNDS = 20
LOST = ("another rotation holds the lease", "another rotation changed the target")


class Overlap:
    """
    Holds a rotation that got past its lease (it recorded the old key) until the other one has ended or got that
    far too: whichever wins the lease, the other tries while the winner is in the middle of its rotation.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._past = 0
        self._ended = 0

    def on_step(self, step: str) -> None:
        if step != "old_key_recorded":
            return
        with self._changed:
            self._past += 1
            self._changed.notify_all()
            self._changed.wait_for(lambda: self._past + self._ended >= 2, timeout=30)

    def ended(self) -> None:
        with self._changed:
            self._ended += 1
            self._changed.notify_all()


def race(round_number: int) -> list[Any]:
    """Two rotations of the connection, each in its thread with its own run token and task state store."""
    start = threading.Barrier(2)
    overlap = Overlap()
    outcomes: list[Any] = [None, None]

    def rotate(index: int) -> None:
        try:
            rotation = ApiKeyRotation(
                MessagingPlatformHook(),
                AirflowConnectionTarget(CONN_ID, AIRFLOW_API_CONN_ID),
                once=CreateOnce(f"{round_number:08x}{index:08x}", Store()),
                key_label=f"Race {round_number}",
                on_step=overlap.on_step,
            )
            start.wait(timeout=30)
            outcomes[index] = rotation.run()
        except Exception as exc:
            outcomes[index] = exc
        finally:
            overlap.ended()

    threads = [threading.Thread(target=rotate, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    return outcomes


@pytest.mark.slow
@pytest.mark.xdist_group("airflow_api_server")
def test_two_rotations_of_one_connection_started_together(home_scan, platform, airflow_api, monkeypatch, capfd):
    # Read the connection in this process as workers do through the execution API: from the metadata database.
    monkeypatch.setenv("_AIRFLOW_PROCESS_CONTEXT", "server")
    seed = platform.seed
    with MessagingPlatformClient(platform.base_url, seed.api_key, seed.api_secret, account_id=seed.account_id) as m:
        prepare_rotated_connection(airflow_api, m, conn_id=CONN_ID)
    hook = MessagingPlatformHook()
    secrets = []
    for round_number in range(ROUNDS):
        outcomes = race(round_number)
        won = [o for o in outcomes if isinstance(o, RotationResult)]
        lost = [o for o in outcomes if not isinstance(o, RotationResult)]
        assert len(won) == 1 and len(lost) == 1, (round_number, outcomes)
        loser = lost[0]
        assert isinstance(loser, RotationError), (round_number, loser)
        assert loser.retry_cannot_help and any(cause in str(loser) for cause in LOST), (round_number, loser)

        held = stored_connection(CONN_ID)
        secrets.append(held.secret)
        assert held.secret not in str(loser)
        assert works(platform, held), f"round {round_number}: the connection's key does not work"
        valid = {k["Key"]: k["Id"] for k in hook.list_api_keys()}
        assert set(valid) == {seed.api_key, held.key}, f"round {round_number}: a valid key nobody holds"
        assert valid[held.key] == won[0].new_key_id

    lease = AirflowConnectionLease(airflow_api.api(), CONN_ID)
    generations = lease.generations()
    assert len(generations) <= 2 and generations[max(generations)].released  # collected, and free
    assert_no_secret_leaked(platform, capfd, home_scan, *secrets)
