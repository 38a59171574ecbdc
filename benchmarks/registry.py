"""The device registry: peerscand's startup with many known devices, and churn (what the registry adds to the
changeset path).

Run as root from the repository's root with the venv of ``make deps`` (it has the PyPI varlink client); needs ``swift
build`` first (PEERSCAND=path overrides ``.build/debug/peerscand``, and peerscan-bench is taken from the same
directory)::

    .venv/bin/python -m benchmarks.registry startup [--devices 10000] [--rounds 3]
    .venv/bin/python -m benchmarks.registry churn [--devices 1000] [--rate 100] [--seconds 60]

startup — ``peerscan-bench registry-fill`` writes a registry of ``--devices`` devices (each a host name, a MAC address
and two addresses); peerscand then starts ``--rounds`` times with it and as many times with an empty registry,
alternately, in the test LAN's scanner namespace (a real avahi-daemon, no peers). Reported per kind, as medians: the
seconds from exec to the socket answering, to the first snapshot (GetSnapshot, which waits for the initial browse
to settle), and peerscand's RSS then; and the ratios full/empty.

churn — ``peerscan-bench registry-churn``: in one process, ``--devices`` devices change presence or address
``--rate`` times a second, applied to a store that feeds the registry and to one that does not; reported: p50/p99 of
one apply with and without (their ratio), write batches per second, the database's size.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from testkit import wire
from testkit.peerscand import PEERSCAND, Peerscand, command
from testlan.lan import TestLAN

BENCH = PEERSCAND.with_name("peerscan-bench")


def start_once(lan: TestLAN, registry: Path) -> dict:
    state = lan.tmpdir / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir()
    socket = lan.tmpdir / "io.peerscan"
    daemon = Peerscand(command("--state-directory", str(state), "--registry", str(registry), "--socket", str(socket),
                               "--no-neighbour-table"), socket, popen=lan.popen_in_scanner)
    started = time.monotonic()
    daemon.start()
    try:
        daemon.wait_serving(60, interval=0.01)
        serving = time.monotonic() - started
        with wire.RawConnection(socket, timeout=30) as connection:
            reply = connection.call("io.peerscan.GetSnapshot")
        assert "parameters" in reply, reply
        first_snapshot = time.monotonic() - started
        rss = daemon.usage().rss_mib
        with wire.RawConnection(socket, timeout=30) as connection:
            known = len(connection.call("io.peerscan.ListKnownDevices")["parameters"]["devices"])
        return {"serving": serving, "first_snapshot": first_snapshot, "rss_mib": rss, "known": known}
    finally:
        daemon.stop()


def startup(devices: int, rounds: int) -> dict:
    with TestLAN() as lan:
        lan.start_avahi()
        full = lan.tmpdir / "full.sqlite"
        subprocess.run([str(BENCH), "registry-fill", "--devices", str(devices), "--database", str(full)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs: dict[str, list[dict]] = {"empty": [], "full": []}
        for _ in range(rounds):
            for kind in ("empty", "full"):
                copy = lan.tmpdir / f"{kind}-copy.sqlite"
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{copy}{suffix}").unlink(missing_ok=True)
                if kind == "full":
                    shutil.copy(full, copy)
                runs[kind].append(start_once(lan, copy))
        result: dict = {"devices": devices, "rounds": rounds, "database_kib": full.stat().st_size // 1024}
        for kind, samples in runs.items():
            result[kind] = {key: round(statistics.median(s[key] for s in samples), 3)
                            for key in ("serving", "first_snapshot", "rss_mib")}
            result[kind]["known"] = samples[0]["known"]
        result["ratio_full_to_empty"] = {key: round(result["full"][key] / result["empty"][key], 2)
                                         for key in ("serving", "first_snapshot", "rss_mib")}
        return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    start = commands.add_parser("startup")
    start.add_argument("--devices", type=int, default=10000)
    start.add_argument("--rounds", type=int, default=3)
    churn = commands.add_parser("churn")
    churn.add_argument("--devices", type=int, default=1000)
    churn.add_argument("--rate", type=int, default=100)
    churn.add_argument("--seconds", type=float, default=60)
    arguments = parser.parse_args()
    if arguments.command == "startup":
        print(json.dumps(startup(arguments.devices, arguments.rounds), indent=2))
    else:
        subprocess.run([str(BENCH), "registry-churn", "--devices", str(arguments.devices), "--rate",
                        str(arguments.rate), "--seconds", str(arguments.seconds)], check=True)


if __name__ == "__main__":
    main()
