"""A webhook receiver for the alerts' tests: an HTTP server listening in a namespace of the test LAN (a host of its
own, never the host's namespace) that records every request, and can be told to answer an error, to hang, or to
vanish (its port closed: connections refused) and come back.

    receiver = Receiver(host.namespace, host.ipv4)          # listening on host.ipv4:8080
    receiver.answer(500)                                     # every request from now on: 500
    receiver.answer(400, count=1)                            # the next request: 400, then the default again
    receiver.hang()                                          # accept, read, never answer (until ``answer()``)
    receiver.vanish(); ...; receiver.come_back()             # the port closed, then open again
    receiver.requests                                        # every request: method, path, headers, body (parsed)
    receiver.close()

Standard library only (and testkit.netns): the listening socket is made in the namespace; serving runs on threads
here.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import socket
import threading
import time
from dataclasses import dataclass, field

from testkit.netns import call_in

__all__ = ["Receiver", "Request"]


@dataclass
class Request:
    """One request as received."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    status: int = 0  # what the receiver answered (0: nothing)
    json: object = field(default=None)
    arrived: float = field(default_factory=time.monotonic)  # time.monotonic() when its body was read


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        self._serve()

    def do_PUT(self) -> None:  # noqa: N802
        self._serve()

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        with contextlib.suppress(ValueError):
            request.json = json.loads(body) if body else None
        receiver = self.server.receiver
        if receiver._server is not self.server:  # vanished: a kept-alive connection is dropped, unanswered
            self.close_connection = True
            return
        status, hang = receiver._next_answer()
        if hang:
            receiver._record(request)
            receiver._released.wait()
            self.close_connection = True
            return
        request.status = status
        receiver._record(request)
        answer = b'{"ok":true}' if status < 300 else b'{"error":"told to fail"}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        if status == 429:
            self.send_header("Retry-After", "1")
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    receiver: Receiver


class Receiver:
    """See the module's docstring. - Parameters: namespace: where to listen; address: its IPv4 address there."""

    def __init__(self, namespace: str, address: str, port: int = 8080) -> None:
        self.namespace = namespace
        self.address = address
        self.port = port
        self.lock = threading.Condition()
        self.requests: list[Request] = []
        self._default = 200
        self._next: list[int] = []
        self._hanging = False
        self._released = threading.Event()
        self._server: _Server | None = None
        self.come_back()

    # -- what it answers -------------------------------------------------------------------------

    def answer(self, status: int, count: int | None = None) -> None:
        """Answers ``status`` to the next ``count`` requests (every request from now on when None); ends a hang."""
        with self.lock:
            if count is None:
                self._default, self._next = status, []
            else:
                self._next += [status] * count
            self._hanging = False
            self._released.set()

    def hang(self) -> None:
        """Reads each request and never answers, until ``answer()``."""
        with self.lock:
            self._hanging = True
            self._released.clear()

    def vanish(self) -> None:
        """Closes the port: connections are refused (the connections open are dropped)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def come_back(self) -> None:
        """Listens again on the same address and port."""

        def listen() -> socket.socket:
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((self.address, self.port))
            sock.listen(16)
            return sock

        sock = call_in(self.namespace, listen)
        server = _Server((self.address, self.port), _Handler, bind_and_activate=False)
        server.socket.close()
        server.socket = sock
        server.receiver = self
        self._server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._released.set()
        self.vanish()

    # -- what it received ------------------------------------------------------------------------

    def received(self, path: str | None = None, status: int | None = None) -> list[Request]:
        with self.lock:
            return [
                r for r in self.requests if (path is None or r.path == path) and (status is None or r.status == status)
            ]

    def _record(self, request: Request) -> None:
        with self.lock:
            self.requests.append(request)
            self.lock.notify_all()

    def _next_answer(self) -> tuple[int, bool]:
        with self.lock:
            if self._hanging:
                return 0, True
            if self._next:
                return self._next.pop(0), False
            return self._default, False
