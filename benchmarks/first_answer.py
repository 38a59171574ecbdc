"""The first answer: a fresh peerscand, from exec to its first GetSnapshot answer, and what that answer shows.

Run as root from the repository's root with the venv of ``make deps``; needs a build of peerscand and peerscan-bench
first (PEERSCAND=path overrides ``.build/debug/peerscand``; peerscan-bench is taken from beside the first binary)::

    .venv/bin/python -m benchmarks.first_answer [--rounds 3] [--devices 1000] [--binary PATH ...]

One test LAN (testlan/: network namespaces, a private bus, a real avahi-daemon in the scanner namespace) holds three
peers that answer ARP and NDP and publish one service each over mDNS (python-zeroconf), published before peerscand
starts. ``peerscan-bench registry-fill`` writes a registry of ``--devices`` devices (each a host name, a MAC address
and two addresses). Each round starts every binary (``--binary``, repeatable: e.g. main's and a branch's) in each of
four settings — avahi-daemon running or stopped, an empty registry or a copy of the full one — in turn, with a fresh
state directory and its default sources (mDNS, the neighbour table and its probing), as root in the scanner
namespace. The client connects every 5 ms until the socket takes it and asks GetSnapshot at once (which waits for the
initial browse to settle). Reported per binary and setting, as medians over the rounds:

- ``first_answer``: seconds from just before exec to the GetSnapshot reply;
- where the time went, from peerscand's own log lines (their RFC 3339 timestamps, against the exec's wall-clock time):
  ``registry_loaded`` (the ``registry loaded`` line), ``source_state`` (its first ``avahi state`` line: Avahi known
  running or not) and ``settled`` (``initial browse settled``, with its reason);
- ``named``: how many of the three peers the first snapshot already lists with their host name and service.

The anchor, measured in the same run: ``avahi-browse -a -r -t`` in the scanner namespace (what Avahi itself takes to
report all it knows and resolve it), as ``anchor_seconds``; every ``first_answer`` is also given as a ratio to it.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import socket as sockets
import statistics
import subprocess
import time
from pathlib import Path

from testclient import applier
from testkit import wire
from testkit.peerscand import PEERSCAND, Peerscand, command
from testlan.lan import TestLAN

PEERS = ("bench-printer", "bench-laptop", "bench-nas")
SERVICE = "_http._tcp"
SETTINGS = (("avahi", "empty"), ("avahi", "full"), ("no-avahi", "empty"), ("no-avahi", "full"))


def wait_for_socket(path: Path, timeout: float) -> None:
    """Returns once a connection to `path` is accepted (tried every 5 ms)."""
    deadline = time.monotonic() + timeout
    while True:
        probe = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
        try:
            probe.connect(str(path))
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.005)
        finally:
            probe.close()


def log_offset(lines: list[str], text: str, exec_wall: float) -> tuple[float | None, str]:
    """The seconds from exec to peerscand's first log line containing `text` (and that line), or None."""
    for line in lines:
        if text in line:
            stamp = datetime.datetime.fromisoformat(line.split(" ", 1)[0])
            return round(stamp.timestamp() - exec_wall, 3), line
    return None, ""


def named_peers(snapshot: dict) -> int:
    """How many of the peers the snapshot lists with their host name and their service."""
    devices = applier.devices(snapshot).values()
    return sum(1 for peer in PEERS if any(device["hostName"] == f"{peer}.local"
                                          and any(SERVICE in json.dumps(s) for s in device["services"])
                                          for device in devices))


def start_once(lan: TestLAN, binary: Path, registry: Path) -> dict:
    state = lan.tmpdir / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    socket = lan.tmpdir / "io.peerscan"
    socket.unlink(missing_ok=True)
    daemon = Peerscand(command("--state-directory", str(state), "--registry", str(registry), "--socket",
                               str(socket), "--log-level", "info", binary=binary), socket,
                       popen=lan.popen_in_scanner)
    exec_wall, started = time.time(), time.monotonic()
    daemon.start()
    try:
        wait_for_socket(socket, 60)
        with wire.RawConnection(socket, timeout=60) as connection:
            reply = connection.call("io.peerscan.GetSnapshot")
        first_answer = time.monotonic() - started
        time.sleep(0.2)  # the log lines of the settling reach the reader
        lines = list(daemon.stderr_lines)
        settled, line = log_offset(lines, "initial browse settled", exec_wall)
        reason = line.split("reason=", 1)[1].split(" ", 1)[0] if "reason=" in line else "-"
        return {"first_answer": first_answer, "named": named_peers(reply["parameters"]["snapshot"]),
                "registry_loaded": log_offset(lines, "registry loaded", exec_wall)[0],
                "source_state": log_offset(lines, "avahi state", exec_wall)[0], "settled": settled,
                "reason": reason}
    finally:
        daemon.stop()


def anchor(lan: TestLAN) -> float:
    """Seconds `avahi-browse -a -r -t` takes in the scanner namespace."""
    started = time.monotonic()
    lan.run_in_scanner(["avahi-browse", "-a", "-r", "-p", "-t", "-k"], timeout=30)
    return time.monotonic() - started


def median(samples: list[dict], key: str) -> float | None:
    values = [s[key] for s in samples if s[key] is not None]
    return round(statistics.median(values), 3) if values else None


def run(binaries: list[Path], devices: int, rounds: int) -> dict:
    bench = binaries[0].with_name("peerscan-bench")
    with TestLAN() as lan:
        lan.start_avahi()
        for peer in PEERS:
            lan.add_peer(peer).register(peer.replace("-", " ").title(), SERVICE, 80)
        lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])  # as systemd sets it
        full = lan.tmpdir / "full.sqlite"
        subprocess.run([str(bench), "registry-fill", "--devices", str(devices), "--database", str(full)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples: dict[tuple[str, str, str], list[dict]] = {}
        anchors = []
        for _ in range(rounds):
            if not lan.avahi_running:
                lan.start_avahi()
            anchors.append(anchor(lan))
            for avahi, registry in SETTINGS:
                if (avahi == "avahi") != lan.avahi_running:
                    lan.start_avahi() if avahi == "avahi" else lan.stop_avahi()
                for binary in binaries:
                    copy = lan.tmpdir / "registry.sqlite"
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{copy}{suffix}").unlink(missing_ok=True)
                    if registry == "full":
                        shutil.copy(full, copy)
                    samples.setdefault((str(binary), avahi, registry), []).append(start_once(lan, binary, copy))
        anchor_seconds = round(statistics.median(anchors), 3)
        results = []
        for (binary, avahi, registry), runs in samples.items():
            first = median(runs, "first_answer")
            results.append({
                "binary": binary, "avahi": avahi, "registry": registry, "first_answer": first,
                "ratio_to_anchor": round(first / anchor_seconds, 2),
                **{key: median(runs, key) for key in ("registry_loaded", "source_state", "settled")},
                "reasons": sorted({s["reason"] for s in runs}), "named": [s["named"] for s in runs],
            })
        return {"devices": devices, "rounds": rounds, "peers": len(PEERS), "anchor_seconds": anchor_seconds,
                "results": results}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--binary", type=Path, action="append", help="a peerscand (repeatable; default: PEERSCAND)")
    arguments = parser.parse_args()
    binaries = arguments.binary or [PEERSCAND]
    print(json.dumps(run(binaries, arguments.devices, arguments.rounds), indent=2))


if __name__ == "__main__":
    main()
