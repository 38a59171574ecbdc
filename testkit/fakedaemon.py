"""A fake peerscand: ``io.peerscan`` on a Unix socket (Varlink: JSON objects terminated by NUL), serving a snapshot the
caller gives and the changesets it pushes — for clients of the protocol that need no real network (peerscan-web's page
tests and benchmark: Tests/Page/test_fakedaemon.py, benchmarks/web.py).

What it answers, as docs/protocol.md describes peerscand:

- ``GetSnapshot``: ``{"epoch", "sequence", "snapshot"}``.
- ``Monitor`` (with ``more``): the snapshot, then one reply per pushed changeset taking ``sequence - 1`` to
  ``sequence``. With ``epoch`` and ``since`` of this run and ``since`` still in the kept changesets (the last
  ``history`` of them), the missed ones follow instead of the snapshot; else the snapshot with ``resync: true``.
  A client whose connection falls ``history`` changesets behind gets a snapshot with ``resync: true`` too. Without
  ``more``: the snapshot, once.
- ``GetDevice`` and ``ListKnownDevices``: minimal replies made from the current snapshot's device items (first and
  last seen the fake's start time, no transitions, no notes); ``io.peerscan.DeviceNotFound`` for an unknown id.
- ``ListAlertRules`` and ``SetAlertRule``: the rules kept in memory (``alert_rules``: device id or None for the default
  → events), the default first; an event not of docs/alerts.md's gets ``org.varlink.service.InvalidParameter``.
- ``GetStatistics``: fixed figures of the right shape (a probe-round histogram, counted events, ``clients.varlink`` the
  connections open now, no MQTT, the fake's own process from ``/proc/self``), for peerscan-web's ``/metrics``.
- ``org.varlink.service.GetInfo`` (so ``testkit.wire.answers`` sees it up); anything else gets
  ``org.varlink.service.MethodNotImplemented`` (the writes are not faked) or ``MethodNotFound``.

    with FakeDaemon(tmp_path / "io.peerscan", synthetic.snapshot(synthetic.devices(100))) as daemon:
        daemon.push(changes)                       # checked with testclient/applier.py, then sent to every Monitor
        daemon.play(make_changes, rate=20, count=600)  # in a thread: make_changes(number) → (changes, snapshot)

Standard library only (and testclient.applier); the socket is a file, so it may run in any network namespace.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import socket
import socketserver
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable
from pathlib import Path

from testclient import applier

__all__ = ["FakeDaemon"]

_START = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
_ALERT_EVENTS = {"new-device", "offline", "online", "address-conflict", "evil-twin", "new-access-point"}
_WRITES = {"SetScanning", "SetDeviceLabel", "MergeDevices", "SplitDevice", "SetDeviceIRK", "ForgetDevice",
           "ListKnownWiFiNetworks", "TrustWiFiNetwork", "UntrustWiFiNetwork"}


def _frame(message: dict) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\0"


class _Handler(socketserver.BaseRequestHandler):
    """One client connection: its calls in order; a Monitor call with ``more`` holds the connection until it ends."""

    server: _Server

    def handle(self) -> None:
        state = self.server.daemon_state
        with state._changed:
            state._connections += 1
        try:
            self._serve(state)
        finally:
            with state._changed:
                state._connections -= 1

    def _serve(self, state: FakeDaemon) -> None:
        buffer = b""
        with contextlib.suppress(OSError):
            while chunk := self.request.recv(1 << 16):
                buffer += chunk
                while b"\0" in buffer:
                    message, _, buffer = buffer.partition(b"\0")
                    if not state.answer(json.loads(message), self.request):
                        return


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True
    daemon_state: FakeDaemon


class FakeDaemon:
    """The fake; see the module's docstring. ``start()``/``close()``, or use it as a context manager.

    - Parameters: path: the socket file to make; snapshot: the snapshot at sequence 0; epoch: this run's epoch (a
      fresh UUID when None); history: how many changesets are kept for resuming.
    """

    def __init__(self, path: str | Path, snapshot: dict, epoch: str | None = None, history: int = 1024) -> None:
        self.path = Path(path)
        self.epoch = epoch or str(uuid.uuid4())
        self._snapshot = snapshot
        self._sequence = 0
        self._encoded: bytes | None = None  # the snapshot's JSON, made at most once per sequence
        self._history: deque[tuple[int, dict]] = deque(maxlen=history)
        self._changed = threading.Condition()
        self._closed = False
        self._server: _Server | None = None
        self._threads: list[threading.Thread] = []
        self.calls: list[str] = []  # every method called, in order (for tests)
        self.parameters: list[tuple[str, dict]] = []  # every method called with its parameters, in order
        self.alert_rules: dict[str | None, list[str]] = {}  # SetAlertRule's rules: device (None: default) → events
        self._connections = 0  # open now (GetStatistics's clients.varlink)

    # The caller's side.

    def start(self) -> FakeDaemon:
        self.path.unlink(missing_ok=True)
        self._server = _Server(str(self.path), _Handler)
        self._server.daemon_state = self
        thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        thread.start()
        self._threads.append(thread)
        return self

    def close(self) -> None:
        """Stops serving: the streams end, the socket file goes. Idempotent."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        for thread in self._threads:
            thread.join(timeout=10)
        self.path.unlink(missing_ok=True)

    def __enter__(self) -> FakeDaemon:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def snapshot(self) -> dict:
        with self._changed:
            return self._snapshot

    @property
    def sequence(self) -> int:
        with self._changed:
            return self._sequence

    def push(self, changes: dict, result: dict | None = None) -> int:
        """Publishes a changeset taking the current snapshot to the next sequence; returns that sequence.

        ``result`` is the snapshot it leads to, when the caller has it (a benchmark making changesets fast); else it
        is computed with ``testclient.applier.apply``, which raises ``ChangesetMismatch`` for one that does not fit.
        """
        with self._changed:
            self._snapshot = result if result is not None else applier.apply(self._snapshot, changes)
            self._sequence += 1
            self._encoded = None
            self._history.append((self._sequence, changes))
            self._changed.notify_all()
            return self._sequence

    def play(self, make: Callable[[int], tuple[dict, dict | None]], rate: float, count: int) -> threading.Thread:
        """Pushes ``count`` changesets at ``rate`` per second from a thread (started, returned): ``make(number)``
        returns ``(changes, result)`` for ``push``, called just before its send time, so a time it writes into the
        changeset is the send time. Stops early when the fake closes."""

        def run() -> None:
            start = time.monotonic()
            for number in range(count):
                delay = start + number / rate - time.monotonic()
                with self._changed:
                    if self._changed.wait_for(lambda: self._closed, timeout=max(delay, 0)):
                        return
                self.push(*make(number))

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        self._threads.append(thread)
        return thread

    # The protocol's side.

    def _snapshot_reply(self, resync: bool | None = None) -> bytes:
        """A reply's ``parameters`` with the snapshot, as JSON bytes (the snapshot encoded once per sequence)."""
        if self._encoded is None:
            self._encoded = json.dumps(self._snapshot, separators=(",", ":")).encode()
        head = {"epoch": self.epoch, "sequence": self._sequence}
        if resync is not None:
            head["resync"] = resync
        return json.dumps(head, separators=(",", ":"))[:-1].encode() + b',"snapshot":' + self._encoded + b"}"

    @staticmethod
    def _reply_bytes(parameters: bytes, continues: bool) -> bytes:
        return (b'{"continues":true,"parameters":' if continues else b'{"parameters":') + parameters + b"}\0"

    def answer(self, call: dict, connection: socket.socket) -> bool:
        """Answers one call on a connection; returns whether the connection goes on."""
        method = call.get("method", "")
        parameters = call.get("parameters") or {}
        self.calls.append(method)
        self.parameters.append((method, parameters))
        interface, _, name = method.rpartition(".")
        if method == "org.varlink.service.GetInfo":
            reply = {"vendor": "peerscan", "product": "fakedaemon", "version": "0", "url": "",
                     "interfaces": ["org.varlink.service", "io.peerscan"]}
        elif interface != "io.peerscan":
            return self._error(connection, "org.varlink.service.InterfaceNotFound", {"interface": interface})
        elif name == "GetSnapshot":
            with self._changed:
                connection.sendall(self._reply_bytes(self._snapshot_reply(), False))
            return True
        elif name == "Monitor":
            return self._monitor(connection, parameters, bool(call.get("more")))
        elif name == "GetDevice":
            device = self._device(parameters.get("id"))
            if device is None:
                return self._error(connection, "io.peerscan.DeviceNotFound", {"id": parameters.get("id")})
            reply = {**self._known(device), "device": device, "transitions": []}
        elif name == "GetStatistics":
            reply = self._statistics()
        elif name == "ListAlertRules":
            with self._changed:
                rules = sorted(self.alert_rules.items(), key=lambda rule: (rule[0] is not None, rule[0] or ""))
            reply = {"rules": [{"device": device, "events": events} for device, events in rules]}
        elif name == "SetAlertRule":
            events = parameters.get("events")
            if events is not None and not set(events) <= _ALERT_EVENTS:
                return self._error(connection, "org.varlink.service.InvalidParameter", {"parameter": "events"})
            with self._changed:
                if events is None:
                    self.alert_rules.pop(parameters.get("device"), None)
                else:
                    self.alert_rules[parameters.get("device")] = list(events)
            reply = {}
        elif name == "ListKnownDevices":
            with self._changed:
                reply = {"devices": [self._known(item) for item in applier.devices(self._snapshot).values()]}
        elif name in _WRITES:
            return self._error(connection, "org.varlink.service.MethodNotImplemented", {"method": method})
        else:
            return self._error(connection, "org.varlink.service.MethodNotFound", {"method": method})
        connection.sendall(_frame({"parameters": reply}))
        return True

    def _statistics(self) -> dict:
        """GetStatistics's reply: what peerscand counts, fixed; the process's figures, this one's."""
        with open("/proc/self/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        ticks = os.sysconf("SC_CLK_TCK")
        with open("/proc/stat") as boot:
            boot_time = next(int(line.split()[1]) for line in boot if line.startswith("btime "))
        return {
            "probeRoundDurations": {"bounds": [0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0],
                                    "counts": [0, 3, 9, 10, 10, 10, 10, 10, 10], "sum": 4.5, "count": 10},
            "addressConflicts": 0,
            "evilTwinWarnings": 0,
            "clients": {"varlink": self._connections, "mqtt": None},
            "alerts": [{"destination": "json://receiver.test/hook", "outcome": "sent", "count": 3}],
            "process": {"residentBytes": int(fields[21]) * os.sysconf("SC_PAGESIZE"),
                        "cpuSeconds": (int(fields[11]) + int(fields[12])) / ticks,
                        "openDescriptors": len(os.listdir("/proc/self/fd")),
                        "maximumDescriptors": resource.getrlimit(resource.RLIMIT_NOFILE)[0],
                        "startTime": boot_time + int(fields[19]) / ticks},
        }

    def _error(self, connection: socket.socket, error: str, parameters: dict) -> bool:
        connection.sendall(_frame({"error": error, "parameters": parameters}))
        return True

    def _device(self, device_id: object) -> dict | None:
        with self._changed:
            return applier.devices(self._snapshot).get(device_id)

    @staticmethod
    def _known(item: dict) -> dict:
        """The registry's view of a present device item (a ``KnownDevice``)."""

        def sightings(values: list) -> list:
            return [{"value": value, "firstSeen": _START, "lastSeen": _START} for value in values]

        return {"id": item["id"], "name": item.get("displayName"), "present": True, "online": item["online"],
                "firstSeen": _START, "lastSeen": _START, "vendor": item.get("vendor"),
                "hostNames": sightings([item["hostName"]] if item.get("hostName") else []),
                "macAddresses": sightings(item.get("macAddresses", [])),
                "addresses": sightings(item.get("addresses", [])), "label": item.get("label"), "note": None,
                "important": item.get("important", False)}

    def _monitor(self, connection: socket.socket, parameters: dict, more: bool) -> bool:
        """A Monitor call: the snapshot or the missed changesets, then (with ``more``) every changeset until the
        client goes or the fake closes; ``resync`` when a resume is impossible or the client fell behind."""
        epoch, since = parameters.get("epoch"), parameters.get("since")
        with self._changed:
            resumable = (epoch == self.epoch and isinstance(since, int) and since <= self._sequence
                         and (since == self._sequence or (self._history and self._history[0][0] <= since + 1)))
            if not more or not resumable:
                asked = epoch is not None or since is not None
                connection.sendall(self._reply_bytes(self._snapshot_reply(True if asked else None), more))
                if not more:
                    return True
                since = self._sequence
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._closed or self._sequence > since, timeout=5)
                if self._closed:
                    return False
                if self._sequence == since:
                    continue
                if not self._history or self._history[0][0] > since + 1:  # fell behind what is kept
                    pending = [self._reply_bytes(self._snapshot_reply(True), True)]
                else:
                    pending = [self._reply_bytes(json.dumps({"epoch": self.epoch, "sequence": sequence,
                                                             "changes": changes}, separators=(",", ":")).encode(),
                                                 True)
                               for sequence, changes in self._history if sequence > since]
                since = self._sequence
            connection.sendall(b"".join(pending))  # raises OSError when the client went: the handler ends
