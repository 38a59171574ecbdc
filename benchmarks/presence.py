"""Presence quality with Wi-Fi-like hosts on the test LAN (issue 23), against one ``arp-scan -l`` per round.

Run as root (needs ``swift build`` first; PEERSCAND=path overrides ``.build/debug/peerscand``)::

    /usr/bin/python3 -m benchmarks.presence [--minutes 10] [--hosts 30] [--leavers 5] [--unprivileged] [--seed 1]

``--hosts`` Wi-Fi-like hosts (testlan/wifi.py: their ARP and NDP answers come 0.2–2.5 s late, and 20–30 % of them,
drawn per host, never) stay for ``--minutes``; ``--leavers`` more, as Wi-Fi-like, really leave (their link goes down)
and come back, each in a loop: present for 30–60 s, gone until peerscand shows it offline and 5–15 s more, back until
peerscand shows it online. peerscand runs with ``--probe-interval 5 --offline-after 20`` as root (forced re-probes)
or, with ``--unprivileged``, as nobody without capabilities (the default unit: the kernel verifies an entry only once
it is stale). Every ``--arp-scan-every`` seconds, ``arp-scan -l`` with its defaults (500 ms timeout, 2 tries) runs
from an anchor host of its own on the same LAN (10.231.0.2, so its answers never touch the scanner's neighbour table)
and its finds among the staying hosts are counted.

Reported (one JSON line): false offline transitions (a staying host, or a leaver while present, shown offline; goal
0), the delay from leaving to ``online: false`` and from coming back to ``online: true`` (p50, p99, max, against
--offline-after), arp-scan's finds per round, and what the responders did (requests, answers, losses).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import threading
import time

from benchmarks.scanner import PEERSCAND, Daemon, device_of
from testlan.lan import TestLAN
from testlan.netns import INTERFACE, run
from testlan.wifi import add_wifi_host

PROBE_INTERVAL, OFFLINE_AFTER = 5, 20
ANCHOR = "10.231.0.2"


def percentile(values: list[float], share: float) -> float | None:
    """The nearest-rank percentile (``share`` in 0…1) of ``values``, or None when there are none."""
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[max(0, math.ceil(share * len(ordered)) - 1)], 1)


def summary(values: list[float]) -> dict:
    return {"count": len(values), "p50": percentile(values, 0.5), "p99": percentile(values, 0.99),
            "max": round(max(values), 1) if values else None}


def transitions(daemon: Daemon, macs: set[str]) -> list[tuple[float, str, bool]]:
    """(time, MAC address, online) of every change of a device's ``online`` after it was first listed."""
    state: dict[str, bool] = {}
    result = []
    with daemon.condition:
        changes = list(daemon.changes)
    for when, snapshot in changes:
        for mac in macs:
            device = device_of(snapshot, mac)
            if device is None:
                continue
            if mac in state and state[mac] != device["online"]:
                result.append((when, mac, device["online"]))
            state[mac] = device["online"]
    return result


class Leaver(threading.Thread):
    """One host that leaves and comes back until ``stop``; keeps when it was present and how long peerscand took."""

    def __init__(self, host, daemon: Daemon, rng: random.Random, stop: threading.Event, bound: float) -> None:
        super().__init__(daemon=True, name=f"leaver-{host.name}")
        self.host, self.peerscand, self.rng, self.stop, self.bound = host, daemon, rng, stop, bound
        self.present: list[tuple[float, float]] = []  # (since online again, until it left)
        self.departures: list[float] = []
        self.returns: list[float] = []
        self.missed = 0  # departures not shown within twice the bound
        self.error: BaseException | None = None

    def online_is(self, value: bool, timeout: float) -> float | None:
        try:
            return self.peerscand.wait_for(lambda s: device_of(s, self.host.mac)["online"] is value, timeout)
        except AssertionError:
            return None

    def run(self) -> None:
        try:
            since = time.monotonic()
            while not self.stop.wait(self.rng.uniform(30, 60)):
                if self.online_is(True, 30) is None:  # not in a false offline as it leaves (those are counted)
                    raise RuntimeError(f"{self.host.name} not online while present")
                left = time.monotonic()
                self.present.append((since, left))
                self.host.leave()
                shown = self.online_is(False, 2 * self.bound)
                if shown is None:
                    self.missed += 1
                else:
                    self.departures.append(shown - left)
                time.sleep(self.rng.uniform(5, 15))
                self.host.come_back()
                back = time.monotonic()
                shown = self.online_is(True, 60)
                if shown is None:
                    raise RuntimeError(f"{self.host.name} not online within 60 s of coming back")
                self.returns.append(shown - back)
                since = shown
            self.present.append((since, time.monotonic()))
        except BaseException as error:  # reported by the main thread
            self.error = error


def arp_scan(namespace: str) -> tuple[set[str], float]:
    """``arp-scan -l`` with its defaults on the anchor's interface: the MAC addresses that answered, the seconds."""
    started = time.monotonic()
    out = run("ip", "netns", "exec", namespace, "arp-scan", "-l", "-I", INTERFACE, "-q", "-x", "-g", timeout=60)
    return {line.split("\t")[1].lower() for line in out.splitlines() if "\t" in line}, time.monotonic() - started


def benchmark(minutes: float, hosts: int, leavers: int, unprivileged: bool, seed: int, arp_scan_every: float) -> dict:
    rng = random.Random(seed)
    bound = OFFLINE_AFTER + PROBE_INTERVAL + (45 if unprivileged else 0)
    with TestLAN() as lan:
        lan.start_avahi()
        lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])
        staying = [add_wifi_host(lan, f"w{n}", seed=seed * 1000 + n, loss=rng.uniform(0.2, 0.3)) for n in range(hosts)]
        leaving = [add_wifi_host(lan, f"l{n}", seed=seed * 1000 + 500 + n, loss=rng.uniform(0.2, 0.3))
                   for n in range(leavers)]
        anchor = lan.add_host("anchor", ipv4=ANCHOR, ipv6=False)
        daemon = Daemon(lan, "--probe-interval", str(PROBE_INTERVAL), "--offline-after", str(OFFLINE_AFTER),
                        user=65534 if unprivileged else None)
        stop = threading.Event()
        threads: list[Leaver] = []
        found_per_round: list[int] = []
        arp_scan_seconds: list[float] = []
        try:
            everyone = {host.mac for host in staying + leaving}
            daemon.wait_for(lambda s: all((d := device_of(s, mac)) and d["online"] for mac in everyone), timeout=120)
            started = time.monotonic()
            threads = [Leaver(host, daemon, random.Random(seed * 7 + n), stop, bound) for n, host in enumerate(leaving)]
            for thread in threads:
                thread.start()
            wanted = {host.mac for host in staying}
            while time.monotonic() - started < minutes * 60:
                found, seconds = arp_scan(anchor.namespace)
                found_per_round.append(len(found & wanted))
                arp_scan_seconds.append(seconds)
                time.sleep(max(0.0, min(arp_scan_every - seconds, started + minutes * 60 - time.monotonic())))
            stop.set()
            for thread in threads:
                thread.join(timeout=2 * bound + 90)
            elapsed = time.monotonic() - started
            changes = [t for t in transitions(daemon, everyone | {anchor.mac}) if t[0] >= started]
            offline_lines = [line for line in (lan.tmpdir / "peerscand.log").read_text().splitlines()
                             if " device offline " in line]
        finally:
            stop.set()
            daemon.stop()
        counts = [host.stop() for host in staying + leaving]
    errors = [str(thread.error) for thread in threads if thread.error]
    if errors:
        raise RuntimeError("; ".join(errors))
    false_offline = [(round(when - started, 1), mac) for when, mac, online in changes
                     if not online and (mac in wanted or any(
                         since <= when <= until for thread in threads if thread.host.mac == mac
                         for since, until in thread.present))]
    # How long each false offline lasted: until the device's next transition (online again).
    lasted = [next((later - started - at for later, other, online in changes if other == mac and online
                    and later - started > at), None) for at, mac in false_offline]
    requests = sum(c.get("requests", 0) for c in counts)
    return {
        "mode": "unprivileged" if unprivileged else "CAP_NET_ADMIN", "minutes": round(elapsed / 60, 1),
        "hosts": hosts, "leavers": leavers, "probe_interval": PROBE_INTERVAL, "offline_after": OFFLINE_AFTER,
        "false_offline": len(false_offline), "false_offline_at": false_offline[:10],
        "false_offline_lasted_s": summary([x for x in lasted if x is not None]),
        # The anchor: its kernel answers at once, always (a wired host, as a control).
        "anchor_offline": sum(1 for _, mac, online in changes if mac == anchor.mac and not online),
        "offline_lines": len(offline_lines),
        "departure_to_offline_s": summary([d for t in threads for d in t.departures]),
        "departures_missed": sum(t.missed for t in threads),
        "return_to_online_s": summary([r for t in threads for r in t.returns]),
        "arp_scan": {"rounds": len(found_per_round), "of": hosts, "found_min": min(found_per_round, default=None),
                     "found_median": statistics.median(found_per_round) if found_per_round else None,
                     "found_max": max(found_per_round, default=None),
                     "rounds_all_found": sum(1 for n in found_per_round if n == hosts),
                     "seconds_median": round(statistics.median(arp_scan_seconds), 2) if arp_scan_seconds else None},
        "responders": {"requests": requests, "answered": sum(c.get("answered", 0) for c in counts),
                       "lost_percent": round(100 * sum(c.get("lost", 0) for c in counts) / max(1, requests), 1)},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--hosts", type=int, default=30)
    parser.add_argument("--leavers", type=int, default=5)
    parser.add_argument("--unprivileged", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--arp-scan-every", type=float, default=30)
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("run as root: the test LAN is made of network namespaces")
    if not PEERSCAND.exists():
        parser.error(f"{PEERSCAND} is missing: run `swift build --product peerscand`")
    result = benchmark(args.minutes, args.hosts, args.leavers, args.unprivileged, args.seed, args.arp_scan_every)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
