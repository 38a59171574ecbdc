"""The stress suite's LAN as it should be: the run's scale (`Profile`), the ground truth (`World`: what the harness
published, per host name) and its seeded churn, and a snapshot's devices in the truth's form (`observed`, `diff`).

The churn adds and removes hosts, services, addresses, and changes TXT and ports, never touching a host again within
`COOLDOWN` (avahi replaces a cached record only once it is a second old) and never reusing a name or an address.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from testclient import applier
from testlan.lan import Peer, TestLAN

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
TYPES = tuple(f"_stress{k}._tcp" for k in range(8))
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


@dataclass
class VirtualHost:
    """A host name of its own (`sN.local`) with its addresses and services, published by one responder."""

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
