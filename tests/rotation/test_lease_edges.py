"""
The edges of the in-process leases (``rotation/lease.py``) that test_lease.py leaves out: what a refusal says, the
second a lease expires, a clock of any origin; the lock file's mode, folders and content, and the holder another
open of the file names (another process's ``flock`` on the file, taken here in this process: two opens of one file
conflict under ``flock`` as two processes do).
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from messaging_platform_provider.rotation.lease import FileLease, InMemoryLease, LeaseHeld


class Clock:
    """Seconds of a monotonic clock, whose origin is arbitrary (here below zero); they move only when told to."""

    def __init__(self) -> None:
        self.now = -50.0

    def __call__(self) -> float:
        return self.now


def test_an_in_memory_lease_says_who_holds_it_and_until_when() -> None:
    clock = Clock()
    lease = InMemoryLease(clock=clock)
    lease.acquire("af:b", 60)  # free at first, whatever the clock reads: held until 10
    clock.now = -45.0
    with pytest.raises(LeaseHeld) as caught:
        lease.acquire("af:a", 60)
    assert (caught.value.holder, caught.value.until) == ("af:b", "55 s from now")
    assert str(caught.value) == "another rotation holds the lease (owner af:b) until 55 s from now"
    clock.now = 10.0  # the second it expires: taken over
    lease.acquire("af:a", 60)
    lease.release("af:a")
    lease.acquire("af:c", 60)  # released: free at once


def test_an_in_memory_lease_reports_an_empty_owner_as_it_is() -> None:
    lease = InMemoryLease(clock=Clock())
    lease.acquire("", 60)
    with pytest.raises(LeaseHeld) as caught:
        lease.acquire("af:a", 60)
    assert caught.value.holder == ""


def test_a_lock_file_is_private_made_with_its_folders_and_names_its_holder(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "credential.json.lock"
    lease = FileLease(path)
    umask = os.umask(0)  # the mode is the lease's own, not the umask's
    try:
        lease.acquire("af:a", 60)
    finally:
        os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == b"af:a"
    lease.release("af:a")
    assert path.read_bytes() == b""  # names no holder once released
    lease.acquire("af:b", 60)  # the folders exist by now
    assert path.read_bytes() == b"af:b"
    lease.release("af:b")


def test_in_this_process_each_lock_file_has_its_own_holder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "a.lock", tmp_path / "b.lock"
    FileLease(first).acquire("af:a", 60)
    FileLease(second).acquire("af:b", 60)  # another file: another lease
    with pytest.raises(LeaseHeld) as caught:
        FileLease(first).acquire("af:b", 60)
    assert (caught.value.holder, caught.value.until) == ("af:a", "it is released or its process ends")
    assert str(caught.value) == "another rotation holds the lease (owner af:a) until it is released or its process ends"
    monkeypatch.chdir(tmp_path)
    FileLease("a.lock").acquire("af:a", 60)  # the same file by a relative path: the owner's own lease back
    FileLease(first).release("af:b")  # not the holder: nothing happens
    with pytest.raises(LeaseHeld, match="owner af:a"):
        FileLease(first).acquire("af:b", 60)
    FileLease(tmp_path / "never.lock").release("af:a")  # never held: nothing happens
    FileLease(first).release("af:a")
    FileLease(first).acquire("af:b", 60)
    for path in (first, second):
        FileLease(path).release("af:b")
    FileLease(second).acquire("af:c", 60)
    FileLease(second).release("af:c")


def test_a_lock_file_of_an_empty_owner_names_no_holder(tmp_path: Path) -> None:
    path = tmp_path / "credential.json.lock"
    path.write_bytes(b"af:before")  # a holder that died without releasing
    FileLease(path).acquire("", 60)
    assert path.read_bytes() == b""
    FileLease(path).release("")


@contextmanager
def held_elsewhere(path: Path, content: bytes) -> Iterator[None]:
    """``path`` locked by another open of it (as another process holds it), ``content`` written in it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, content, 0)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        yield
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("content", "holder"),
    [
        pytest.param(b"af:elsewhere\n", "af:elsewhere", id="a name"),
        pytest.param(b"", "another process", id="empty"),
        pytest.param(b" \n", "another process", id="blank"),
        pytest.param(b"x" * 250, "x" * 200, id="cut at 200 bytes"),
        pytest.param("é".encode() * 150, "é" * 100, id="cut at 200 bytes, not characters"),
        pytest.param(b"\xff\xfeaf:odd", "\ufffd\ufffdaf:odd", id="not UTF-8"),
    ],
)
def test_a_lock_file_held_elsewhere_names_the_holder_it_holds(tmp_path: Path, content: bytes, holder: str) -> None:
    path = tmp_path / "credential.json.lock"
    with held_elsewhere(path, content):
        with pytest.raises(LeaseHeld) as caught:
            FileLease(path).acquire("af:a", 60)
        assert (caught.value.holder, caught.value.until) == (holder, "it is released or its process ends")
        assert path.read_bytes() == content  # a refused lease writes nothing
    FileLease(path).acquire("af:a", 60)  # the refusal kept no lock of its own
    assert path.read_bytes() == b"af:a"
    FileLease(path).release("af:a")
