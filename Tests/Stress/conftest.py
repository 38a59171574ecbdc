"""The reliability suite's harness: a large, churning mDNS LAN with a known ground truth, peerscand watching it, and a
fleet of Monitor clients on its real Unix socket.

Run as root: `make stress` (full scale) or `make stress-ci` (the bounded part CI runs); STRESS_PROFILE=ci|full picks
the scale, STRESS_SEED the churn's seed (printed, and kept with the evidence). Evidence (peerscand's and avahi's logs,
the seed, diffs of any mismatch, report.json with the numbers) goes to `.build/stress/<run>/`; STRESS_PCAP=1 adds the
scanner's mDNS traffic (`mdns.pcap`, tcpdump; ~35 MB for the full profile).

- **The LAN** (testlan/): a few responder namespaces, each one python-zeroconf process publishing many *virtual hosts*:
  services whose SRV record points to a host name of their own (`sN.local`) with addresses of their own. Every
  record is real mDNS on the LAN's veths, answered and cached by a real avahi-daemon in the scanner namespace.
- **Ground truth** (`World`, world.py, with the run's `Profile`): what the harness published, per host name: its
  services (instance name, type, port, TXT) and addresses. The churn (seeded) adds and removes hosts, services,
  addresses, and changes TXT and ports, never touching a host again within `COOLDOWN` (avahi replaces a cached record
  only once it is a second old) and never reusing a name or an address.
- **Clients**: one `MonitorFollower` (PyPI varlink + the independent `testclient/applier.py`) and a fleet of raw
  Monitor connections (`Fleet`, testclient/fleet.py: one thread, its own replayer) that resume with their epoch and
  last sequence after a disconnect, as a client of a restarted peerscand does.
- **A mismatch's evidence** (attribution.py): which differing hosts avahi-daemon itself shows as peerscand does.

This file holds the session (`Stress`: the checks the scenarios share), peerscand (`StressDaemon`, on
testkit.peerscand) and the fixture.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from testclient.fleet import Fleet
from testclient.varlinkclient import MonitorFollower, canonical, normalise
from testkit import proc
from testkit.peerscand import PEERSCAND, ROOT, Peerscand, command
from testkit.waiting import wait_until
from testkit.wire import RawConnection
from testlan.daemons import AVAHI_RECEIVE_BUFFER, enlarge_receive_buffers
from testlan.lan import TestLAN

from attribution import attribute
from world import Profile, World, diff, observed, profile

__all__ = ["PEERSCAND", "ROOT", "Stress", "StressDaemon"]  # what the tests take from here

CAPTURE = os.environ.get("STRESS_PCAP") == "1"


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


# ---------------------------------------------------------------------------------------------------------------
# peerscand and avahi-daemon


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
                attribution = attribute(self.lan, d, seen)
                self.save(f"{what}-diff.json", {**d, "attribution": attribution})
                pytest.fail(f"{what}: GetSnapshot != ground truth after {timeout} s: {len(d['missing'])} missing, "
                            f"{len(d['unexpected'])} unexpected, {len(d['different'])} different "
                            f"(seed {self.seed}; {self.evidence}); avahi-daemon's own view: {attribution}; "
                            f"e.g. {json.dumps(d)[:1000]}")
            time.sleep(0.5)

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
