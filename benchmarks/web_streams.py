"""A client of peerscan-web's event stream for benchmarks/web.py's ``--rss-only``: it reads ``/api/events`` as the page
would, without a browser."""

from __future__ import annotations

import contextlib
import http.client
import socket
import threading
from pathlib import Path

from testkit.netns import call_in

__all__ = ["EventFollower"]


class EventFollower:
    """A client reading ``/api/events`` from peerscan-web on the namespace's loopback (port ``port``), on a thread of
    its own; it counts the events."""

    def __init__(self, namespace: Path, port: int) -> None:
        def open_stream() -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            connection.request("GET", "/api/events")
            return connection, connection.getresponse()

        self._connection, self._response = call_in(namespace, open_stream)
        self.events = 0
        self.first = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        with contextlib.suppress(OSError, ValueError, http.client.HTTPException):
            while line := self._response.readline():
                if line == b"\n":
                    self.events += 1
                    self.first.set()

    def close(self) -> None:
        """Ends the stream: the reader sees its end, then the connection is closed."""
        with contextlib.suppress(OSError):
            self._connection.sock.shutdown(socket.SHUT_RDWR)
        self._reader.join(timeout=10)
        self._connection.close()
