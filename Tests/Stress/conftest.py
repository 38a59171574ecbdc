"""The reliability suite's harness: a large, churning mDNS LAN with a known ground truth, peerscand watching it, and a
fleet of Monitor clients on its real Unix socket.

Run as root: `make stress` (full scale) or `make stress-ci` (the bounded part CI runs); STRESS_PROFILE=ci|full picks
the scale, STRESS_SEED the churn's seed (printed, and kept with the evidence). Evidence (peerscand's and avahi's logs,
the seed, diffs of any mismatch, report.json with the numbers) goes to `.build/stress/<run>/`; STRESS_PCAP=1 adds the
scanner's mDNS traffic (`mdns.pcap`, tcpdump; ~35 MB for the full profile).

- **The LAN** (testlan/): a few responder namespaces, each one python-zeroconf process publishing many *virtual hosts*:
  services whose SRV record points to a host name of their own (`sN.local`) with addresses of their own. Every
  record is real mDNS on the LAN's veths, answered and cached by a real avahi-daemon in the scanner namespace.
- **Ground truth** (`World`): what the harness published, per host name: its services (instance name, type, port,
  TXT) and addresses. The churn (seeded) adds and removes hosts, services, addresses, and changes TXT and ports,
  never touching a host again within `COOLDOWN` (avahi replaces a cached record only once it is a second old) and
  never reusing a name or an address.
- **Clients**: one `MonitorFollower` (PyPI varlink + the independent `testclient/applier.py`) and a fleet of raw
  Monitor connections (`Fleet`, one thread, its own replayer) that resume with their epoch and last sequence after a
  disconnect, as a client of a restarted peerscand does.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import selectors
import shutil
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from testclient import applier
from testclient.varlinkclient import MonitorFollower, canonical, normalise
from testkit import proc
from testkit.peerscand import PEERSCAND, ROOT, Peerscand, command
from testkit.waiting import wait_until
from testkit.wire import RawConnection
from testlan.lan import Peer, TestLAN

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
TYPES = tuple(f"_stress{k}._tcp" for k in range(8))
# avahi-daemon's mDNS receive buffer (bytes; 0: the kernel's default, 208 KiB). STRESS_AVAHI_RCVBUF overrides.
AVAHI_RECEIVE_BUFFER = int(os.environ.get("STRESS_AVAHI_RCVBUF", str(8 << 20)))
CAPTURE = os.environ.get("STRESS_PCAP") == "1"
COOLDOWN = 3.0  # seconds a host is left alone after a change was acknowledged


@dataclass(frozen=True)
class Profile:
    """The scale of a run."""

    name: str
    hosts: int
    services_per_host: float  # mean; each host has 2..6
    responders: int
    clients: int  # Monitor clients in all (the applier's follower included)
    churn_seconds: float
    ops_per_second: float
    avahi_kills: int
    fault_churn_seconds: float
    # peerscand's --startup-settle: how long a restarted peerscand may take to serve a complete first snapshot (on the
    # full LAN Avahi takes ~35 s to resolve every service again; the default 5 s would serve a partial one).
    startup_settle: float = 5


PROFILES = {
    "ci": Profile("ci", hosts=100, services_per_host=4, responders=4, clients=100, churn_seconds=60,
                  ops_per_second=6, avahi_kills=3, fault_churn_seconds=15),
    # full: as many hosts as Debian's stock avahi-daemon caches on one interface (cache-entries-max=4,096 records per
    # protocol held 1,168 services on 293 hosts, test_avahi_limits.py), with room for the churn's 10 % more hosts and
    # their added addresses.
    "full": Profile("full", hosts=220, services_per_host=4, responders=6, clients=100, churn_seconds=300,
                    ops_per_second=10, avahi_kills=10, fault_churn_seconds=30, startup_settle=60),
}


def profile() -> Profile:
    return PROFILES[os.environ.get("STRESS_PROFILE", "ci")]


# ---------------------------------------------------------------------------------------------------------------
# /proc


def proc_stats(pid: int | None) -> dict[str, float]:
    """CPU seconds (user + system), peak and current RSS (MiB) of a process, as the report has them; zeros if it is
    gone."""
    try:
        now = proc.usage(pid) if pid is not None else None
    except OSError:
        now = None
    if now is None:
        return {"cpu_s": 0.0, "peak_rss_mib": 0.0, "rss_mib": 0.0}
    return {"cpu_s": now.cpu_seconds, "peak_rss_mib": now.peak_rss_mib, "rss_mib": now.rss_mib}


def enlarge_receive_buffers(pid: int, size: int) -> list[int]:
    """Give the UDP sockets of process `pid` bound to port 5353 (avahi-daemon's mDNS sockets) a receive buffer of
    `size` bytes: each socket is duplicated into this process (pidfd_getfd) and set with SO_RCVBUFFORCE, as a
    large deployment raises net.core.rmem_default (which a network namespace cannot change here). Only the test
    LAN's avahi-daemon is touched. Returns the buffer sizes the kernel reports."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = os.pidfd_open(pid)
    sizes = []
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            try:
                if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                    continue
            except OSError:
                continue
            fd = libc.syscall(438, pidfd, int(name), 0)  # pidfd_getfd
            if fd < 0:
                continue
            sock = socket.socket(fileno=fd)
            try:
                if sock.type == socket.SOCK_DGRAM and sock.family in (socket.AF_INET, socket.AF_INET6) \
                        and sock.getsockname()[1] == 5353:
                    sock.setsockopt(socket.SOL_SOCKET, 33, size)  # SO_RCVBUFFORCE
                    sizes.append(sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))
            finally:
                sock.close()
    finally:
        os.close(pidfd)
    return sizes


# ---------------------------------------------------------------------------------------------------------------
# Ground truth and churn


@dataclass
class VirtualHost:
    number: int
    responder: int
    addresses: list[str]
    services: dict[str, dict] = field(default_factory=dict)  # type -> {"port", "txt"}
    ready_at: float = 0.0  # not touched before (monotonic)

    @property
    def name(self) -> str:
        return f"s{self.number}"

    @property
    def host_name(self) -> str:
        return f"{self.name}.local"

    @property
    def instance(self) -> str:
        return f"S{self.number}"

    def spec(self, type_: str) -> dict:
        service = self.services[type_]
        return {"name": self.instance, "type": type_, "port": service["port"], "txt": service["txt"],
                "server": f"{self.host_name}.", "addresses": list(self.addresses)}


class World:
    """The LAN's ground truth and its seeded churn, published through the responders' `batch` command."""

    def __init__(self, lan: TestLAN, prof: Profile, seed: int) -> None:
        self.lan = lan
        self.profile = prof
        self.random = random.Random(seed)
        self.responders: list[Peer] = [lan.add_peer(f"stressr{i}") for i in range(prof.responders)]
        self.hosts: dict[int, VirtualHost] = {}
        self.next_host = 0
        self.next_address = 0
        self.counter = 0
        self.ops = 0
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(prof.responders)
        self.changed_hosts: set[str] = set()  # host names touched since `mark()`
        self.ops_log: Any = None  # a text file: every batch sent, as a JSON line (evidence)
        self.failure: Exception | None = None  # a churn batch that failed: what is published is no longer known

    # -- addresses and names never reused --

    def _address(self) -> str:
        self.next_address += 1
        n = self.next_address
        return f"10.240.{n // 250}.{n % 250 + 1}"

    def _host(self) -> VirtualHost:
        number = self.next_host
        self.next_host += 1
        host = VirtualHost(number, number % self.profile.responders,
                           [f"10.239.{number // 250}.{number % 250 + 1}", f"fd70:7363:616f::{number + 1:x}"])
        count = self.random.randint(2, 6)
        for type_ in self.random.sample(TYPES, count):
            host.services[type_] = {"port": 1000 + self.random.randrange(60000), "txt": {"v": "0", "h": host.name}}
        return host

    # -- publishing --

    def _send(self, batches: dict[int, list[dict]]) -> None:
        """One `batch` per responder, in parallel; returns when every responder acknowledged."""
        if self.ops_log is not None:
            self.ops_log.write(json.dumps({"t": time.time(), "batches": batches}) + "\n")
        futures = [self.pool.submit(self.responders[r].command, "batch", 180, ops=ops)
                   for r, ops in batches.items() if ops]
        for future in futures:
            future.result()

    def populate(self) -> None:
        """Publish the initial hosts (in chunks, so probing does not flood the LAN all at once)."""
        hosts = [self._host() for _ in range(self.profile.hosts)]
        for start in range(0, len(hosts), 60):
            batches: dict[int, list[dict]] = {}
            for host in hosts[start:start + 60]:
                batches.setdefault(host.responder, []).extend(
                    {"op": "register", **host.spec(t)} for t in host.services)
            self._send(batches)
            with self.lock:
                for host in hosts[start:start + 60]:
                    self.hosts[host.number] = host
        now = time.monotonic()
        for host in self.hosts.values():
            host.ready_at = now + COOLDOWN

    def tick(self, count: int) -> int:
        """`count` random changes on distinct hosts not touched within `COOLDOWN`; returns how many were made."""
        now = time.monotonic()
        eligible = [h for h in self.hosts.values() if h.ready_at <= now]
        self.random.shuffle(eligible)
        batches: dict[int, list[dict]] = {}
        after: list[Callable[[], None]] = []
        target = self.profile.hosts
        made = 0
        for host in eligible[:count]:
            self.counter += 1
            kind = self.random.choices(
                ["add_host", "remove_host", "add_service", "remove_service", "txt", "port", "add_address",
                 "remove_address"], [2 if len(self.hosts) < target * 1.1 else 0,
                                     2 if len(self.hosts) > target else 0, 2, 2, 4, 2, 1, 1])[0]
            ops = batches.setdefault(host.responder, [])
            if kind == "add_host":
                new = self._host()
                batches.setdefault(new.responder, []).extend({"op": "register", **new.spec(t)} for t in new.services)
                after.append(lambda new=new: self.hosts.__setitem__(new.number, new))
                self.changed_hosts.add(new.host_name)
            elif kind == "remove_host":
                ops.extend({"op": "unregister", "name": host.instance, "type": t} for t in host.services)
                after.append(lambda host=host: self.hosts.pop(host.number))
            elif kind == "add_service" and len(host.services) < len(TYPES):
                type_ = self.random.choice([t for t in TYPES if t not in host.services])
                host.services[type_] = {"port": 2000 + self.counter % 60000, "txt": {"v": "0", "h": host.name}}
                ops.append({"op": "register", **host.spec(type_)})
            elif kind == "remove_service" and len(host.services) > 1:
                type_ = self.random.choice(sorted(host.services))
                del host.services[type_]
                ops.append({"op": "unregister", "name": host.instance, "type": type_})
            elif kind == "port":
                type_ = self.random.choice(sorted(host.services))
                host.services[type_]["port"] = 3000 + self.counter % 60000
                ops.append({"op": "update", "name": host.instance, "type": type_,
                            "port": host.services[type_]["port"]})
            elif kind == "add_address" and len(host.addresses) < 4:
                host.addresses.insert(1, self._address())
                ops.append({"op": "host_addresses", "server": host.host_name, "addresses": list(host.addresses)})
            elif kind == "remove_address" and len(host.addresses) > 2:
                host.addresses.pop(1)
                ops.append({"op": "host_addresses", "server": host.host_name, "addresses": list(host.addresses)})
            else:  # txt, or a kind that does not fit this host
                type_ = self.random.choice(sorted(host.services))
                host.services[type_]["txt"] = {"v": str(self.counter), "h": host.name}
                ops.append({"op": "update", "name": host.instance, "type": type_, "txt": host.services[type_]["txt"]})
            self.changed_hosts.add(host.host_name)
            made += 1
        self._send(batches)
        with self.lock:
            for action in after:
                action()
            ready = time.monotonic() + COOLDOWN
            for host in eligible[:count]:
                host.ready_at = ready
            for host in self.hosts.values():
                if host.ready_at == 0:
                    host.ready_at = ready
        self.ops += made
        return made

    def churn(self, seconds: float, stop: threading.Event | None = None) -> int:
        """Change the LAN for `seconds` at the profile's rate (or until `stop` is set); returns the changes made."""
        deadline = time.monotonic() + seconds
        made = 0
        while time.monotonic() < deadline and not (stop and stop.is_set()):
            started = time.monotonic()
            try:
                made += self.tick(max(1, round(self.profile.ops_per_second)))
            except Exception as error:  # a batch a responder refused: the truth no longer holds
                self.failure = error
                raise
            time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))
        return made

    def settle_time(self) -> float:
        """Seconds until the last change's announcements are surely cached (its cooldown)."""
        return max([h.ready_at for h in self.hosts.values()] + [0.0]) - time.monotonic()

    # -- the truth --

    def expected(self) -> dict[str, dict]:
        """What peerscand can know, by host name: id (first meeting: the name's UUID), display name, addresses,
        services."""
        out = {}
        with self.lock:
            for host in self.hosts.values():
                out[host.host_name] = {
                    "id": str(uuid.uuid5(NAMESPACE, host.host_name)),
                    "displayName": host.instance,
                    "addresses": sorted(host.addresses),
                    "services": sorted((host.instance, t, "local", s["port"], json.dumps(s["txt"], sort_keys=True))
                                       for t, s in host.services.items()),
                }
        return out

    @property
    def service_count(self) -> int:
        return sum(len(h.services) for h in self.hosts.values())


def observed(snapshot: dict) -> dict[str, dict]:
    """A snapshot's devices in `World.expected`'s form."""
    out = {}
    for device in applier.devices(snapshot).values():
        out[device.get("hostName") or f"<{device['id']}>"] = {
            "id": device["id"],
            "displayName": device.get("displayName"),
            "addresses": sorted(device.get("addresses") or []),
            "services": sorted((s["name"], s["type"], s["domain"], s["port"], json.dumps(s.get("txt") or {},
                                                                                          sort_keys=True))
                               for s in device.get("services") or []),
        }
    return out


def diff(expected: dict[str, dict], seen: dict[str, dict]) -> dict:
    """Where two device maps differ (missing, unexpected, different), for the evidence."""
    return {
        "missing": sorted(set(expected) - set(seen)),
        "unexpected": sorted(set(seen) - set(expected)),
        "different": {name: {"expected": expected[name], "seen": seen[name]}
                      for name in sorted(set(expected) & set(seen)) if expected[name] != seen[name]},
    }


# ---------------------------------------------------------------------------------------------------------------
# peerscand


class StressDaemon(Peerscand):
    """peerscand in the scanner namespace as an mDNS browser, its log kept in memory and in the evidence folder; its
    CPU time and peak memory summed over its restarts."""

    def __init__(self, lan: TestLAN, state_directory: Path, socket_path: Path, log: Path) -> None:
        super().__init__(command("--state-directory", str(state_directory), "--socket", str(socket_path),
                                 "--log-level", "info", "--no-neighbour-table", "--offline-after", "0",
                                 "--forget-after", "0", "--probe-interval", "0"),
                         socket_path, popen=lan.popen_in_scanner, log=log)
        self.lan = lan
        self.cpu_before = 0.0  # CPU of earlier processes (restarts)
        self.peak_rss_mib = 0.0

    def start(self) -> None:
        """Starts peerscand and waits until its socket answers."""
        super().start()
        self.wait_serving(30)

    def stats(self) -> dict[str, float]:
        now = proc_stats(self.process.pid if self.process else None)
        self.peak_rss_mib = max(self.peak_rss_mib, now["peak_rss_mib"])
        return {"cpu_s": self.cpu_before + now["cpu_s"], "peak_rss_mib": self.peak_rss_mib, "rss_mib": now["rss_mib"]}

    def stop(self, timeout: float = 20) -> int:
        self.cpu_before = self.stats()["cpu_s"]
        return super().stop(timeout)

    def get_snapshot(self) -> dict:
        """GetSnapshot on a raw connection: the wire's parameters (epoch, sequence, snapshot)."""
        with RawConnection(self.socket, timeout=30) as connection:
            return connection.call("io.peerscan.GetSnapshot")["parameters"]


# ---------------------------------------------------------------------------------------------------------------
# The fleet of Monitor clients


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


# ---------------------------------------------------------------------------------------------------------------
# The session: one LAN, one world, one peerscand, the clients; every scenario runs on it in turn


class Stress:
    """Everything a scenario needs, and the checks they share."""

    def __init__(self, lan: TestLAN, evidence: Path, prof: Profile, seed: int, state: Path) -> None:
        self.lan, self.evidence, self.profile, self.seed, self.state = lan, evidence, prof, seed, state
        self.report: dict[str, Any] = {"profile": prof.__dict__, "seed": seed}
        self.world = World(lan, prof, seed)
        self.world.ops_log = open(evidence / "ops.jsonl", "a", buffering=1)
        self.daemon = StressDaemon(lan, state, lan.tmpdir / "io.peerscan", evidence / "peerscand.log")
        self.daemon.argv += ["--startup-settle", str(prof.startup_settle)]
        self.follower: MonitorFollower | None = None
        self.fleet: Fleet | None = None
        self.avahi_cpu_before = 0.0
        self.avahi_peak_rss_mib = 0.0

    def avahi_stats(self) -> dict[str, float]:
        now = proc_stats(self.lan.avahi_pid)
        self.avahi_peak_rss_mib = max(self.avahi_peak_rss_mib, now["peak_rss_mib"])
        return {"cpu_s": self.avahi_cpu_before + now["cpu_s"], "peak_rss_mib": self.avahi_peak_rss_mib,
                "rss_mib": now["rss_mib"]}

    def start_avahi(self) -> None:
        """Start avahi-daemon and give its mDNS sockets `AVAHI_RECEIVE_BUFFER` (with the default 208 KiB, avahi-daemon
        drops a quarter of the datagrams of a 2,000-service LAN: RcvbufErrors in the scanner namespace) as soon as they
        exist: before it has claimed its host name and runs, so before peerscand browses and the LAN answers. (Done
        once it ran, a restart under load lost ~500 datagrams in the second between: a lost goodbye or announcement
        stays wrong in Avahi's cache until it asks again, up to its TTLs.)"""
        self.lan.start_avahi(wait=not AVAHI_RECEIVE_BUFFER)
        if AVAHI_RECEIVE_BUFFER:
            wait_until(lambda: len(enlarge_receive_buffers(self.lan.avahi_pid, AVAHI_RECEIVE_BUFFER)) >= 2, 10,
                       "avahi-daemon's mDNS sockets", interval=0.002,
                       give_up=lambda: None if self.lan.avahi_running else "avahi-daemon exited at start")
            self.lan.wait_avahi_ready()

    def kill_avahi(self, sig: int = signal.SIGKILL) -> None:
        """Stop avahi-daemon, keeping its CPU time and peak RSS for the report."""
        self.avahi_cpu_before = self.avahi_stats()["cpu_s"]
        self.lan.stop_avahi(sig)

    def settle(self, timeout: float = 90, what: str = "settle") -> float:
        """Wait until GetSnapshot's devices equal the ground truth (polling); returns the seconds it took. On a
        timeout, the diff goes to the evidence folder and the test fails."""
        started = time.monotonic()
        deadline = started + timeout
        while True:
            answer = self.daemon.get_snapshot()
            expected, seen = self.world.expected(), observed(answer["snapshot"])
            if expected == seen:
                return time.monotonic() - started
            if time.monotonic() > deadline:
                d = diff(expected, seen)
                attribution = self.attribute(d, seen)
                self.save(f"{what}-diff.json", {**d, "attribution": attribution})
                pytest.fail(f"{what}: GetSnapshot != ground truth after {timeout} s: {len(d['missing'])} missing, "
                            f"{len(d['unexpected'])} unexpected, {len(d['different'])} different "
                            f"(seed {self.seed}; {self.evidence}); avahi-daemon's own view: {attribution}; "
                            f"e.g. {json.dumps(d)[:1000]}")
            time.sleep(0.5)

    def udp_drops(self) -> dict[str, int]:
        """The scanner namespace's UDP counters (/proc/net/snmp): datagrams dropped for a full receive buffer."""
        text = subprocess.run(["ip", "netns", "exec", self.lan.scanner_ns, "cat", "/proc/net/snmp"],
                              capture_output=True, text=True, timeout=10).stdout
        lines = [line.split() for line in text.splitlines() if line.startswith("Udp:")]
        counters = dict(zip(lines[0][1:], map(int, lines[1][1:]), strict=False)) if len(lines) >= 2 else {}
        six = subprocess.run(["ip", "netns", "exec", self.lan.scanner_ns, "cat", "/proc/net/snmp6"],
                             capture_output=True, text=True, timeout=10).stdout
        counters6 = {line.split()[0]: int(line.split()[1]) for line in six.splitlines() if line.startswith("Udp6")}
        return {"ipv4_datagrams": counters.get("InDatagrams", 0), "ipv4_dropped": counters.get("RcvbufErrors", 0),
                "ipv6_datagrams": counters6.get("Udp6InDatagrams", 0),
                "ipv6_dropped": counters6.get("Udp6RcvbufErrors", 0)}

    def attribute(self, d: dict, seen: dict[str, dict]) -> dict:
        """For a mismatch: which differing hosts avahi-daemon itself shows as peerscand does (the LAN lost the
        packets: nothing peerscand could know) and which not (peerscand's fault). Services from avahi-browse -r (a
        fresh resolve); addresses from avahi-daemon's own cache (its SIGUSR1 dump), per host."""
        try:
            rows = [r for r in self.lan.avahi_browse(timeout=180) if r.event == "=" and r.type.startswith("_stress")]
        except Exception as error:  # noqa: BLE001 — evidence only
            return {"error": repr(error)}
        avahi: dict[str, set] = {}
        for row in rows:
            txt = json.dumps(dict(t.split("=", 1) for t in row.txt if "=" in t), sort_keys=True)
            avahi.setdefault(row.host, set()).add((row.name, row.type, "local", row.port, txt))
        try:
            listed = {(r.name, r.type) for r in self.lan.avahi_browse(timeout=120)
                      if r.event == "+" and r.type.startswith("_stress")}
        except Exception:  # noqa: BLE001 — evidence only
            listed = set()
        cached = self.avahi_cached_addresses()
        agree, disagree, addresses = [], [], {}
        for host in d["missing"] + d["unexpected"] + list(d["different"]):
            mine = {tuple(s) for s in seen[host]["services"]} if host in seen else set()
            listed_here = {(n, t) for n, t in listed if n == f"S{host.split('.')[0][1:]}"}
            same_services = avahi.get(host, set()) == mine or listed_here == {(s[0], s[1]) for s in mine}
            same_addresses = host not in seen or sorted(cached.get(host, set())) == seen[host]["addresses"]
            (agree if same_services and same_addresses else disagree).append(host)
            if host in d["different"] and len(addresses) < 20:
                addresses[host] = {"expected": d["different"][host]["expected"]["addresses"],
                                   "peerscand": seen[host]["addresses"], "avahi_cache": sorted(cached.get(host, []))}
        return {"hosts_as_avahi_shows_them": len(agree), "hosts_avahi_shows_otherwise": disagree[:20],
                "addresses": addresses, "udp": self.udp_drops()}

    def avahi_cached_addresses(self) -> dict[str, set[str]]:
        """avahi-daemon's cached A and AAAA records, by host name, from the cache dump it writes to its log on
        SIGUSR1."""
        log = self.lan.tmpdir / "avahi.log"
        start = log.stat().st_size if log.exists() else 0
        try:
            os.kill(self.lan.avahi_pid, signal.SIGUSR1)
        except (OSError, TypeError):
            return {}
        time.sleep(2)
        with open(log, errors="replace") as f:
            f.seek(start)
            text = f.read()
        out: dict[str, set[str]] = {}
        in_cache = False
        for line in text.splitlines():
            if line.startswith(";;; CACHE DUMP FOLLOWS"):
                in_cache = True
            elif line.startswith(";;;"):
                in_cache = line.startswith(";;; CACHE")
            elif in_cache and "\tIN\tA" in line:
                name, _, record = line.split("\t", 2)
                out.setdefault(name, set()).add(record.split(" ")[1].split(";")[0].strip())
        return out

    def check_clients(self, what: str) -> dict:
        """Every client's replayed state equals GetSnapshot at its sequence; no client saw a broken stream."""
        answer = self.daemon.get_snapshot()
        sequence, epoch = answer["sequence"], answer["epoch"]
        expected = canonical(answer["snapshot"])
        self.follower.wait_sequence(sequence, timeout=60)
        self.fleet.wait_sequence(sequence, epoch, timeout=60)
        now = self.daemon.get_snapshot()
        assert now["sequence"] == sequence, f"{what}: peerscand published during the check (not settled)"
        problems = []
        if self.follower.errors:
            problems.append(f"applier follower: {self.follower.errors[:5]}")
        if self.follower.history.get(sequence) != expected:
            problems.append("the applier follower's state != GetSnapshot")
            self.save(f"{what}-follower.json", {"follower": json.loads(self.follower.history.get(sequence, "null")),
                                                "snapshot": normalise(answer["snapshot"])})
        problems += self.fleet.errors()[:20]
        wrong = [n for n, state in self.fleet.states().items() if state != expected]
        if wrong:
            problems.append(f"fleet clients {wrong[:10]} ({len(wrong)}) != GetSnapshot")
            self.save(f"{what}-fleet.json", {"client": json.loads(self.fleet.states()[wrong[0]]),
                                             "snapshot": normalise(answer["snapshot"])})
        assert not problems, f"{what} (seed {self.seed}, evidence {self.evidence}): {problems}"
        with self.follower.condition:  # what was checked is not needed again (a canonical snapshot per sequence)
            self.follower.history = {k: v for k, v in self.follower.history.items() if k >= sequence}
        return {"sequence": sequence, "clients": 1 + len(self.fleet.clients), **self.fleet.totals()}

    def save(self, name: str, data: Any) -> None:
        (self.evidence / name).write_text(json.dumps(data, indent=1, default=str))

    def changesets_touching_devices(self, start: int) -> list[tuple[int, list[str]]]:
        """The changesets after sequence `start` (the follower's) that insert, delete, update or move a device:
        (sequence, ids)."""
        out = []
        with self.follower.condition:
            replies = [r for r in self.follower.replies if r["sequence"] > start and r.get("changes")]
        for reply in replies:
            ids = []
            for kind in ("itemInserts", "itemUpdates"):
                ids += [e["item"]["id"] for e in reply["changes"].get(kind, []) if e["item"].get("kind") == "peer"]
            for kind in ("itemDeletes", "itemMoves"):
                ids += [e["id"] for e in reply["changes"].get(kind, []) if e["from"][0] == 1 or
                        e.get("to", [0])[0] == 1]
            if ids:
                out.append((reply["sequence"], ids))
        return out


@pytest.fixture(scope="session")
def stress():
    if os.geteuid() != 0:
        pytest.exit("the stress suite creates network namespaces: run it as root", 2)
    if not PEERSCAND.exists():
        pytest.exit(f"{PEERSCAND} is missing: run `swift build` first (or set PEERSCAND)", 2)
    if CAPTURE and shutil.which("tcpdump") is None:
        pytest.exit("STRESS_PCAP=1 captures with tcpdump, which is not installed (apt-get install tcpdump)", 2)
    prof = profile()
    seed = int(os.environ.get("STRESS_SEED", str(int(time.time()))))
    evidence = ROOT / ".build" / "stress" / f"{time.strftime('%Y%m%d-%H%M%S')}-{prof.name}-{seed}"
    evidence.mkdir(parents=True)
    print(f"\nstress: profile {prof.name}, seed {seed}, evidence {evidence}", flush=True)
    started = time.monotonic()
    with TestLAN() as lan:
        # Debian's stock avahi-daemon.conf: one client may own 1,024 objects, which peerscand outgrows by opening more
        # clients; the cache holds 4,096 records per interface and protocol, which bounds the profile (see
        # test_avahi_limits.py).
        lan.avahi_server_options = {}
        state = lan.tmpdir / "state"
        state.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "peerscan-stress", str(state)], check=True)
        capture = None
        try:
            if CAPTURE:
                capture = lan.popen_in_scanner(["tcpdump", "-q", "-Z", "root", "-i", "lan0", "-U", "-B", "16384", "-w",
                                                str(evidence / "mdns.pcap"), "udp", "port", "5353"],
                                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            s = Stress(lan, evidence, prof, seed, state)
            s.start_avahi()
            s.report["avahi_receive_buffer"] = AVAHI_RECEIVE_BUFFER
            s.world.populate()
            s.report["setup_s"] = time.monotonic() - started
            s.daemon.start()
            yield s
        finally:
            try:
                if "s" in locals():
                    s.report["peerscand_final"] = s.daemon.stats()
                    s.save("report.json", s.report)
                    if s.fleet:
                        s.fleet.close()
                    if s.follower:
                        s.follower.close()
                    if s.daemon.process and s.daemon.process.poll() is None:
                        s.daemon.stop()
                if (lan.tmpdir / "avahi.log").exists():  # gone if a signal already tore the LAN down
                    shutil.copy(lan.tmpdir / "avahi.log", evidence / "avahi.log")
            finally:
                if capture is not None:
                    capture.terminate()
                    capture.wait(timeout=10)
                subprocess.run(["umount", "-l", str(state)], check=False)
    print(f"stress: report {evidence / 'report.json'}", flush=True)
