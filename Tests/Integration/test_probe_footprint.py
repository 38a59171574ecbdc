"""peerscand's footprint on the wire, whatever its clients do: a storm of SetScanning calls starts at most one probe
round per floor (5 s), every datagram of a round is paced (--probe-rate), and the daemon keeps serving meanwhile.

The frames are counted where they leave: a packet socket on the scanner's lan0 that sees every outgoing frame
(`PACKET_OUTGOING`), so the count is what the LAN receives, ARP retransmissions by the kernel included."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time

from testclient.varlinkclient import client
from testkit.waiting import wait_until

FLOOR = 5.0  # ProbeService.defaultFloor
RATE = 100  # slow enough that a /24 sweep (253 addresses) lasts 2.5 s: the ceiling shows in 1-s windows
PROBE_KINDS = {"arp", "udp9", "echo", "ns"}  # what a probe round makes the scanner send; the rest is Avahi's, replies

# Prints one line per frame leaving lan0: monotonic time (when read: to window the test's steps), kind, target, and
# the kernel's timestamp of the frame (SO_TIMESTAMPNS: when it left, whatever the load delays the reader by; the rate
# is measured on it).
COUNTER = r"""
import socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 23)
s.bind(("lan0", 0))
s.setsockopt(socket.SOL_SOCKET, 35, 1)  # SO_TIMESTAMPNS: its SCM_TIMESTAMPNS (35) comes with each frame
print("ready", flush=True)
while True:
    data, ancillary, _, address = s.recvmsg(65535, socket.CMSG_SPACE(16))
    left = next(sec + nsec / 1e9 for level, kind, cdata in ancillary if level == socket.SOL_SOCKET and kind == 35
                for sec, nsec in [struct.unpack("qq", cdata[:16])])
    if address[2] != socket.PACKET_OUTGOING:
        continue
    kind, target, ethertype = "other", "-", struct.unpack("!H", data[12:14])[0]
    if ethertype == 0x0806:
        kind = "arp" if data[21] == 1 else "arp-reply"
        target = socket.inet_ntoa(data[38:42])
    elif ethertype == 0x0800 and data[23] == 17:
        start = 14 + (data[14] & 15) * 4
        port = struct.unpack("!H", data[start + 2:start + 4])[0]
        kind, target = ("udp9" if port == 9 else f"udp{port}"), socket.inet_ntoa(data[30:34])
    elif ethertype == 0x86DD and data[20] == 58:
        kind = {128: "echo", 135: "ns", 136: "na"}.get(data[54], f"icmp6-{data[54]}")
        target = socket.inet_ntop(socket.AF_INET6, data[38:54])
    print(f"{time.monotonic():.6f} {kind} {target} {left:.9f}", flush=True)
"""


class FrameCounter:
    """The frames leaving the scanner's lan0 while it runs (a packet socket in the scanner namespace)."""

    def __init__(self, lan) -> None:
        self.frames: list[tuple[float, str, str, float]] = []
        self.process = lan.popen_in_scanner([sys.executable, "-c", COUNTER], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout.readline().strip() == "ready"
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            stamp, kind, target, left = line.split()
            self.frames.append((float(stamp), kind, target, float(left)))

    def between(self, start: float, end: float,
                kinds: set[str] | None = PROBE_KINDS) -> list[tuple[float, str, str, float]]:
        """The frames sent in [start, end), of these kinds (None: all)."""
        return [frame for frame in list(self.frames)
                if start <= frame[0] < end and (kinds is None or frame[1] in kinds)]

    def wait_for_quiet(self, quiet: float = 1.5, timeout: float = 30) -> None:
        """Returns once no probe frame has left for `quiet` seconds: a round's last ARP retransmissions (a second
        apart) are done, and the next window counts none of them."""
        def silent() -> bool:
            last = max((frame[0] for frame in list(self.frames) if frame[1] in PROBE_KINDS), default=0.0)
            return time.monotonic() - last >= quiet
        wait_until(silent, timeout, what=f"{quiet} s without a probe frame", interval=0.2)

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=5)
        self.reader.join(timeout=5)


def first_requests(frames: list[tuple[float, str, str, float]]) -> list[float]:
    """When each target's first ARP request of a round left (the kernel's retransmissions, a second apart, are left
    out): one per datagram the sweep handed to the kernel."""
    last: dict[str, float] = {}
    firsts: list[float] = []
    for _, kind, target, stamp in frames:  # the kernel's time: when the frame left
        if kind == "arp":
            if stamp - last.get(target, -10.0) > 1.5:
                firsts.append(stamp)
            last[target] = stamp
    return firsts


def most_first_requests_in_a_second(frames: list[tuple[float, str, str, float]]) -> int:
    """The most ARP requests for a new target in any 1-s window."""
    firsts = first_requests(frames)
    most, start = 0, 0
    for end in range(len(firsts)):
        while firsts[end] - firsts[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    return most


def probe_rounds(daemon) -> list[str]:
    return [line for line in daemon.stderr_lines if "probe round" in line]


def test_a_set_scanning_storm_sends_at_most_one_round_per_floor_and_the_daemon_keeps_serving(
        lan, start_varlink_daemon, socket_path):
    for index in range(3):  # hosts that answer: re-verified every round (forced probes, as root)
        lan.add_host(f"quiet{index}")
    lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])
    daemon = start_varlink_daemon("--probe-interval", "3600", "--probe-rate", str(RATE), "--offline-after", "600",
                                  "--forget-after", "3600", mdns_only=False)
    counter = FrameCounter(lan)
    try:
        control = client(socket_path).open("io.peerscan", namespaced=False)
        wait_until(lambda: len(probe_rounds(daemon)) >= 1, 30, what="the first probe round")
        time.sleep(FLOOR)  # its floor over, its ARP retransmissions done

        # One round, asked for: what a round sends.
        start = time.monotonic()
        control.SetScanning(False)
        control.SetScanning(True)
        wait_until(lambda: len(probe_rounds(daemon)) >= 2, 30, what="the asked-for round")
        counter.wait_for_quiet()  # the kernel's three ARP requests a second apart, for every silent address
        one_round = counter.between(start, time.monotonic())
        per_round = len(one_round)
        assert per_round >= 253, f"a round sweeps the /24: {per_round} frames"
        busiest_second = most_first_requests_in_a_second(one_round)
        assert busiest_second <= RATE + RATE // 50 + 5, f"{busiest_second} new ARP targets in a second at {RATE}/s"
        sweep = first_requests(one_round)
        sweep_span = sweep[-1] - sweep[0]

        # The storm, with another client reading all along.
        latencies: list[float] = []
        storming = threading.Event()
        storming.set()

        def read() -> None:
            reader = client(socket_path).open("io.peerscan", namespaced=False)
            while storming.is_set():
                asked = time.monotonic()
                reader.GetSnapshot()
                latencies.append(time.monotonic() - asked)

        reader = threading.Thread(target=read)
        rounds_before = len(probe_rounds(daemon))
        storm_start = time.monotonic()
        reader.start()
        for index in range(3000):
            control.SetScanning(index % 2 == 1)  # off, on, off, on … ending on
        storm_end = time.monotonic()
        storming.clear()
        reader.join(timeout=30)
        # The asks of the storm's last floor are served by one round at its end; then its retransmissions.
        time.sleep(FLOOR + 1)  # the last round has begun (one floor after the last ask)
        counter.wait_for_quiet()
        storm = counter.between(storm_start, time.monotonic())
        everything = counter.between(storm_start, time.monotonic(), kinds=None)
    finally:
        counter.stop()

    duration = storm_end - storm_start
    rounds = len(probe_rounds(daemon)) - rounds_before
    bound_rounds = int(duration // FLOOR) + 2  # the first at once, one per floor, one at the end for the last asks
    print(f"\nstorm: 3000 SetScanning in {duration:.2f} s; {rounds} rounds (bound {bound_rounds}); "
          f"{len(storm)} probe frames, {per_round} per round; {len(everything) - len(storm)} other frames; "
          f"sweep at {RATE}/s: {len(sweep)} addresses in {sweep_span:.2f} s; "
          f"most new ARP targets in 1 s: {busiest_second}; "
          f"GetSnapshot during the storm: {len(latencies)}, slowest {max(latencies) * 1000:.0f} ms")
    assert 1 <= rounds <= bound_rounds, f"{rounds} rounds in a {duration:.1f}-s storm"
    assert len(storm) <= bound_rounds * per_round * 1.1, f"{len(storm)} frames for at most {bound_rounds} rounds"
    assert most_first_requests_in_a_second(storm) <= RATE + RATE // 50 + 5
    assert len(latencies) >= 10 and max(latencies) < 2.0, "the daemon kept serving another client"
