"""
The standalone receiver's connection cap (``callbacks/guard.py`` enforces it): how many connections fit the
process's file-descriptor limit, and the book of open connections the cap reads to pick the one to close.
"""

from __future__ import annotations

import logging
import resource
from collections import OrderedDict
from typing import Any

log = logging.getLogger(__name__)

DEFAULT_MAX_CONNECTIONS = 1000
#: The listen backlog: connections the kernel completes and queues until the server accepts them. One wake-up of
#: the event loop may accept that many at once, before the cap closes any: the file-descriptor budget keeps as many
#: free, up to a quarter of the limit (beyond, a burst waits in the kernel's queue until descriptors are free).
DEFAULT_BACKLOG = 2048
RESERVED_DESCRIPTORS = 64  # the store's files or connections, the listening socket, logs


def connection_limits(requested: int | None = None, backlog: int = DEFAULT_BACKLOG) -> int:
    """The connection cap: ``requested`` (default 1000), lowered to fit the file-descriptor limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    fits = soft - RESERVED_DESCRIPTORS - min(backlog, soft // 4)
    wanted = requested if requested is not None else DEFAULT_MAX_CONNECTIONS
    cap = max(8, min(wanted, fits))
    if cap < wanted:
        log.warning("At most %d connections (file-descriptor limit %d); raise `ulimit -n` for more", cap, soft)
    return cap


class ConnectionBook:
    """
    The open connections of one server, as the cap needs them: how many are open, and those waiting for a request
    head in the order they began to wait (the first has waited longest). Every operation costs the same however
    many connections are open.
    """

    def __init__(self) -> None:
        self.open = 0
        self.waiting: OrderedDict[Any, None] = OrderedDict()

    def longest_waiting(self) -> Any:
        return next(iter(self.waiting), None)
