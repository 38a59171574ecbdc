"""Presence follows the host, not Avahi's cache (issue 28): an mDNS host that leaves without goodbyes — its
responder SIGKILLed, then its link down, or its link up and its kernel answering neither ARP nor NDP — goes offline
within --offline-after (+ one probe round and the question's wait), though avahi-daemon still caches its records; a
host whose entries fail but whose responder answers the scanner's one-shot mDNS query stays online; and a host that
comes back is online at once with its id. Every transition says why (the item, the log line), and the registry keeps
the transitions across a restart (GetDevice, `peerscanctl show`'s timeline)."""

from __future__ import annotations

import re
import time

from testclient import varlinkclient
from testlan.lan import real_oui_mac
from Tests.Integration.test_scanner import PEERSCANCTL, by_mac, log_lines, start_scanner

WINDOW, ROUND, QUESTION = 6, 2, 3  # --offline-after and --probe-interval (test_scanner's), the question's wait (s)
SERVICES = [("Phone", "_companion-link._tcp", 49152), ("Phone Web", "_http._tcp", 80)]


def phone(lan, *, ipv4: bool = True):
    peer = lan.add_peer("phone")
    if not ipv4:
        peer.remove_address(peer.ipv4)
    for name, type_, port in SERVICES:
        peer.register(name, type_, port)
    return peer


def known(daemon, peer, *, ipv4: bool = True) -> dict:
    """The peer's device once it has its services and MAC address (and, with IPv4, its IPv4 address)."""
    mac = peer.mac
    return daemon.wait_for(
        lambda s: (d := by_mac(s, mac)) is not None and d["hostName"] == "phone.local" and len(d["services"]) == 2
        and (not ipv4 or peer.ipv4 in d["addresses"]), timeout=30, what="the phone with its MAC and services")


def debug_lines(daemon, message: str, containing: str) -> list[str]:
    """The daemon's debug lines with this message that contain `containing` (the tests run it with debug on)."""
    return [line for line in daemon.stderr_lines if re.search(rf"\bdebug\s+{message}\b", line) and containing in line]


def offline_line(daemon, device_id: str) -> str:
    return next(line for line in log_lines(daemon, "device offline", device_id) if device_id in line)


def test_a_host_that_leaves_without_goodbyes_is_offline_within_the_window_and_back_at_once(lan, start_daemon):
    peer = phone(lan)
    daemon = start_scanner(lan, start_daemon)
    snapshot = known(daemon, peer)
    device = by_mac(snapshot, peer.mac)
    peer.stop(graceful=False)  # no goodbyes: avahi-daemon keeps the records for their TTLs (120 s, 75 min)
    peer.link_down()
    left = time.monotonic()
    snapshot = daemon.wait_for(lambda s: by_mac(s, peer.mac)["online"] is False, timeout=60, what="offline")
    took = time.monotonic() - left
    assert took <= WINDOW + ROUND + 3, f"offline {took:.1f} s after it left (window {WINDOW} s, rounds {ROUND} s)"
    gone = by_mac(snapshot, peer.mac)
    assert gone["id"] == device["id"] and gone["services"] == device["services"], "listed as last known"
    cached = {row.name for row in lan.avahi_browse(timeout=5) if row.event != "-"}
    assert "Phone" in cached, f"avahi-daemon still caches its records, which did not count: {cached}"
    line = offline_line(daemon, device["id"])
    # ndp too once the kernel had resolved its IPv6 addresses (the all-nodes echo of a round)
    assert "reason=unanswered" in line and re.search(r"asked=arp,(ndp,)?mdns\b", line), line
    assert debug_lines(daemon, "host asked", "host=phone.local"), "asked once its entries failed"

    peer.link_up()
    back = time.monotonic()
    snapshot = daemon.wait_for(lambda s: by_mac(s, peer.mac)["online"] is True, timeout=30, what="online again")
    took = time.monotonic() - back
    assert took <= ROUND + 3, f"online {took:.1f} s after its link came back (rounds {ROUND} s)"
    assert by_mac(snapshot, peer.mac)["id"] == device["id"]


def test_a_host_whose_entries_fail_but_that_answers_the_question_stays_online_until_it_stops(lan, start_daemon):
    peer = phone(lan)
    daemon = start_scanner(lan, start_daemon)
    device = by_mac(known(daemon, peer), peer.mac)
    sequence = daemon.sequence
    peer.answer_neighbours(False)  # the link stays up; its kernel no longer answers ARP or NDP
    daemon.wait_for(lambda s: debug_lines(daemon, "host asked", "host=phone.local"), timeout=30,
                    what="its entries failed: a question")
    time.sleep(2 * WINDOW)
    assert by_mac(daemon.snapshot, peer.mac)["online"] is True, "it answered the scanner's questions"
    updates = [u["item"] for c in daemon.changes_since(sequence) for u in c.get("itemUpdates", [])
               if u["item"]["id"] == device["id"]]
    assert all(item["online"] for item in updates), f"never offline meanwhile: {updates}"
    assert debug_lines(daemon, "host answered", "host=phone.local"), "the responder answered the one-shot query"

    peer.stop(graceful=False)  # now it is gone: the link up, no ARP, no NDP, no mDNS
    stopped = time.monotonic()
    daemon.wait_for(lambda s: by_mac(s, peer.mac)["online"] is False, timeout=60, what="offline")
    took = time.monotonic() - stopped
    # At most a window after its last answer, which came at most half a window before it stopped.
    assert took <= WINDOW + ROUND + QUESTION, f"offline {took:.1f} s after its responder stopped"
    line = offline_line(daemon, device["id"])
    assert "reason=unanswered" in line and "mdns" in line, line


def test_an_ipv6_only_host_that_leaves_is_offline_by_ndp_and_its_question(lan, start_daemon):
    peer = phone(lan, ipv4=False)
    daemon = start_scanner(lan, start_daemon)
    device = by_mac(known(daemon, peer, ipv4=False), peer.mac)
    assert all(":" in address for address in device["addresses"]), device["addresses"]
    peer.stop(graceful=False)
    peer.link_down()
    left = time.monotonic()
    daemon.wait_for(lambda s: by_mac(s, peer.mac)["online"] is False, timeout=60, what="offline")
    took = time.monotonic() - left
    assert took <= WINDOW + ROUND + 3, f"offline {took:.1f} s after it left"
    line = offline_line(daemon, device["id"])
    assert "reason=unanswered" in line and re.search(r"asked=ndp,mdns\b", line), line


def test_every_transition_says_why_and_the_registry_keeps_them_across_a_restart(lan, start_daemon):
    plug = lan.add_host("plug", mac=real_oui_mac(0x70))
    daemon = start_scanner(lan, start_daemon)
    device = daemon.wait_for(lambda s: by_mac(s, plug.mac), what="the plug")
    device_id = by_mac(device, plug.mac)["id"]
    assert re.fullmatch(r"answered via=(arp|ndp|arp,ndp)", by_mac(device, plug.mac)["presenceReason"])
    plug.silence()
    snapshot = daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is False, timeout=30, what="offline")
    assert by_mac(snapshot, plug.mac)["presenceReason"].startswith("unanswered asked=arp")
    plug.unsilence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is True, timeout=30, what="online again")
    online = log_lines(daemon, "device online")
    assert online and re.search(r"\breason=answered\b.*\bvia=(arp|ndp)", online[-1]), online
    assert daemon.stop() == 0

    second = start_scanner(lan, start_daemon)  # the same state directory: the same registry
    second.wait_for(lambda s: by_mac(s, plug.mac), what="the plug after the restart")
    with varlinkclient.client(second.socket).open("io.peerscan") as service:
        transitions = service.GetDevice(device_id)["transitions"]
    assert [t["online"] for t in transitions] == [True, False, True], transitions
    assert transitions[1]["reason"].startswith("unanswered asked=arp") and transitions[2]["reason"].startswith(
        "answered via="), transitions
    assert all(t["at"].endswith("Z") for t in transitions) and transitions == sorted(transitions, key=lambda t: t["at"])
    shown = lan.run_in_scanner([PEERSCANCTL, "show", plug.mac, "--socket", str(second.socket)]).stdout
    timeline = next(line for line in shown.splitlines() if line.startswith("last 24 h:"))
    assert re.search(r"[·▁▇]{48}  online \d+ %$", timeline), shown
    assert "transitions:" in shown and "offline  unanswered asked=arp" in shown, shown
