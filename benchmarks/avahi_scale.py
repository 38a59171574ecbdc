"""A large LAN under a stock avahi-daemon: what peerscand follows, how fast, and what it costs at rest.

Run as root: ``.venv/bin/python -m benchmarks.avahi_scale [--hosts 300] [--idle-seconds 600] [--json]``
(needs ``swift build -c release`` first; PEERSCAND=path overrides ``.build/release/peerscand``).

Method. One test LAN (testlan/) with Debian's stock avahi-daemon limits (nothing raised: `objects-per-client-max`
1,024, `cache-entries-max` 4,096; its mDNS sockets get an 8 MiB receive buffer as in `make stress`, so no datagram is
lost to a full socket buffer). Four responder namespaces publish ``--hosts`` virtual hosts with 4 services each (one
IPv4 and one IPv6 address per host), in chunks of 60 hosts. Then, at once:

- peerscand starts (``--no-neighbour-table --probe-interval 0``: mDNS only) and ``avahi-browse -a -r -p -t`` starts
  next to it. Measured: the time until peerscand's snapshot holds every published service with both of its host's
  addresses ("complete first snapshot"), and the time until avahi-browse exits (it has resolved what it will) and how
  many services it resolved (``=`` rows, distinct (instance, type)).
- Then ``avahi-browse -a -p -t`` (no resolving) lists the services at the same moment peerscand's snapshot is read:
  services listed, services peerscand follows (with both addresses), and peerscand's refusals (``avahi resolver
  refused``, ``avahi browser failed``) and Avahi clients (``avahi client added``).
- Idle: ``--idle-seconds`` with nothing changing; CPU (user + system, /proc/PID/stat) and RSS of peerscand,
  avahi-daemon and dbus-daemon over the window, as CPU seconds per hour. D-Bus messages: ``dbus-monitor --profile`` on
  the private bus, one line per message (at startup peerscand's and avahi-browse's together; at rest peerscand's
  alone, nothing else is on the bus).

``--one-client`` raises `objects-per-client-max` instead, so peerscand holds everything on one connection: the
baseline for what spreading the objects over several clients costs avahi-daemon and the bus.

Caveats: a veth LAN without loss; the responders are python-zeroconf, whose re-announcements at TTL refresh are the
only traffic at rest; CPU is shared with whatever else runs on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import threading
import time
from pathlib import Path

from testclient import applier
from testkit import proc
from testkit.peerscand import Peerscand, command
from testlan.daemons import AVAHI_RECEIVE_BUFFER, enlarge_receive_buffers
from testlan.lan import TestLAN

ROOT = Path(__file__).resolve().parents[1]
PEERSCAND = Path(os.environ.get("PEERSCAND", ROOT / ".build" / "release" / "peerscand"))

TYPES = ("_scale0._tcp", "_scale1._tcp", "_scale2._tcp", "_scale3._tcp")


def cpu_seconds(pid: int) -> float:
    return proc.usage(pid).cpu_seconds


def rss_mib(pid: int) -> float:
    return proc.usage(pid).rss_mib


class BusCounter:
    """Counts the messages on the test LAN's private bus: ``dbus-monitor --profile`` prints one line per message."""

    def __init__(self, lan: TestLAN) -> None:
        self.count = 0
        self.process = lan.popen_in_scanner(["dbus-monitor", "--address", lan.bus_address, "--profile"],
                                            stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            if line.split("\t", 1)[0] in ("sig", "mc", "mr", "err"):
                self.count += 1


def publish(lan: TestLAN, hosts: int) -> set[tuple[str, str]]:
    responders = [lan.add_peer(f"scaler{i}") for i in range(4)]
    services = set()
    for start in range(0, hosts, 60):
        batches: dict[int, list[dict]] = {}
        for number in range(start, min(hosts, start + 60)):
            addresses = [f"10.239.{number // 250}.{number % 250 + 1}", f"fd70:7363:6171::{number + 1:x}"]
            batches.setdefault(number % 4, []).extend(
                {"op": "register", "name": f"S{number}", "type": t, "port": 1000 + number, "txt": {"n": "1"},
                 "server": f"s{number}.local.", "addresses": addresses} for t in TYPES)
            services.update((f"S{number}", t) for t in TYPES)
        threads = [threading.Thread(target=responders[i].command, args=("batch", 300), kwargs={"ops": ops})
                   for i, ops in batches.items()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    return services


def followed(snapshot: dict) -> set[tuple[str, str]]:
    """(instance, type) of every service peerscand shows on a device with an IPv4 and an IPv6 address."""
    out = set()
    for device in applier.devices(snapshot).values():
        addresses = device.get("addresses") or []
        if any(":" in a for a in addresses) and any("." in a for a in addresses):
            out.update((s["name"], s["type"]) for s in device["services"] if s["type"] in TYPES)
    return out


def run(hosts: int, idle_seconds: float, one_client: bool) -> dict:
    report: dict = {"hosts": hosts, "services": hosts * len(TYPES),
                    "avahi": "objects-per-client-max=65536 (one client)" if one_client else "stock limits"}
    with TestLAN() as lan:
        if one_client:  # the baseline: what the same objects cost the daemon and the bus on one connection
            lan.avahi_server_options = {"objects-per-client-max": "65536"}
        lan.start_avahi(wait=False)
        deadline = time.monotonic() + 10
        while len(enlarge_receive_buffers(lan.avahi_pid, AVAHI_RECEIVE_BUFFER)) < 2 and time.monotonic() < deadline:
            time.sleep(0.002)
        lan.wait_avahi_ready()
        published = publish(lan, hosts)
        time.sleep(5)  # the last announcements are in avahi's cache
        avahi_pid, bus_pid = lan.avahi_pid, lan._dbus.pid
        bus = BusCounter(lan)
        time.sleep(1)
        state = lan.tmpdir / "state"
        socket = lan.tmpdir / "io.peerscan"
        before = {"avahi": cpu_seconds(avahi_pid), "dbus": cpu_seconds(bus_pid)}
        started = time.monotonic()
        peerscand = Peerscand(command("--state-directory", str(state), "--socket", str(socket), "--no-neighbour-table",
                                      "--probe-interval", "0", "--dump", binary=PEERSCAND),
                              socket, popen=lan.popen_in_scanner, stdout=subprocess.PIPE)
        daemon = peerscand.start()
        lines = peerscand.stderr_lines
        browse = lan.popen_in_scanner(["avahi-browse", "-a", "-r", "-p", "-t"], stdout=subprocess.PIPE, text=True)
        replay: dict = {"snapshot": None}
        complete_s = None

        def read_dump() -> None:
            nonlocal complete_s
            for line in daemon.stdout:
                message = json.loads(line)
                if message["event"] == "snapshot":
                    if not message.get("final"):
                        replay["snapshot"] = message["snapshot"]
                else:
                    replay["snapshot"] = applier.apply(replay["snapshot"], message["changes"])
                if complete_s is None and followed(replay["snapshot"]) >= published:
                    complete_s = time.monotonic() - started

        threading.Thread(target=read_dump, daemon=True).start()
        browse_out, _ = browse.communicate(timeout=600)
        report["avahi_browse_art_s"] = round(time.monotonic() - started, 2)
        report["avahi_browse_resolved"] = len({tuple(r.split(";")[3:5]) for r in browse_out.splitlines()
                                               if r.startswith("=;") and "_scale" in r})
        while complete_s is None and time.monotonic() - started < 600 and daemon.poll() is None:
            time.sleep(0.2)
        report["peerscand_complete_first_snapshot_s"] = round(complete_s, 2) if complete_s else None
        report["startup_bus_messages_both_clients"] = bus.count
        listed = lan.run_in_scanner(["avahi-browse", "-a", "-p", "-t"], timeout=120, check=False).stdout
        report["avahi_browse_listed"] = len({tuple(r.split(";")[3:5]) for r in listed.splitlines()
                                             if r.startswith("+;") and "_scale" in r})
        report["peerscand_followed"] = len(followed(replay["snapshot"]) & published)
        report["peerscand_refused"] = sum(1 for line in lines if "resolver refused" in line or "browser failed" in line)
        report["peerscand_avahi_clients"] = 1 + sum(1 for line in lines if "avahi client added" in line)
        report["startup_cpu_s"] = {"peerscand": cpu_seconds(daemon.pid), "avahi": cpu_seconds(avahi_pid) - before[
            "avahi"], "dbus": cpu_seconds(bus_pid) - before["dbus"]}

        pids = {"peerscand": daemon.pid, "avahi-daemon": avahi_pid, "dbus-daemon": bus_pid}
        messages_before = bus.count
        cpu_before = {name: cpu_seconds(pid) for name, pid in pids.items()}
        time.sleep(idle_seconds)
        report["idle_seconds"] = idle_seconds
        report["idle"] = {name: {"cpu_s_per_hour": round((cpu_seconds(pid) - cpu_before[name]) * 3600 / idle_seconds,
                                                         2), "rss_mib": round(rss_mib(pid), 1)}
                          for name, pid in pids.items()}
        report["idle_bus_messages_per_hour"] = round((bus.count - messages_before) * 3600 / idle_seconds)
        peerscand.stop(20)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=300)
    parser.add_argument("--idle-seconds", type=float, default=600)
    parser.add_argument("--one-client", action="store_true",
                        help="raise objects-per-client-max so one Avahi client holds everything (the baseline)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.hosts, args.idle_seconds, args.one_client)
    print(json.dumps(report, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
