"""peerscand as a network scanner on the test LAN: the kernel's neighbour table, active probing, MAC vendors, presence
and conflicts, with hosts that speak no mDNS and never send traffic of their own (testlan's `Host`)."""

from __future__ import annotations

import re
import subprocess
import time
import uuid

from testclient import applier
from testkit.waiting import wait_until
from testlan.lan import random_mac, real_oui_mac
from testlan.silent import add_silent_block

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
MAC_NAMESPACE = uuid.uuid5(NAMESPACE, "mac-address")
PEERSCANCTL = str(__import__("conftest").PEERSCAND.with_name("peerscanctl"))

# Short enough for tests: a probe round every 2 s, offline 6 s after the last answer.
SCANNER = ("--probe-interval", "2", "--offline-after", "6", "--forget-after", "600")


def by_mac(snapshot: dict, mac: str) -> dict | None:
    return next((d for d in applier.devices(snapshot).values() if mac in d["macAddresses"]), None)


def start_scanner(lan, start_daemon, *extra: str, user: int | None = None):
    # What systemd's sysctl.d sets on a real host: every group may open ICMP ping sockets (the all-nodes echo).
    lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])
    daemon = start_daemon(*SCANNER, *extra, mdns_only=False, user=user)
    daemon.wait_running()
    daemon.wait_serving()  # --dump may show a snapshot before the socket is bound, and callers go on to use the socket
    return daemon


def log_lines(daemon, message: str, containing: str | None = None, timeout: float = 5.0) -> list[str]:
    """The daemon's log lines with this message. Waits up to `timeout` for one (that contains `containing`): stderr
    is read by a thread of its own and may lag behind what the socket already showed."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in daemon.stderr_lines
                 if re.search(rf"\b(info|notice|warning)\s+{message}\b", line)]
        if any(containing is None or containing in line for line in lines) or time.monotonic() > deadline:
            return lines
        time.sleep(0.05)


def test_silent_hosts_are_found_with_their_mac_vendor_and_an_id_from_the_mac(lan, start_daemon):
    printer = lan.add_host("printer", mac=real_oui_mac(0x20))  # Cisco's block: a vendor
    phone = lan.add_host("phone", mac=random_mac(0x21))  # locally administered: no vendor
    daemon = start_scanner(lan, start_daemon)
    snapshot = daemon.wait_for(lambda s: by_mac(s, printer.mac) and by_mac(s, phone.mac), what="both hosts")
    found = by_mac(snapshot, printer.mac)
    assert found["id"] == str(uuid.uuid5(MAC_NAMESPACE, printer.mac))
    assert found["hostName"] is None and found["displayName"] is None and found["services"] == []
    assert found["vendor"] == "Cisco Systems, Inc"
    assert found["online"] is True
    assert printer.ipv4 in found["addresses"]
    assert by_mac(snapshot, phone.mac)["vendor"] is None
    line = next(line for line in log_lines(daemon, "new device", printer.mac) if printer.mac in line)
    for field in (f"id={found['id']}", f"mac={printer.mac}", 'vendor="Cisco Systems, Inc"', f"address={printer.ipv4}"):
        assert field in line, line


def test_an_ipv6_only_host_is_found_by_the_all_nodes_echo(lan, start_daemon):
    host = lan.add_host("sensor", mac=random_mac(0x30), ipv4=False)
    daemon = start_scanner(lan, start_daemon)
    snapshot = daemon.wait_for(lambda s: by_mac(s, host.mac), what="the IPv6-only host")
    snapshot = daemon.wait_for(lambda s: host.ipv6 in by_mac(s, host.mac)["addresses"], what="its global address")
    addresses = by_mac(snapshot, host.mac)["addresses"]
    assert all(":" in address for address in addresses), addresses


def test_an_mdns_host_in_the_neighbour_table_is_one_device(lan, start_daemon):
    peer = lan.add_peer("alpha")
    peer.register("Alpha", "_http._tcp", 80)
    mac = __import__("json").loads(subprocess.run(["ip", "-j", "-n", peer.namespace, "link", "show", "lan0"],
                                                  capture_output=True, text=True, check=True).stdout)[0]["address"]
    daemon = start_scanner(lan, start_daemon)
    snapshot = daemon.wait_for(lambda s: (d := by_mac(s, mac)) is not None and d["hostName"] == "alpha.local",
                               what="alpha with its MAC")
    assert [d["hostName"] for d in applier.devices(snapshot).values() if mac in d["macAddresses"]] == ["alpha.local"]
    assert by_mac(snapshot, mac)["id"] == str(uuid.uuid5(NAMESPACE, "alpha.local"))
    # Its first snapshot after start already had it as one device: no MAC-only device came and went.
    assert not log_lines(daemon, "device merged", timeout=0), log_lines(daemon, "device merged", timeout=0)


def test_a_host_that_goes_silent_is_offline_after_the_window_and_online_when_it_answers(lan, start_daemon):
    host = lan.add_host("plug", mac=real_oui_mac(0x40))
    daemon = start_scanner(lan, start_daemon)
    # Known by every address (IPv4, IPv6 global and link-local) before it goes silent: nothing else changes after.
    daemon.wait_for(lambda s: (d := by_mac(s, host.mac)) is not None and host.ipv6 in d["addresses"]
                    and any(a.startswith("fe80:") for a in d["addresses"]), what="the plug")
    device_id = by_mac(daemon.snapshot, host.mac)["id"]
    sequence = daemon.sequence
    host.silence()
    silenced = time.monotonic()
    daemon.wait_for(lambda s: by_mac(s, host.mac)["online"] is False, timeout=30, what="offline")
    took = time.monotonic() - silenced
    assert 6 - 2 - 0.5 <= took <= 6 + 2 + 4, f"offline {took:.1f} s after going silent (window 6 s, rounds 2 s)"
    host.unsilence()
    daemon.wait_for(lambda s: by_mac(s, host.mac)["online"] is True, timeout=15, what="online again")
    # Exactly two changes of the plug: offline, then online; nothing else flickered.
    changes = [c for c in daemon.changes_since(sequence)
               if any(u["item"]["id"] == device_id for u in c.get("itemUpdates", []))]
    assert len(changes) == 2, changes
    assert any(device_id in line for line in log_lines(daemon, "device offline", device_id))
    assert any(device_id in line for line in log_lines(daemon, "device online", device_id))


def test_two_hosts_claiming_one_address_is_a_conflict(lan, start_daemon):
    owner = lan.add_host("owner", mac=real_oui_mac(0x50))
    intruder = lan.add_host("intruder", mac=random_mac(0x51))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, owner.mac) and by_mac(s, intruder.mac), what="both hosts")
    sequence = daemon.sequence
    # The intruder claims the address every second, as a misconfigured host that talks does: the owner's answer to a
    # probe under way can take the scanner's entry back between two claims.
    deadline = time.monotonic() + 30
    # The message, not the text: the debug line that describes the services quotes the interface, whose comments
    # say "address conflict" too.
    while not log_lines(daemon, "address conflict", timeout=0) and time.monotonic() < deadline:
        intruder.claim(owner.ipv4)
        time.sleep(1)
    lines = log_lines(daemon, "address conflict")
    assert lines, "\n".join(daemon.stderr_lines[-20:])
    daemon.wait_for(lambda s: True, what="the snapshot")
    with daemon.condition:
        moved = [snapshot for seq, _, snapshot in daemon.history
                 if seq > sequence and owner.ipv4 in (by_mac(snapshot, intruder.mac) or {}).get("addresses", [])]
    assert moved, "the address was at the intruder's device in some snapshot"
    assert "warning" in lines[0]
    for field in (f"address={owner.ipv4}", f"mac={intruder.mac}", f"mac.previous={owner.mac}"):
        assert field in lines[0], lines[0]


def test_list_and_watch_show_mac_vendor_and_presence(lan, start_daemon):
    host = lan.add_host("printer", mac=real_oui_mac(0x60))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, host.mac), what="the printer")
    watch = lan.popen_in_scanner([PEERSCANCTL, "watch", "--socket", str(daemon.socket)], stdout=subprocess.PIPE,
                                 text=True)
    listed = lan.run_in_scanner([PEERSCANCTL, "list", "--socket", str(daemon.socket)]).stdout
    row = next(line for line in listed.splitlines() if line.startswith(host.mac))
    assert "online" in row and "Cisco Systems, Inc" in row and host.ipv4 in row, row
    host.silence()
    daemon.wait_for(lambda s: by_mac(s, host.mac)["online"] is False, timeout=30, what="offline")
    listed = lan.run_in_scanner([PEERSCANCTL, "list", "--socket", str(daemon.socket)]).stdout
    assert "offline" in next(line for line in listed.splitlines() if line.startswith(host.mac))
    time.sleep(0.5)
    watch.terminate()
    output = watch.communicate(timeout=10)[0]
    assert f"~ {host.mac}: offline (unanswered asked=arp" in output, output


def test_an_mdns_device_that_withdraws_its_services_but_answers_stays_listed_online(lan, start_daemon):
    peer = lan.add_peer("tv")
    peer.register("TV", "_airplay._tcp", 7000)
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: any(d["hostName"] == "tv.local" and d["macAddresses"]
                                  for d in applier.devices(s).values()), what="the TV with its MAC")
    peer.unregister_all()
    snapshot = daemon.wait_for(lambda s: any(d["hostName"] == "tv.local" and not d["services"]
                                             for d in applier.devices(s).values()), what="the TV without services")
    time.sleep(8)  # past --offline-after: it still answers ARP, so it stays online
    tv = next(d for d in applier.devices(daemon.snapshot).values() if d["hostName"] == "tv.local")
    assert tv["online"] is True and tv["displayName"] == "TV"
    assert snapshot is not None


def test_the_harness_silence_really_fails_the_scanners_entry(lan):
    """The method the presence tests rely on, checked at the kernel: a silenced host's entry fails when the scanner's
    kernel verifies it (a forced probe, as peerscand's re-probe), and answers again once unsilenced."""
    host = lan.add_host("plug", mac=real_oui_mac(0x70))
    lan.run_in_scanner(["python3", "-c", "import socket,sys; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)"
                        ".sendto(b'x', (sys.argv[1], 9))", host.ipv4])

    def state() -> list[str]:
        return next((n["state"] for n in lan.scanner_neighbours() if n["dst"] == host.ipv4), [])

    wait_until(lambda: "REACHABLE" in state(), 5, "the scanner's entry to be REACHABLE", details=lambda: str(state()))
    host.silence()
    subprocess.run(["ip", "-n", lan.scanner_ns, "neigh", "change", host.ipv4, "dev", "lan0", "nud", "probe"],
                   check=True)
    wait_until(lambda: "FAILED" in state(), 10, "the scanner's entry to fail", details=lambda: str(state()))


def test_without_privileges_it_finds_and_follows_hosts_all_the_same(lan, start_daemon, tmp_path):
    """As the default unit runs it: a user without capabilities. Probing needs none; re-probes fall back to traffic
    (said once), and the IPv6 echo uses a ping socket."""
    tmp_path.chmod(0o755)  # the state directory below it must be reachable by nobody
    host = lan.add_host("plug", mac=real_oui_mac(0x80))
    v6only = lan.add_host("sensor", mac=random_mac(0x81), ipv4=False)
    daemon = start_scanner(lan, start_daemon, user=65534)
    daemon.wait_for(lambda s: by_mac(s, host.mac) and by_mac(s, v6only.mac), what="both hosts")
    host.silence()
    # Offline --offline-after (6 s) after the last confirmation; without forced re-probes the kernel verifies the
    # entry only once it is stale (up to its reachable time, 15-45 s, later).
    # Reachable for up to 45 s after its last confirmation, then stale until the next round, then 8 s to fail.
    daemon.wait_for(lambda s: by_mac(s, host.mac)["online"] is False, timeout=90, what="offline")
    assert any("neighbour re-probe not permitted" in line for line in daemon.stderr_lines)
    assert any("ipv6=ping-socket" in line for line in log_lines(daemon, "probing", "ipv6=ping-socket"))


def test_datagrams_the_kernel_has_no_room_for_show_the_neighbour_table_limit(lan, start_daemon):
    """A probe datagram the kernel has no room for (ENOBUFS) is the neighbour table's limit reached: the `host` item
    lists it while the last round had any, and `system limit reached` is logged once with how many. A full table
    (gc_thresh3) is the whole machine's, so the test makes the same ENOBUFS with a device queue that takes nothing,
    once the hosts are resolved (their datagrams then go straight to it). The test LAN's namespace does not show
    gc_thresh3 (the kernel shows it in the host's namespace only): the setting comes without a value."""
    block = add_silent_block(lan, 20)
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: all(by_mac(s, mac) for mac in block.macs), what="the silent hosts")
    lan.run_in_scanner(["tc", "qdisc", "add", "dev", "lan0", "root", "pfifo", "limit", "0"])
    snapshot = daemon.wait_for(lambda s: applier.config_item(s, "host").get("limits"), what="a limit reached")
    limits = applier.config_item(snapshot, "host")["limits"]
    assert [(limit["name"], limit["setting"]) for limit in limits] == [
        ("neighbour-table ipv4", "net.ipv4.neigh.default.gc_thresh3")]
    lines = log_lines(daemon, "system limit reached", "enobufs=")
    assert len(lines) == 1 and 'limit="neighbour-table ipv4"' in lines[0] and "enobufs=0" not in lines[0]
    lan.run_in_scanner(["tc", "qdisc", "del", "dev", "lan0", "root"])
    daemon.wait_for(lambda s: not applier.config_item(s, "host").get("limits"), what="a round with room")
