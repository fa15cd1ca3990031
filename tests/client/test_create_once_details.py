"""
A retry-safe create whose retry reads a list answer holding an entry without an ``Id``: the entry cannot be the
resource an earlier try made (it cannot be read back, nor its id kept), so the retry passes over it and makes its
own, as a first try does (``test_create_once.py``). Through the sync client against a stand-in HTTP server on
loopback: the emulator always answers with an ``Id``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from messaging_platform_provider.client import CreateOnce, MessagingPlatformApiError, MessagingPlatformClient
from messaging_platform_provider.client.once import MemoryStateStore

#: unique to this file: the process-global secrets masker keeps every secret it saw
SECRET = "create-once-entry-without-id-secret-9d41"
VOICE = "/api/v2.1/account/1001/action-pushvoicecall"
TOKEN = "0000000000000f71"
KEY = f"messaging_platform:create_push_voice_call:{TOKEN}"

#: (method, path, JSON body or None) of each request, in order
Seen = list[tuple[str, str, Any]]
#: what the stand-in answers: (status, JSON body), from what it was sent so far
Answer = Callable[[Seen], tuple[int, Any]]


class Scripted(BaseHTTPRequestHandler):
    """Answers each request with the next of ``answers``; records every request in ``seen``."""

    answers: list[Answer]
    seen: Seen

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        sent = json.loads(self.rfile.read(length)) if length else None
        self.seen.append((self.command, self.path, sent))
        status, obj = self.answers.pop(0)(self.seen)
        body = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._answer()

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self._answer()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def scripted() -> Iterator[tuple[str, list[Answer], Seen]]:
    """The stand-in's base URL, the answers it has left to give, and the requests it got."""
    answers: list[Answer] = []
    seen: Seen = []
    handler = type("Handler", (Scripted,), {"answers": answers, "seen": seen})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api/v2.1", answers, seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


#: an entry that has no ``Id`` field at all
MISSING = object()


def first_post_listed_with(listed_id: Any) -> Answer:
    """The list answer: one entry with every field the first try's POST sent, and ``listed_id`` for its ``Id``."""

    def answer(seen: Seen) -> tuple[int, Any]:
        posted = next(body for method, _, body in seen if method == "POST")
        return 200, [dict(posted) if listed_id is MISSING else {**posted, "Id": listed_id}]

    return answer


@pytest.mark.parametrize("listed_id", [MISSING, None, "n/a"], ids=["no Id", "a null Id", "an Id that is text"])
def test_a_retry_passes_over_a_listed_entry_without_an_id_and_makes_its_own(
    scripted: tuple[str, list[Answer], Seen], listed_id: Any
) -> None:
    """
    Try 1 sees no voice call (watermark 0) and is refused 503. Try 2's list holds an entry with the very fields try
    1 sent but no numeric ``Id``: not one it can adopt, and no reason to stop (a null or text ``Id`` made the retry
    fail with a bare TypeError or ValueError). It makes its own and keeps its id.
    """
    base_url, answers, seen = scripted
    answers += [
        lambda _: (200, []),  # try 1: nothing made before
        lambda _: (503, [{"ErrorMessage": "Service Unavailable"}]),  # try 1's create: refused
        first_post_listed_with(listed_id),  # try 2: the entry without a numeric Id
        lambda s: (201, {"Id": 8, **s[-1][2]}),  # try 2's create
    ]
    store = MemoryStateStore()
    once = CreateOnce(TOKEN, store)
    with MessagingPlatformClient(base_url, "key", SECRET, account_id=1001) as client:

        def create() -> dict[str, Any]:
            return client.create_push_voice_call(
                ["+15125550100"], targets=["+15125550111"], message="Your parcel is on its way.", once=once
            )

        with pytest.raises(MessagingPlatformApiError) as refused:
            create()
        assert refused.value.status == 503
        assert store.data[KEY]["watermark"] == 0
        made = create()
    sent = {"Channels": ["+15125550100"], "Targets": ["+15125550111"], "Message": "Your parcel is on its way."}
    assert made == {"Id": 8, **sent}
    assert seen == [("GET", VOICE, None), ("POST", VOICE, sent), ("GET", VOICE, None), ("POST", VOICE, sent)]
    assert (store.data[KEY]["id"], store.data[KEY]["watermark"]) == (8, 0)
