"""Varlink on a Unix socket by hand: NUL-terminated JSON messages, for exact bytes and bad input, and the check that
a server answers (what the tests, the benchmarks and the peerscand wrapper wait on before they talk to it).

Standard library only; it touches nothing but the socket file, so it may run in the host's namespace.
"""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

__all__ = ["RawConnection", "answers"]


class RawConnection:
    """A Unix stream connection speaking Varlink by hand: NUL-terminated JSON messages."""

    def __init__(self, path: str | Path, timeout: float = 10) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(str(path))
        self.timeout = timeout
        self.buffer = b""

    def send_bytes(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send(self, *messages: dict) -> None:
        """Sends the messages in one write (pipelined)."""
        self.sock.sendall(b"".join(json.dumps(m).encode() + b"\0" for m in messages))

    def receive(self, timeout: float | None = None) -> dict:
        """The next message. Raises EOFError when the server closed the connection, TimeoutError if none came."""
        self.sock.settimeout(timeout if timeout is not None else self.timeout)
        while b"\0" not in self.buffer:
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                raise TimeoutError("no message from the server in time") from None
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                raise EOFError(f"connection closed by the server (pending: {self.buffer[:200]!r})")
            self.buffer += chunk
        message, _, self.buffer = self.buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, parameters: dict | None = None, **flags) -> dict:
        """One call and its (first) reply."""
        message = {"method": method, **flags}
        if parameters is not None:
            message["parameters"] = parameters
        self.send(message)
        return self.receive()

    def closed_by_server(self, timeout: float = 10) -> bool:
        """Whether the server closes the connection within `timeout` (anything it sends meanwhile is discarded)."""
        deadline = time.monotonic() + timeout
        self.sock.settimeout(0.2)
        while time.monotonic() < deadline:
            try:
                chunk = self.sock.recv(1 << 16)
            except TimeoutError:
                continue
            except ConnectionResetError:
                return True
            if not chunk:
                return True
        return False

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> RawConnection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def answers(path: str | Path) -> bool:
    """Whether a Varlink server answers GetInfo on `path`."""
    try:
        with RawConnection(path, timeout=2) as connection:
            return "interfaces" in connection.call("org.varlink.service.GetInfo").get("parameters", {})
    except (OSError, EOFError, TimeoutError, ValueError):
        return False
