"""The network scanner on the test LAN: discovery of silent hosts against arp-scan, and presence.

Run as root (needs ``swift build`` first; PEERSCAND=path overrides ``.build/debug/peerscand``)::

    /usr/bin/python3 -m benchmarks.scanner sweep [--hosts 250] [--prefix 24]
    /usr/bin/python3 -m benchmarks.scanner presence [--rounds 3] [--unprivileged]
    /usr/bin/python3 -m benchmarks.scanner flaps [--minutes 10] [--hosts 20] [--loss 1]

sweep — ``--hosts`` hosts (distinct MAC addresses, real OUIs and random ones) that speak no mDNS and send nothing on
their own, on one /24. peerscand starts with its defaults (--probe-interval 30); reported: the time from its start to
the last host listed (goal: within two probe intervals), its CPU seconds and RSS then, and the time ``arp-scan -l``
takes to list the same LAN (the anchor: a raw-socket sweep needing CAP_NET_RAW), with how many hosts each found. With
``--prefix 22`` (``--hosts 1000``) the LAN is a /22, the widest subnet peerscand sweeps, and the hosts are one block
that answers ARP from user space (testlan/silent.py: a namespace per host would put an entry per host in the kernel's
neighbour table too, which is global across namespaces); also reported: the most entries the scanner's table held, the
kernel's overflow lines and refused allocations meanwhile, and the `host` item's limits.

presence — one host goes silent (its link goes down) and comes back, ``--rounds`` times, with peerscand's defaults
(--probe-interval 30, --offline-after 60): the seconds from silence to ``online: false`` and from answering again to
``online: true``. With ``--unprivileged`` peerscand runs as nobody (no CAP_NET_ADMIN: the default unit), so the kernel
verifies entries only once they are stale.

flaps — ``--hosts`` hosts drop ``--loss`` percent of their ARP replies and neighbour advertisements at random
(nftables in their namespaces) for ``--minutes``; peerscand's defaults. Reported: offline transitions (goal: 0).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import re
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path

from testclient import applier
from testkit.peerscand import PEERSCAND, Peerscand, command
from testkit.waiting import wait_notified
from testlan.lan import TestLAN, random_mac, real_oui_mac
from testlan.silent import add_silent_block

ROOT = Path(__file__).resolve().parents[1]


class Daemon(Peerscand):
    """peerscand --dump in the scanner namespace: the current snapshot and the time of every change; its log in the
    LAN's temp dir."""

    def __init__(self, lan: TestLAN, *extra: str, user: int | None = None) -> None:
        state = lan.tmpdir / "state"
        state.mkdir(exist_ok=True)
        socket = lan.tmpdir / "io.peerscan"
        if user is not None:  # no capabilities at all, as the default unit runs it
            os.chown(state, user, user)
            os.chmod(lan.tmpdir, 0o777)
        super().__init__(command("--dump", "--state-directory", str(state), "--socket", str(socket), *extra, user=user),
                         socket, popen=lan.popen_in_scanner, log=lan.tmpdir / "peerscand.log", stdout=subprocess.PIPE)
        self.started = time.monotonic()
        self.start()
        self.snapshot: dict | None = None
        self.changes: list[tuple[float, dict]] = []  # (time its line arrived, snapshot after)
        self.arrived = 0.0  # when the line of the newest message applied arrived
        self.condition = threading.Condition()
        self._lines: queue.SimpleQueue[tuple[float, str | None]] = queue.SimpleQueue()
        threading.Thread(target=self._receive, daemon=True).start()
        threading.Thread(target=self._read, daemon=True).start()

    def _receive(self) -> None:
        """Timestamps each line as it arrives, apart from the replay (which lags behind on a loaded machine: applying
        a changeset to a snapshot of 1,000 devices is not free in Python)."""
        for line in self.process.stdout:
            self._lines.put((time.monotonic(), line))
        self._lines.put((time.monotonic(), None))

    def _read(self) -> None:
        while (received := self._lines.get())[1] is not None:
            arrived, line = received
            message = json.loads(line)
            with self.condition:
                if message["event"] == "snapshot":
                    self.snapshot = message["snapshot"]
                else:
                    self.snapshot = applier.apply(self.snapshot, message["changes"])
                    self.changes.append((arrived, self.snapshot))
                self.arrived = arrived
                self.condition.notify_all()

    def wait_for(self, predicate, timeout: float) -> float:
        """Waits until the snapshot satisfies ``predicate``; returns the time the line that made it so arrived."""
        with self.condition:
            wait_notified(self.condition, lambda: self.snapshot is not None and predicate(self.snapshot), timeout,
                          "peerscand to get there")
            return self.arrived



def macs(snapshot: dict) -> set[str]:
    return {mac for device in applier.devices(snapshot).values() for mac in device["macAddresses"]}


def device_of(snapshot: dict, mac: str) -> dict | None:
    return next((d for d in applier.devices(snapshot).values() if mac in d["macAddresses"]), None)


def sweep(hosts: int, prefix: int) -> dict:
    if prefix != 24:
        return sweep_block(hosts, prefix)
    with TestLAN() as lan:
        lan.start_avahi()
        made = time.monotonic()
        added = [lan.add_host(f"h{n}", mac=(real_oui_mac(n) if n % 2 else random_mac(n)),
                              ipv4=f"10.231.0.{2 + n}", ipv6=f"fd70:7363:616e::{2 + n:x}") for n in range(hosts)]
        made = time.monotonic() - made
        expected = {host.mac for host in added}
        daemon = Daemon(lan)
        try:
            done = daemon.wait_for(lambda s: expected <= macs(s), timeout=120)
            used = daemon.usage()
        finally:
            daemon.stop()
        found_by_arp_scan, arp_scan_seconds = lan.arp_scan()
        return {
            "hosts": hosts, "setup_seconds": round(made, 1),
            "peerscand_seconds_to_last_host": round(done - daemon.started, 2),
            "peerscand_cpu_seconds": round(used.cpu_seconds, 2), "peerscand_rss_mib": round(used.rss_mib, 1),
            "arp_scan_seconds": round(arp_scan_seconds, 2),
            "arp_scan_found": len(expected & set(found_by_arp_scan.values())),
        }


def sweep_block(hosts: int, prefix: int) -> dict:
    """sweep on a /``prefix`` (22: the widest peerscand sweeps) filled by a block of silent hosts (testlan.silent: one
    namespace answering ARP for them all, so the kernel's global neighbour table holds only the scanner's entries).
    Also reported: the most entries the scanner's table held, the kernel's `neighbour table overflow` lines and
    table-full count meanwhile (both machine-wide), and the `host` item's limits."""
    with TestLAN(prefix_length=prefix) as lan:
        lan.start_avahi()
        made = time.monotonic()
        block = add_silent_block(lan, hosts)
        made = time.monotonic() - made
        expected = set(block.macs)
        overflows, table_fulls = kernel_overflow_lines(), arp_table_fulls()
        watch = NeighbourWatch(lan)
        daemon = Daemon(lan, "--log-level", "debug")
        try:
            done = daemon.wait_for(lambda s: expected <= macs(s), timeout=120)
            used = daemon.usage()
            limits = applier.config_item(daemon.snapshot, "host").get("limits", [])
        finally:
            daemon.stop()
            watch.stop()
        found = len(expected & macs(daemon.snapshot))
        log = (lan.tmpdir / "peerscand.log").read_text(errors="replace")
        logged = logged_seconds_to_last(log, expected)
        lan.run_in_scanner(["ip", "neigh", "flush", "dev", "lan0"])  # arp-scan needs none: give them back
        found_by_arp_scan, arp_scan_seconds = lan.arp_scan()
        return {
            "hosts": hosts, "prefix": prefix, "setup_seconds": round(made, 1),
            "peerscand_found": found, "peerscand_seconds_to_last_host": round(done - daemon.started, 2),
            "peerscand_logged_seconds_to_last_host": logged,
            "peerscand_cpu_seconds": round(used.cpu_seconds, 2), "peerscand_rss_mib": round(used.rss_mib, 1),
            "arp_scan_seconds": round(arp_scan_seconds, 2),
            "arp_scan_found": len(expected & set(found_by_arp_scan.values())),
            "scanner_neighbour_entries_max": watch.most,
            "kernel_overflow_lines": kernel_overflow_lines() - overflows,
            "kernel_table_fulls": arp_table_fulls() - table_fulls, "host_limits": limits,
            "log": probe_rounds(log),
        }


class NeighbourWatch:
    """The most entries the scanner's neighbour table held, sampled every 0.2 s until `stop`."""

    def __init__(self, lan: TestLAN) -> None:
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, args=(lan,), daemon=True)
        self._thread.start()

    def _sample(self, lan: TestLAN) -> None:
        while not self._stop.wait(0.2):
            self.most = max(self.most, len(lan.scanner_neighbours()))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def logged_seconds_to_last(log: str, expected: set[str]) -> float | None:
    """From peerscand's log: the seconds from its first line to the `new device` line of the last of ``expected`` (MAC
    addresses) — when the store published it, apart from how fast a client replays; None if one is missing."""
    stamps: dict[str, float] = {}
    start = None
    for line in log.splitlines():
        parts = line.split(" ", 2)
        if len(parts) < 3 or not parts[0].endswith("Z"):
            continue
        stamp = datetime.fromisoformat(parts[0].replace("Z", "+00:00")).timestamp()
        start = stamp if start is None else start
        if parts[2].startswith("new device") and (mac := re.search(r"\bmac=(\S+)", line)) and mac[1] in expected:
            stamps.setdefault(mac[1], stamp)
    return round(max(stamps.values()) - start, 2) if start is not None and len(stamps) == len(expected) else None


def probe_rounds(log: str) -> list[dict]:
    """From peerscand's log at debug: each `probe round` line's counts (and `at`: seconds since the log's first line),
    and each `system limit reached` line's fields."""
    rounds, start = [], None
    for line in log.splitlines():
        stamp = line.split(" ", 1)[0]
        if not stamp.endswith("Z"):
            continue
        at = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        start = at if start is None else start
        if "probe round" in line or "system limit reached" in line:
            fields = {key: value.strip('"') for key, value in re.findall(r'(\w+)=("[^"]*"|\S+)', line)}
            rounds.append({"at": round(at - start, 1), "line": "round" if "probe round" in line else "limit",
                           **{k: v for k, v in fields.items()
                              if k in {"swept", "failures", "enobufs", "known", "limit", "value", "setting"}}})
    return rounds


def kernel_overflow_lines() -> int:
    """The kernel's `neighbour table overflow` lines in its ring buffer (machine-wide; rate-limited by the kernel)."""
    result = subprocess.run(["dmesg"], capture_output=True, text=True, check=False)
    return sum("table overflow" in line for line in result.stdout.splitlines())


def arp_table_fulls() -> int:
    """The IPv4 neighbour table's `table_fulls` (allocations refused at gc_thresh3), machine-wide, summed per CPU."""
    rows = Path("/proc/net/stat/arp_cache").read_text().splitlines()
    column = rows[0].split().index("table_fulls")
    return sum(int(row.split()[column], 16) for row in rows[1:])


def presence(rounds: int, unprivileged: bool) -> dict:
    with TestLAN() as lan:
        lan.start_avahi()
        lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])
        host = lan.add_host("plug", mac=real_oui_mac(7))
        daemon = Daemon(lan, user=65534 if unprivileged else None)
        offline, online = [], []
        try:
            daemon.wait_for(lambda s: device_of(s, host.mac) is not None, timeout=90)
            for _ in range(rounds):
                time.sleep(5)
                host.silence()
                silenced = time.monotonic()
                offline.append(daemon.wait_for(lambda s: not device_of(s, host.mac)["online"], timeout=300) - silenced)
                host.unsilence()
                back = time.monotonic()
                online.append(daemon.wait_for(lambda s: device_of(s, host.mac)["online"], timeout=120) - back)
        finally:
            daemon.stop()
        return {"mode": "unprivileged" if unprivileged else "CAP_NET_ADMIN", "rounds": rounds,
                "silent_to_offline_seconds": [round(x, 1) for x in offline],
                "answering_to_online_seconds": [round(x, 1) for x in online]}


def flaps(minutes: float, hosts: int, loss: float) -> dict:
    with TestLAN() as lan:
        lan.start_avahi()
        added = [lan.add_host(f"h{n}", mac=real_oui_mac(0x100 + n)) for n in range(hosts)]
        daemon = Daemon(lan)
        try:
            expected = {host.mac for host in added}
            daemon.wait_for(lambda s: expected <= macs(s), timeout=90)
            start = len(daemon.changes)
            for host in added:
                host.set_probe_loss(loss)
            time.sleep(minutes * 60)
            offline = sum(1 for _, snapshot in daemon.changes[start:]
                          for device in applier.devices(snapshot).values() if not device["online"])
            changes = len(daemon.changes) - start
            counts = [host.probe_loss_counts() for host in added]
        finally:
            daemon.stop()
        return {"hosts": hosts, "loss_percent": loss, "minutes": minutes, "changesets": changes,
                "offline_device_states_seen": offline, "answers_sent": sum(c[0] for c in counts),
                "answers_dropped": sum(c[1] for c in counts)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    sweep_parser = commands.add_parser("sweep")
    sweep_parser.add_argument("--hosts", type=int, default=250)
    sweep_parser.add_argument("--prefix", type=int, default=24, choices=[22, 23, 24],
                              help="the LAN's prefix length; below 24 the hosts are one silent block (testlan.silent)")
    presence_parser = commands.add_parser("presence")
    presence_parser.add_argument("--rounds", type=int, default=3)
    presence_parser.add_argument("--unprivileged", action="store_true")
    flaps_parser = commands.add_parser("flaps")
    flaps_parser.add_argument("--minutes", type=float, default=10)
    flaps_parser.add_argument("--hosts", type=int, default=20)
    flaps_parser.add_argument("--loss", type=float, default=1)
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("run as root: the test LAN is made of network namespaces")
    if not PEERSCAND.exists():
        parser.error(f"{PEERSCAND} is missing: run `swift build --product peerscand`")
    if args.command == "sweep":
        result = sweep(args.hosts, args.prefix)
    elif args.command == "presence":
        result = presence(args.rounds, args.unprivileged)
    else:
        result = flaps(args.minutes, args.hosts, args.loss)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
