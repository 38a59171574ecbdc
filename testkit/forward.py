"""A TCP forward from the host's loopback into a namespace's loopback: how a browser on the host reaches a server that
runs in the test LAN (the demo's peerscan-web, testlan/demo.py) while the server itself never runs in the host's network
namespace, and how Selenium on the host reaches chromedriver in a namespace (testkit/browser.py).

The listening socket is bound to 127.0.0.1 only; each accepted connection is paired with one made from inside the
namespace (on a thread that joined it: setns moves only the calling thread), and two threads copy bytes each way until
either side closes. Long-lived responses (Server-Sent Events) pass through as they come.
"""

from __future__ import annotations

import contextlib
import errno
import socket
import threading
from pathlib import Path

from testkit.netns import call_in


def connect_in(namespace: str | Path, port: int, timeout: float = 10) -> socket.socket:
    """A TCP connection to 127.0.0.1:`port` inside `namespace`, usable from any thread."""
    connection = call_in(namespace, lambda: socket.create_connection(("127.0.0.1", port), timeout=timeout))
    connection.settimeout(None)
    return connection


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copies `source` to `sink` until `source` ends or either fails; then ends both directions."""
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            sink.sendall(data)
    for end in (source, sink):
        with contextlib.suppress(OSError):
            end.shutdown(socket.SHUT_RDWR)


class LoopbackForward:
    """Forwards 127.0.0.1:`host_port` on the host to 127.0.0.1:`port` in `namespace` until `close()`.

    `host_port` 0, or a port in use, takes a free port: `self.host_port` is the one bound.
    """

    def __init__(self, namespace: str | Path, port: int, host_port: int = 0) -> None:
        self.namespace, self.port = namespace, port
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            self.listener.bind(("127.0.0.1", host_port))
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.host_port = self.listener.getsockname()[1]
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            try:
                upstream = connect_in(self.namespace, self.port)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._connections += [client, upstream]
            threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=_pump, args=(upstream, client), daemon=True).start()

    def close(self) -> None:
        """Stops listening and ends every forwarded connection."""
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)
        self.listener.close()
        with self._lock:
            for connection in self._connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
                connection.close()
            self._connections.clear()
