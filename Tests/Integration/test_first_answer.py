"""A fresh peerscand's first answer (GetSnapshot, which waits for the initial browse to settle): without Avahi it does
not wait for a browse that cannot happen, and a host the registry knows by its mDNS name, which answers the kernel
before its records are there again, is in the first snapshot by its name and services, not as a bare MAC address."""

from __future__ import annotations

import threading
import time

from benchmarks.first_answer import wait_for_socket
from testclient import applier
from testkit import wire
from testkit.waiting import wait_until

from conftest import Daemon

# The time limit of the initial browse, far above what the first answer needs: a first answer before it came from
# what the gate waited for, not from the time limit.
STARTUP_SETTLE = "20"
SCANNER = ("--probe-interval", "30", "--offline-after", "60", "--startup-settle", STARTUP_SETTLE)


def first_snapshot(daemon: Daemon) -> tuple[dict, float]:
    """The first GetSnapshot answer a client gets, asked as soon as the socket takes it; and the seconds since
    peerscand's exec (`daemon.started`)."""
    wait_for_socket(daemon.socket, 20)
    with wire.RawConnection(daemon.socket, timeout=15) as connection:
        reply = connection.call("io.peerscan.GetSnapshot")
    return reply["parameters"]["snapshot"], time.monotonic() - daemon.started


def start(lan, state, *extra: str) -> Daemon:
    lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])  # as systemd sets it
    daemon = Daemon(lan, state, *SCANNER, *extra, mdns_only=False)
    daemon.started = time.monotonic()  # just after exec: Daemon starts the process when it is made
    return daemon


def settled_reason(daemon: Daemon) -> str:
    """The reason of peerscand's `initial browse settled` line (waiting up to 5 s for its log reader)."""
    def line() -> str | None:
        return next((s for s in daemon.stderr_lines if "initial browse settled" in s), None)

    wait_until(lambda: line() is not None, 5, what="initial browse settled")
    return line().split("reason=", 1)[1].split(" ", 1)[0]


def test_without_avahi_the_first_answer_waits_only_for_the_neighbour_table(lan, tmp_path):
    lan.stop_avahi()
    peer = lan.add_peer("plain-host")  # answers ARP
    daemon = start(lan, tmp_path / "state")
    try:
        snapshot, seconds = first_snapshot(daemon)
        print(f"first answer without Avahi after {seconds:.2f} s")
        assert settled_reason(daemon) == "source-down"
        macs = {n["lladdr"] for n in lan.scanner_neighbours() if n["dst"] == peer.ipv4 and "lladdr" in n}
        assert macs, "the kernel resolved the peer's address"
        assert any(macs & set(d["macAddresses"]) for d in applier.devices(snapshot).values()), snapshot
    finally:
        daemon.stop()


def test_a_known_host_is_named_in_the_first_snapshot(lan, tmp_path):
    state = tmp_path / "state"
    printer = lan.add_peer("office-printer")
    printer.register("Office Printer", "_ipp._tcp", 631)
    first = start(lan, state)
    try:
        first.wait_for(lambda s: any(d["hostName"] == "office-printer.local" and d["macAddresses"]
                                     for d in applier.devices(s).values()), what="the printer named, with its MAC")
    finally:
        first.stop()  # the registry now binds the printer's host name and MAC address to one device
    printer.unregister_all()  # its records go; it still answers ARP
    wait_until(lambda: not any(r.name == "Office Printer" for r in lan.avahi_browse(timeout=10)), 10,
               what="Avahi forgot the printer")

    again = start(lan, state)
    # The printer comes back on mDNS 2 s after exec: after the browse settled by itself (~1.6 s), while its MAC
    # address already answers the kernel.
    registering = threading.Timer(2.0, printer.register, args=("Office Printer", "_ipp._tcp", 631))
    registering.start()
    try:
        snapshot, seconds = first_snapshot(again)
        print(f"first answer after {seconds:.2f} s")
        registering.join()
        assert settled_reason(again) == "all-for-now", "the time limit is not what ended the wait"
        devices = list(applier.devices(snapshot).values())
        printers = [d for d in devices if d["hostName"] == "office-printer.local"]
        assert len(printers) == 1, devices
        assert [s["type"] for s in printers[0]["services"]] == ["_ipp._tcp"]
        assert printers[0]["macAddresses"], printers[0]
        assert not any(d["hostName"] is None and set(d["macAddresses"]) & set(printers[0]["macAddresses"])
                       for d in devices), "no bare MAC address of the printer beside it"
    finally:
        registering.cancel()
        again.stop()
