"""
The standalone server's limits as ``serve`` configures them (``callbacks.guard``): the connection cap that fits the
file-descriptor limit (``--max-connections``, ``--backlog``), the limits refused, and the HTTP parser picked.
"""

from __future__ import annotations

import logging
import resource
from collections.abc import Callable

import pytest

from messaging_platform_provider.callbacks import connection_cap, guard
from messaging_platform_provider.callbacks.connection_cap import connection_limits
from messaging_platform_provider.callbacks.guard import guarded_protocol

INFINITY = resource.RLIM_INFINITY


class Descriptors:
    """
    A process's file-descriptor limits (RLIMIT_NOFILE) as the kernel keeps them, for limits this machine may not
    have: the soft limit may be set up to the hard one, never past it (an unlimited hard limit, as macOS has,
    allows any). Stands in for the ``resource`` module that ``connection_limits`` reads.
    """

    RLIMIT_NOFILE = resource.RLIMIT_NOFILE
    RLIM_INFINITY = INFINITY

    def __init__(self, soft: int, hard: int) -> None:
        self.soft, self.hard = soft, hard

    def getrlimit(self, which: int) -> tuple[int, int]:
        assert which == self.RLIMIT_NOFILE
        return self.soft, self.hard

    def setrlimit(self, which: int, limits: tuple[int, int]) -> None:
        assert which == self.RLIMIT_NOFILE
        soft, hard = limits
        if hard != self.hard:
            raise ValueError("not allowed to raise maximum limit")
        if self.hard != INFINITY and (soft == INFINITY or soft > self.hard):
            raise ValueError("current limit exceeds maximum limit")
        self.soft = soft


@pytest.fixture
def descriptors(monkeypatch) -> Callable[[int, int], Descriptors]:
    """``descriptors(soft, hard)``: the limits ``connection_limits`` reads and sets, for this test."""

    def install(soft: int, hard: int) -> Descriptors:
        limits = Descriptors(soft, hard)
        monkeypatch.setattr(connection_cap, "resource", limits)
        return limits

    return install


@pytest.fixture
def warnings_(caplog) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.WARNING, logger=connection_cap.__name__)
    return caplog


def test_a_soft_descriptor_limit_below_the_hard_one_is_raised_to_it_and_the_cap_fits_that():
    """On this machine's kernel: the soft limit lowered first, as a login shell's ``ulimit -Sn`` may leave it."""
    before = resource.getrlimit(resource.RLIMIT_NOFILE)
    hard = before[1]
    if hard == INFINITY or hard < 1024:
        pytest.skip(f"the hard descriptor limit ({hard}) leaves no soft limit to raise here")
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard // 2, hard))
        cap = connection_limits(10**9, backlog=2048)
        assert resource.getrlimit(resource.RLIMIT_NOFILE) == (hard, hard)
        assert cap == hard - 64 - min(2048, hard // 4)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, before)


def test_the_default_cap_is_1000_and_is_not_warned_about(descriptors, warnings_):
    descriptors(20_000, 20_000)
    assert connection_limits() == 1000
    assert connection_limits(None, backlog=16) == 1000
    assert connection_limits(10) == 10
    assert warnings_.records == []


def test_a_cap_lowered_to_fit_says_so_and_how_to_raise_it(descriptors, warnings_):
    descriptors(20_000, 20_000)
    assert connection_limits(10**9, backlog=2048) == 20_000 - 64 - 2048
    assert [r.getMessage() for r in warnings_.records] == [
        "At most 17888 connections (file-descriptor limit 20000); raise `ulimit -n` for more"
    ]


def test_the_cap_keeps_the_backlog_free_up_to_a_quarter_of_the_limit(descriptors):
    descriptors(1023, 1023)
    assert connection_limits(10**9, backlog=100) == 1023 - 64 - 100
    fitted = connection_limits(10**9, backlog=10**6)  # a quarter of 1023 descriptors, whole: 255
    assert fitted == 1023 - 64 - 255 and isinstance(fitted, int)


def test_a_tiny_descriptor_limit_still_leaves_eight_connections(descriptors, warnings_):
    descriptors(80, 80)
    assert connection_limits() == 8
    assert "At most 8 connections (file-descriptor limit 80)" in warnings_.text


def test_an_unlimited_hard_limit_raises_the_soft_one_to_65536(descriptors):
    """macOS's default: no hard limit. The soft one is raised to 65,536 descriptors (not to "unlimited")."""
    limits = descriptors(1024, INFINITY)
    assert connection_limits(10**9, backlog=2048) == 65536 - 64 - 2048
    assert (limits.soft, limits.hard) == (65536, INFINITY)
    assert connection_limits() == 1000


def test_an_unlimited_hard_limit_keeps_a_soft_limit_already_above_65536(descriptors):
    limits = descriptors(100_000, INFINITY)
    assert connection_limits(10**9, backlog=2048) == 100_000 - 64 - 2048
    assert limits.soft == 100_000


LIMITS_REFUSED = "^timeouts must be positive, max_connections at least 1 and max_head_bytes at least 1024$"


@pytest.mark.parametrize(
    "limits",
    [
        {"header_timeout": 0},
        {"body_timeout": 0},
        {"body_timeout": -1},
        {"max_connections": 0},
        {"max_head_bytes": 1023},
    ],
    ids=["header-timeout-0", "body-timeout-0", "body-timeout-negative", "max-connections-0", "max-head-1023"],
)
def test_limits_that_would_serve_nothing_are_refused_saying_which_are_allowed(limits):
    with pytest.raises(ValueError, match=LIMITS_REFUSED):
        guarded_protocol(**limits)


def test_the_smallest_limits_allowed_are_kept():
    protocol = guarded_protocol(header_timeout=0.001, body_timeout=0.001, max_connections=1, max_head_bytes=1024)
    assert (protocol.header_timeout, protocol.body_timeout) == (0.001, 0.001)
    assert (protocol.max_connections, protocol.max_head_bytes) == (1, 1024)


def test_an_unknown_parser_is_refused_naming_those_there_are():
    with pytest.raises(ValueError, match=r"^http must be one of auto, h11, httptools; got 'h2'$"):
        guarded_protocol(http="h2")


def test_without_httptools_serve_falls_back_to_h11(monkeypatch):
    """uvicorn without its ``standard`` extra has no httptools: ``auto`` then picks the pure-Python h11."""
    monkeypatch.delitem(guard.PROTOCOLS, "httptools")
    assert guarded_protocol().__mro__[1] is guard.GuardedH11Protocol
    with pytest.raises(ValueError, match=r"^http must be one of auto, h11; got 'httptools'$"):
        guarded_protocol(http="httptools")
