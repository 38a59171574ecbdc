"""A fleet of raw io.peerscan.Monitor clients on one thread (selectors), each replaying its stream in place and checking
it, resuming with its epoch and last sequence after a disconnect as a client of a restarted peerscand does: the stress
suite's many clients (`Fleet`), cheap enough that 99 of them keep up on two cores.
"""

from __future__ import annotations

import json
import selectors
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from testkit.waiting import wait_until

from .varlinkclient import canonical

__all__ = ["Fleet", "FleetClient", "apply_in_place"]


def apply_in_place(sections: list[list], changes: dict) -> None:
    """docs/protocol.md's five steps on `[[section id, [items]]]`, in place (the fleet's replayer: no copies, so that 99
    clients keep up on two cores). Raises AssertionError when the changeset does not fit."""
    moved, removals = {}, []
    for delete in changes.get("itemDeletes", []):
        removals.append((tuple(delete["from"]), delete["id"], None))
    for number, move in enumerate(changes.get("itemMoves", [])):
        removals.append((tuple(move["from"]), move["id"], number))
    for (s, i), item_id, number in sorted(removals, reverse=True, key=lambda r: r[0]):
        item = sections[s][1].pop(i)
        assert item["id"] == item_id, f"item at {[s, i]} is {item['id']}, not {item_id}"
        if number is not None:
            moved[number] = item
    moved_sections, section_removals = {}, [(d["from"], d["id"], None) for d in changes.get("sectionDeletes", [])]
    section_removals += [(m["from"], m["id"], n) for n, m in enumerate(changes.get("sectionMoves", []))]
    for index, section_id, number in sorted(section_removals, reverse=True, key=lambda r: r[0]):
        removed = sections.pop(index)
        assert removed[0] == section_id, f"section at {index} is {removed[0]}, not {section_id}"
        if number is not None:
            moved_sections[number] = removed
    inserts = [(i["at"], [i["id"], []]) for i in changes.get("sectionInserts", [])]
    inserts += [(m["to"], moved_sections[n]) for n, m in enumerate(changes.get("sectionMoves", []))]
    for index, section in sorted(inserts, key=lambda p: p[0]):
        sections.insert(index, section)
    item_inserts = [(tuple(i["at"]), i["item"]) for i in changes.get("itemInserts", [])]
    item_inserts += [(tuple(m["to"]), moved[n]) for n, m in enumerate(changes.get("itemMoves", []))]
    for (s, i), item in sorted(item_inserts, key=lambda p: p[0]):
        assert i <= len(sections[s][1]), f"insert at {[s, i]} beyond the end"
        sections[s][1].insert(i, item)
    for update in changes.get("itemUpdates", []):
        s, i = update["at"]
        assert sections[s][1][i]["id"] == update["item"]["id"], f"update at {[s, i]} names another item"
        sections[s][1][i] = update["item"]


@dataclass
class FleetClient:
    """One raw Monitor client of a `Fleet`: its connection, its replayed sections, its stream's position and its
    counts; `errors` holds every violation of the stream's contract it saw."""

    number: int
    sock: socket.socket | None = None
    buffer: bytes = b""
    sections: list | None = None
    epoch: str | None = None
    sequence: int | None = None
    snapshots: int = 0
    resyncs: int = 0
    changesets: int = 0
    reconnects: int = 0
    retry_at: float = 0.0
    errors: list[str] = field(default_factory=list)

    def snapshot(self) -> dict:
        return {"sections": [{"id": s, "items": list(items)} for s, items in self.sections or []]}


class Fleet:
    """Raw Monitor clients in one thread (selectors). Each replays its stream with `apply_in_place` and checks it:
    sequences consecutive, one epoch per connection, a snapshot after the first only with `resync: true`. A client
    whose connection ends reconnects (every 0.3 s until the socket answers) and asks to resume with its epoch and
    last sequence."""

    def __init__(self, path: Path, count: int) -> None:
        self.path = path
        self.clients = [FleetClient(n) for n in range(count)]
        self.selector = selectors.DefaultSelector()
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        for client in self.clients:
            self._connect(client)
        self.thread = threading.Thread(target=self._run, daemon=True, name="fleet")
        self.thread.start()

    def _connect(self, client: FleetClient) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(self.path))
            parameters = {} if client.epoch is None else {"epoch": client.epoch, "since": client.sequence}
            sock.sendall(json.dumps({"method": "io.peerscan.Monitor", "more": True,
                                     "parameters": parameters}).encode() + b"\0")
        except OSError:
            sock.close()
            client.retry_at = time.monotonic() + 0.3
            return
        sock.setblocking(False)
        client.sock, client.buffer = sock, b""
        self.selector.register(sock, selectors.EVENT_READ, client)

    def _drop(self, client: FleetClient) -> None:
        self.selector.unregister(client.sock)
        client.sock.close()
        client.sock = None
        client.reconnects += 1
        client.retry_at = time.monotonic() + 0.3

    def _take(self, client: FleetClient, message: dict) -> None:
        if "error" in message:
            client.errors.append(f"error reply: {message}")
            return
        reply = message["parameters"]
        if reply.get("snapshot") is not None:
            if client.sections is not None and reply.get("resync") is not True:
                client.errors.append(f"snapshot at {reply['sequence']} without resync: true")
            if client.sections is not None:
                client.resyncs += 1
            client.sections = [[s["id"], list(s["items"])] for s in reply["snapshot"]["sections"]]
            client.snapshots += 1
        else:
            if reply["epoch"] != client.epoch:
                client.errors.append(f"changeset of epoch {reply['epoch']} on {client.epoch}")
            if reply["sequence"] != client.sequence + 1:
                client.errors.append(f"sequence gap {client.sequence} -> {reply['sequence']}")
            try:
                apply_in_place(client.sections, reply["changes"])
            except (AssertionError, IndexError, KeyError) as error:
                client.errors.append(f"changeset {reply['sequence']} does not apply: {error!r}")
            client.changesets += 1
        client.epoch, client.sequence = reply["epoch"], reply["sequence"]

    def _run(self) -> None:
        while not self.stop_event.is_set():
            for key, _ in self.selector.select(timeout=0.2):
                client: FleetClient = key.data
                try:
                    chunk = client.sock.recv(1 << 20)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                with self.lock:
                    if not chunk:
                        self._drop(client)
                        continue
                    client.buffer += chunk
                    while b"\0" in client.buffer:
                        raw, _, client.buffer = client.buffer.partition(b"\0")
                        self._take(client, json.loads(raw))
            now = time.monotonic()
            for client in self.clients:
                if client.sock is None and client.retry_at <= now:
                    with self.lock:
                        self._connect(client)

    def wait_sequence(self, sequence: int, epoch: str, timeout: float = 60) -> None:
        """Until every client is at `sequence` of `epoch`."""
        def behind() -> list[int]:
            with self.lock:
                return [c.number for c in self.clients if c.epoch != epoch or (c.sequence or -1) < sequence]

        wait_until(lambda: not behind(), timeout, f"every fleet client at {epoch}/{sequence}",
                   details=lambda: f"behind: {behind()[:10]}")

    def states(self) -> dict[int, str]:
        with self.lock:
            return {c.number: canonical(c.snapshot()) for c in self.clients}

    def errors(self) -> list[str]:
        with self.lock:
            return [f"client {c.number}: {e}" for c in self.clients for e in c.errors]

    def totals(self) -> dict[str, int]:
        with self.lock:
            return {k: sum(getattr(c, k) for c in self.clients)
                    for k in ("snapshots", "resyncs", "changesets", "reconnects")}

    def close(self) -> None:
        self.stop_event.set()
        self.thread.join(timeout=10)
        for client in self.clients:
            if client.sock:
                client.sock.close()
