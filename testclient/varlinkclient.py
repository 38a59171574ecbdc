"""Talking to peerscand's Varlink socket from the tests: a follower of io.peerscan.Monitor built on the PyPI `varlink`
client that replays every changeset with `applier.apply`, a sampler of GetSnapshot, and a client run as another user.
(The raw-socket connection, for exact bytes and bad input, is `testkit.wire`'s.)

Everything here only touches the socket file: no network traffic, so it may run in the host's namespace.
"""

from __future__ import annotations

import copy
import json
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import varlink

from testkit.waiting import wait_notified

from . import applier


def normalise(snapshot: dict) -> dict:
    """A snapshot as compared between sources: item fields that are null left out (python-varlink drops them, the
    raw wire and --dump carry them), everything else as is (a TXT key without a value keeps its null)."""
    return {"sections": [{"id": section["id"],
                          "items": [{k: v for k, v in item.items() if v is not None} for item in section["items"]]}
                         for section in snapshot["sections"]]}


def strip_nulls(value, key: str | None = None):
    """`value` with every null field left out, recursively, as python-varlink's filtering does (a TXT object's
    null values stay: they mean a key without '=')."""
    if isinstance(value, dict):
        if key == "txt":
            return dict(value)
        return {k: strip_nulls(v, k) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [strip_nulls(v) for v in value]
    return value


def canonical(snapshot: dict) -> str:
    return json.dumps(normalise(snapshot), sort_keys=True)


# ---------------------------------------------------------------------------------------------------------------
# python-varlink clients


def client(path: str | Path) -> varlink.Client:
    return varlink.Client(address=f"unix:{path}")


class Replay:
    """A Monitor client's view: replays its replies (their parameters) with `applier.apply`.

    Records every violation of the stream's contract in `errors` instead of raising: a changeset whose sequence is
    not the previous one + 1, a snapshot after the first reply without `resync: true`, an epoch change, a changeset
    the applier rejects. `history` maps every sequence seen to the canonical snapshot at it.
    """

    def __init__(self, resuming: bool = False) -> None:
        self.resuming = resuming
        self.replies: list[dict] = []
        self.snapshot: dict | None = None
        self.sequence: int | None = None
        self.epoch: str | None = None
        self.history: dict[int, str] = {}
        self.resyncs: list[int] = []
        self.errors: list[str] = []

    def take(self, reply: dict) -> None:
        self.replies.append(reply)
        if self.epoch is None:
            self.epoch = reply["epoch"]
        elif reply["epoch"] != self.epoch:
            self.errors.append(f"epoch changed: {self.epoch} -> {reply['epoch']}")
        sequence = reply["sequence"]
        if reply.get("snapshot") is not None:
            if reply.get("changes") is not None:
                self.errors.append(f"reply {sequence} has both a snapshot and changes")
            if self.snapshot is not None or self.resuming:
                if reply.get("resync") is not True:
                    self.errors.append(f"snapshot at {sequence} after the start without resync: true")
                self.resyncs.append(sequence)
            elif reply.get("resync") is not None:
                self.errors.append(f"the first snapshot carries resync: {reply['resync']}")
            self.snapshot, self.sequence = reply["snapshot"], sequence
        elif reply.get("changes") is not None:
            if self.sequence is None:
                self.errors.append(f"changeset {sequence} before any snapshot")
                return
            if sequence != self.sequence + 1:
                self.errors.append(f"sequence gap: {self.sequence} -> {sequence}")
            try:
                self.snapshot = applier.apply(self.snapshot, reply["changes"])
            except Exception as error:  # noqa: BLE001 — the applier must never raise: recorded, asserted by tests
                self.errors.append(f"applier failed at {sequence}: {error!r}")
            self.sequence = sequence
        else:
            self.errors.append(f"reply {sequence} with neither snapshot nor changes: {reply}")
            return
        self.history[sequence] = canonical(self.snapshot)

    def start_from(self, snapshot: dict, sequence: int) -> None:
        """For a resumed Monitor (no snapshot comes): the snapshot the client already has."""
        self.snapshot, self.sequence = copy.deepcopy(snapshot), sequence
        self.history[sequence] = canonical(snapshot)


class MonitorFollower(Replay):
    """Follows io.peerscan.Monitor (more) with python-varlink in a thread, replaying it (see `Replay`)."""

    def __init__(self, path: str | Path, start: tuple[dict, int] | None = None, **parameters) -> None:
        super().__init__(resuming="since" in parameters)
        if start is not None:
            self.start_from(*start)
        self.interface = client(path).open("io.peerscan", namespaced=False)
        self.parameters = parameters
        self.condition = threading.Condition()
        self.ended: BaseException | None = None
        self._closing = False
        self._thread = threading.Thread(target=self._run, daemon=True, name="monitor-follower")
        self._thread.start()

    def _run(self) -> None:
        try:
            for reply in self.interface.Monitor(_more=True, **self.parameters):
                with self.condition:
                    self.take(reply)
                    self.condition.notify_all()
        except BaseException as error:  # noqa: BLE001 — the end of the stream, reported through `ended`
            with self.condition:
                self.ended = error
                if not self._closing:
                    self.errors.append(f"Monitor ended: {error!r}")
                self.condition.notify_all()

    def _ended(self) -> str | None:
        """Why a wait on this follower is over early: the Monitor stream ended."""
        return None if self.ended is None else f"Monitor ended ({self.ended!r})"

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 30, what: str = "condition") -> dict:
        """Waits until the replayed snapshot satisfies `predicate`; returns a copy of it."""
        with self.condition:
            wait_notified(self.condition, lambda: self.snapshot is not None and predicate(self.snapshot), timeout,
                          what, give_up=self._ended,
                          details=lambda: f"at {self.sequence}: {json.dumps(self.snapshot)}\nerrors: {self.errors}")
            return copy.deepcopy(self.snapshot)

    def wait_sequence(self, sequence: int, timeout: float = 30) -> None:
        """Waits until the follower replayed the changeset of `sequence`."""
        with self.condition:
            wait_notified(self.condition, lambda: self.sequence is not None and self.sequence >= sequence, timeout,
                          f"sequence {sequence}", give_up=self._ended,
                          details=lambda: f"Monitor at {self.sequence}; errors: {self.errors}")

    def wait_replies(self, count: int, timeout: float = 30) -> list[dict]:
        """Waits until `count` replies arrived; returns the first `count`."""
        with self.condition:
            wait_notified(self.condition, lambda: len(self.replies) >= count, timeout, f"{count} replies",
                          give_up=self._ended, details=lambda: f"{len(self.replies)} replies")
            return list(self.replies[:count])

    def close(self) -> None:
        with self.condition:
            self._closing = True
        self.interface.close()
        self._thread.join(timeout=10)


class SnapshotSampler:
    """Calls GetSnapshot over and over on its own python-varlink connection, in a thread; keeps every answer."""

    def __init__(self, path: str | Path, interval: float = 0.02) -> None:
        self.interface = client(path).open("io.peerscan", namespaced=False)
        self.interval = interval
        self.samples: list[dict] = []
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="snapshot-sampler")
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append(self.interface.GetSnapshot())
            except BaseException as error:  # noqa: BLE001
                if not self._stop.is_set():
                    self.errors.append(repr(error))
                return
            self._stop.wait(self.interval)

    def stop(self) -> list[dict]:
        self._stop.set()
        self._thread.join(timeout=10)
        self.interface.close()
        return self.samples


# ---------------------------------------------------------------------------------------------------------------
# Another user

# A client for another user: /usr/bin/python3 with no module outside the standard library, the code on the command
# line (the work tree need not be readable). Prints its credentials, then one line per call: the reply, or the
# connection error.
_CLIENT = r"""
import json, os, socket, sys
print(json.dumps({"uid": os.getuid(), "gid": os.getgid(), "groups": sorted(os.getgroups())}), flush=True)
s = socket.socket(socket.AF_UNIX)
s.settimeout(10)
try:
    s.connect(sys.argv[1])
except OSError as error:
    print(json.dumps({"connectError": error.errno}))
    sys.exit(0)
buffer = b""
for call in sys.argv[2:]:
    s.sendall(call.encode() + b"\0")
    while b"\0" not in buffer:
        chunk = s.recv(65536)
        if not chunk:
            print(json.dumps({"closed": True}))
            sys.exit(0)
        buffer += chunk
    message, _, buffer = buffer.partition(b"\0")
    print(message.decode(), flush=True)
"""

NOBODY = 65534


def call_as(path: str | Path, calls: list[dict], uid: int = NOBODY, gid: int = NOBODY,
            groups: list[int] | None = None) -> tuple[dict, list[dict]]:
    """Runs the calls on one connection as another user (setpriv), from the host's namespace (only the socket file
    is used). `groups`: supplementary groups; none if None.

    - Returns: (the client's credentials, one reply per call — or `[{"connectError": errno}]`).
    """
    group_option = ["--clear-groups"] if not groups else [f"--groups={','.join(map(str, groups))}"]
    argv = ["setpriv", f"--reuid={uid}", f"--regid={gid}", *group_option, "/usr/bin/python3", "-I", "-c", _CLIENT,
            str(path), *(json.dumps(call) for call in calls)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=30, cwd="/")
    assert result.returncode == 0, f"client as uid {uid} failed: {result.stderr}"
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    return lines[0], lines[1:]
