"""A fake peerscand for the alerts' sender: the alert outbox of io.peerscan (FollowAlerts, AckAlert, as
/work/briefs/alerts-api.md and docs/alerts.md fix them) on a Unix socket, without a LAN — for peerscan-alerts'
integration test until peerscand's side exists, and for anything that needs an outbox it controls.

- ``FollowAlerts`` (with ``more``): every alert not yet acknowledged for each named destination, oldest first, then each
  new one as it is pushed. A second call ends the first with ``io.peerscan.AlertSenderReplaced``.
- ``AckAlert``: records the acknowledgement (``acks``) and removes the alert from that destination's outbox;
  ``outcome`` must be ``sent`` or ``rejected`` (else ``org.varlink.service.InvalidParameter``).
- ``org.varlink.service.GetInfo``; anything else ``org.varlink.service.MethodNotFound``.

    with FakeOutbox(tmp_path / "io.peerscan", destinations=["json://10.231.0.10:8080/hook"]) as outbox:
        outbox.push(outbox.alert("offline", device="d1"))
        outbox.restart()          # as peerscand restarting: connections dropped, the outbox kept

Standard library only; the socket is a file, so it may serve any network namespace.
"""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import socketserver
import threading
import time
import uuid
from pathlib import Path

__all__ = ["FakeOutbox"]


def _frame(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\0"


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := self.request.recv(1 << 16):
                buffer += chunk
                while b"\0" in buffer:
                    message, _, buffer = buffer.partition(b"\0")
                    if not self.server.outbox._answer(json.loads(message), self.request):
                        return


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    outbox: FakeOutbox


class FakeOutbox:
    """The fake; see the module's docstring. ``start()``/``close()``, or use it as a context manager.

    - Parameters: path: the socket file; destinations: the names an alert pushed without ``destinations`` is for.
    """

    def __init__(self, path: str | Path, destinations: list[str]) -> None:
        self.path = Path(path)
        self.destinations = list(destinations)
        self.lock = threading.Condition()
        self.pending: dict[str, list[dict]] = {name: [] for name in destinations}  # per destination, oldest first
        self.acks: list[dict] = []  # every AckAlert's parameters, in order
        self.follow_calls: list[list[str]] = []  # each FollowAlerts call's destinations
        self._follower: queue.Queue | None = None
        self._server: _Server | None = None
        self._connections: list[socket.socket] = []

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FakeOutbox:
        self.path.unlink(missing_ok=True)
        self._server = _Server(str(self.path), _Handler)
        self._server.outbox = self
        self.path.chmod(0o666)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        """Stops serving and drops every connection (the outbox is kept: ``start()`` serves it again)."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        with self.lock:
            if self._follower is not None:
                self._follower.put(None)
                self._follower = None
            for connection in self._connections:
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
            self._connections.clear()
        self.path.unlink(missing_ok=True)

    def restart(self, down: float = 0) -> None:
        """As peerscand restarting: every connection dropped, nothing served for ``down`` seconds, the outbox kept."""
        self.close()
        time.sleep(down)
        self.start()

    def __enter__(self) -> FakeOutbox:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- the outbox ------------------------------------------------------------------------------

    @staticmethod
    def alert(event: str, device: str | None = None, title: str = "", message: str = "", **fields: str) -> dict:
        """An alert of the API's shape with a fresh id."""
        return {
            "id": str(uuid.uuid4()),
            "event": event,
            "created": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime()),
            "device": device,
            "title": title or f"{fields.get('name', device)} {event}",
            "message": message or f"{fields.get('name', device)} is {event}",
            "priority": "high" if event == "offline" else "default",
            "tags": [event],
            "link": f"/devices/{device}" if device else None,
            "fields": fields,
        }

    def push(self, alert: dict, destinations: list[str] | None = None) -> dict:
        """Writes an alert for ``destinations`` (default: all) and offers it to the follower, if one follows."""
        with self.lock:
            for name in destinations or self.destinations:
                self.pending.setdefault(name, []).append(alert)
                if self._follower is not None:
                    self._follower.put((name, alert))
            self.lock.notify_all()
        return alert

    def acked(self, outcome: str | None = None) -> list[dict]:
        with self.lock:
            return [ack for ack in self.acks if outcome is None or ack["outcome"] == outcome]

    def unacknowledged(self) -> int:
        with self.lock:
            return sum(len(alerts) for alerts in self.pending.values())

    # -- the protocol ----------------------------------------------------------------------------

    def _answer(self, call: dict, connection: socket.socket) -> bool:
        method = call.get("method", "")
        parameters = call.get("parameters") or {}
        if method == "org.varlink.service.GetInfo":
            connection.sendall(_frame({"parameters": {"vendor": "peerscan tests", "product": "fake outbox",
                                                      "version": "0", "url": "", "interfaces": ["io.peerscan"]}}))
            return True
        if method == "io.peerscan.AckAlert":
            if parameters.get("outcome") not in ("sent", "rejected"):
                connection.sendall(_frame({"error": "org.varlink.service.InvalidParameter",
                                           "parameters": {"parameter": "outcome"}}))
                return True
            with self.lock:
                self.acks.append(parameters)
                name = parameters.get("destination")
                self.pending[name] = [a for a in self.pending.get(name, []) if a["id"] != parameters.get("id")]
                self.lock.notify_all()
            connection.sendall(_frame({"parameters": {}}))
            return True
        if method == "io.peerscan.FollowAlerts" and call.get("more"):
            return self._follow(connection, parameters.get("destinations") or [])
        connection.sendall(_frame({"error": "org.varlink.service.MethodNotFound", "parameters": {"method": method}}))
        return True

    def _follow(self, connection: socket.socket, names: list[str]) -> bool:
        offers: queue.Queue = queue.Queue()
        with self.lock:
            if self._follower is not None:
                self._follower.put("replaced")
            self._follower = offers
            self._connections.append(connection)
            self.follow_calls.append(list(names))
            for name in names:
                self.pending.setdefault(name, [])
                for alert in self.pending[name]:
                    offers.put((name, alert))
        while True:
            offer = offers.get()
            if offer is None:
                return False
            if offer == "replaced":
                with contextlib.suppress(OSError):
                    connection.sendall(_frame({"error": "io.peerscan.AlertSenderReplaced", "parameters": {}}))
                return False
            name, alert = offer
            if name not in names:
                continue
            try:
                connection.sendall(_frame({"parameters": {"destination": name, "alert": alert}, "continues": True}))
            except OSError:
                with self.lock:
                    if self._follower is offers:
                        self._follower = None
                return False
