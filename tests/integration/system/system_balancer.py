"""
The load balancer in front of the CeleryExecutor deployment's two API servers, for the platform's callbacks: the
callback records name it, as a deployment with several API servers names its load balancer. Each request goes to
the next API server in turn. While ``duplicate_every`` is set, every n-th request is also sent, at the same moment,
to the other API server: one callback arriving at both receivers at once, as the platform's resend of a callback
whose answer it did not get may arrive at another API server than the first send.
"""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests

from tests.integration.system.system_processes import free_port

#: Headers that belong to one connection, not to the request: not passed on.
HOP_BY_HOP = frozenset({"host", "connection", "content-length", "transfer-encoding", "keep-alive"})


@dataclass(frozen=True)
class Forwarded:
    """One request as one API server answered it."""

    number: int  # the request's number at the balancer, from 0
    server: int  # which API server (0 or 1)
    duplicate: bool  # sent to this server as the other half of a duplicated request
    status: int  # the API server's answer; 502 when it could not be reached
    outcome: str  # the receiver's "status" member ("stored", "duplicate"), or "" when there is none


class CallbackBalancer:
    """Start with ``start()``, end with ``stop()``; ``forwarded`` lists every answer, in the order they came."""

    def __init__(self, server_urls: list[str]) -> None:
        self.server_urls = server_urls
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.duplicate_every = 0
        self.forwarded: list[Forwarded] = []
        self._count = 0
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="balancer")
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        balancer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                status, content_type, answer = balancer.forward(self.path, headers, body)
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - http.server's name
                pass  # the answers are in ``forwarded``; the request lines would carry nothing more

        self._server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="callback-balancer", daemon=True)
        self._thread.start()

    def forward(self, path: str, headers: dict[str, str], body: bytes) -> tuple[int, str, bytes]:
        """Send the request to the next API server (and the other too when it is one to duplicate); the answer of
        the first."""
        with self._lock:
            number = self._count
            self._count += 1
            every = self.duplicate_every
        first = number % len(self.server_urls)
        servers = [first]
        if every and number % every == 0:
            servers.append((first + 1) % len(self.server_urls))
        sent = [self._pool.submit(self._send, number, s, s != first, path, headers, body) for s in servers]
        answers = [future.result() for future in sent]
        return answers[0]

    def _send(
        self, number: int, server: int, duplicate: bool, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[int, str, bytes]:
        try:
            response = requests.post(self.server_urls[server] + path, data=body, headers=headers, timeout=60)
            answer = (response.status_code, response.headers.get("Content-Type", "text/plain"), response.content)
        except requests.RequestException:
            answer = (502, "text/plain", b"the API server could not be reached")
        try:
            outcome = str(json.loads(answer[2]).get("status", ""))
        except (ValueError, AttributeError):
            outcome = ""
        with self._lock:
            self.forwarded.append(Forwarded(number, server, duplicate, answer[0], outcome))
        return answer

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._pool.shutdown(wait=True, cancel_futures=True)
