"""A home LAN at rest: peerscand's memory beside avahi-daemon's, and how fast `peerscanctl list` answers against
`ip neigh` and `avahi-browse -at`.

Run as root (needs the release build: ``swift build -c release --static-swift-stdlib --product peerscand`` and
``--product peerscanctl``, as `make bench-footprint` does; PEERSCAND and PEERSCANCTL override the binaries)::

    .venv/bin/python -m benchmarks.footprint [--peers 15] [--hosts 35] [--idle-seconds 60] [--runs 100] [--json]

Method. One test LAN (testlan/) with a real avahi-daemon in the scanner's namespace, as a home LAN: ``--peers``
hosts that speak mDNS (python-zeroconf responders, 1–3 services each: printers, speakers, NAS, laptops) and
``--hosts`` that speak none (phones, plugs, TVs: they answer ARP and NDP only, half of them with a real vendor's MAC
address). peerscand starts with its defaults (as root: the neighbour table's forced re-probes, mDNS through the
avahi-daemon, a registry in a fresh state directory) and runs until its snapshot holds every device, then
``--idle-seconds`` more with nothing changing. Reported at the end of the idle window: the RSS of peerscand,
avahi-daemon and dbus-daemon (/proc/PID/status), peerscand's RSS by kind (/proc/PID/smaps_rollup: file-backed pages —
the binary and libraries it touched — against anonymous ones: heap, arenas, thread stacks), its threads, and its
CPU seconds over the window.

Then, in the same namespace and run, hyperfine (``-N``: no shell; ``--warmup 5``) times three commands that list the
LAN from start to exit: ``peerscanctl list`` (GetSnapshot over peerscand's socket, printed as the table),
``ip neigh`` (the kernel's neighbour table: the floor, a netlink dump and no more) and ``avahi-browse -at`` (every
service type and instance, from avahi-daemon's cache over D-Bus), and ``peerscanctl --version`` beside them: the same
executable's start and exit alone (the runtime's and Foundation's start, no connection), which ``list`` cannot go
below. Each command's mean, median, min and max wall time and its mean user and system CPU time (ms). peerscand's RSS
is read again after the list calls (``rss_after_lists_mib``: what answering costs it at rest).

Caveats: the responders send nothing at rest but their re-announcements at TTL refresh; the machine is shared, so
compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from testclient import applier
from testkit import proc
from testkit.peerscand import Peerscand, command
from testkit.waiting import wait_until
from testlan.lan import TestLAN, random_mac, real_oui_mac

ROOT = Path(__file__).resolve().parents[1]
PEERSCAND = Path(os.environ.get("PEERSCAND", ROOT / ".build" / "release" / "peerscand"))
PEERSCANCTL = Path(os.environ.get("PEERSCANCTL", ROOT / ".build" / "release" / "peerscanctl"))

# What a home LAN's mDNS hosts publish, one peer after another round the list.
SERVICES = (
    ("_ipp._tcp", "_http._tcp"),
    ("_raop._tcp", "_airplay._tcp", "_companion-link._tcp"),
    ("_smb._tcp", "_afpovertcp._tcp", "_http._tcp"),
    ("_googlecast._tcp",),
    ("_ssh._tcp", "_sftp-ssh._tcp"),
    ("_hap._tcp",),
)


def smaps_kib(pid: int) -> dict[str, int]:
    """The process's resident pages by kind, from /proc/PID/smaps_rollup (KiB)."""
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return {"rss": fields["Rss"], "anonymous": fields["Anonymous"], "file": fields["Rss"] - fields["Anonymous"]}


def threads(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def populate(lan: TestLAN, peers: int, hosts: int) -> None:
    for number in range(peers):
        peer = lan.add_peer(f"home{number}")
        peer.register_all(
            [
                {
                    "name": f"Home {number} {kind.split('.')[0][1:]}",
                    "type": kind,
                    "port": 8000 + i,
                    "txt": {"n": str(number)},
                }
                for i, kind in enumerate(SERVICES[number % len(SERVICES)])
            ]
        )
    for number in range(hosts):
        lan.add_host(f"quiet{number}", mac=real_oui_mac(number) if number % 2 else random_mac(number))


def hyperfine(lan: TestLAN, socket: Path, runs: int) -> dict[str, dict]:
    """Times the commands with hyperfine in the scanner namespace; returns each one's figures in ms."""
    exported = lan.tmpdir / "hyperfine.json"
    commands = {
        "peerscanctl list": f"{PEERSCANCTL} list --socket {socket}",
        "ip neigh": "ip neigh",
        "avahi-browse -at": "avahi-browse -at",
        "peerscanctl --version": f"{PEERSCANCTL} --version",
    }
    lan.run_in_scanner(
        [
            "hyperfine",
            "-N",
            "--warmup",
            "5",
            "--runs",
            str(runs),
            "--style",
            "none",
            "--export-json",
            str(exported),
            *commands.values(),
        ],
        timeout=600,
    )
    results = json.loads(exported.read_text())["results"]
    figures = ("mean", "stddev", "median", "min", "max", "user", "system")
    return {
        name: {key: round(result[key] * 1000, 2) for key in figures}
        for name, result in zip(commands, results, strict=True)
    }


def run(peers: int, hosts: int, idle_seconds: float, runs: int) -> dict:
    report: dict = {"peers": peers, "hosts": hosts, "idle_seconds": idle_seconds}
    with TestLAN() as lan:
        lan.start_avahi()
        populate(lan, peers, hosts)
        socket = lan.tmpdir / "io.peerscan"
        peerscand = Peerscand(
            command("--state-directory", str(lan.tmpdir / "state"), "--socket", str(socket), binary=PEERSCAND),
            socket,
            popen=lan.popen_in_scanner,
            log=lan.tmpdir / "peerscand.log",
        )
        started = time.monotonic()
        daemon = peerscand.start()
        peerscand.wait_serving()

        def device_count() -> int:
            listed = lan.run_in_scanner([str(PEERSCANCTL), "list", "--json", "--socket", str(socket)], check=False)
            return len(applier.devices(json.loads(listed.stdout)["snapshot"])) if listed.returncode == 0 else 0

        wait_until(
            lambda: device_count() >= peers + hosts,
            120,
            interval=0.5,
            what=f"{peers + hosts} devices",
            give_up=peerscand.exited,
            details=peerscand.log_tail,
        )
        report["all_devices_s"] = round(time.monotonic() - started, 2)
        report["devices"] = device_count()
        pids = {"peerscand": daemon.pid, "avahi-daemon": lan.avahi_pid, "dbus-daemon": lan._dbus.pid}
        cpu_before = proc.usage(daemon.pid).cpu_seconds
        time.sleep(idle_seconds)
        report["idle_rss_mib"] = {name: round(proc.usage(pid).rss_mib, 1) for name, pid in pids.items()}
        report["peerscand"] = {
            **{f"{kind}_mib": round(kib / 1024, 1) for kind, kib in smaps_kib(daemon.pid).items()},
            "peak_rss_mib": round(proc.usage(daemon.pid).peak_rss_mib, 1),
            "threads": threads(daemon.pid),
            "idle_cpu_s": round(proc.usage(daemon.pid).cpu_seconds - cpu_before, 2),
        }
        report["list_ms"] = hyperfine(lan, socket, runs)
        report["rss_after_lists_mib"] = round(proc.usage(daemon.pid).rss_mib, 1)
        peerscand.stop(20)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peers", type=int, default=15, help="hosts that speak mDNS")
    parser.add_argument("--hosts", type=int, default=35, help="hosts that speak no mDNS")
    parser.add_argument("--idle-seconds", type=float, default=60)
    parser.add_argument("--runs", type=int, default=100, help="hyperfine's runs of each command")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = run(args.peers, args.hosts, args.idle_seconds, args.runs)
    print(json.dumps(report, indent=None if args.json else 1))


if __name__ == "__main__":
    main()
