"""Whose fault a mismatch of the stress suite is: what avahi-daemon itself shows of the hosts peerscand shows
otherwise (its fresh resolve, its cache dump), and the datagrams the scanner namespace dropped (/proc/net/snmp). A
host avahi-daemon shows as peerscand does was lost on the LAN: nothing peerscand could know.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time

from testlan.lan import TestLAN

__all__ = ["attribute", "avahi_cached_addresses", "udp_drops"]


def udp_drops(lan: TestLAN) -> dict[str, int]:
    """The scanner namespace's UDP counters (/proc/net/snmp): datagrams dropped for a full receive buffer."""
    text = subprocess.run(["ip", "netns", "exec", lan.scanner_ns, "cat", "/proc/net/snmp"],
                          capture_output=True, text=True, timeout=10).stdout
    lines = [line.split() for line in text.splitlines() if line.startswith("Udp:")]
    counters = dict(zip(lines[0][1:], map(int, lines[1][1:]), strict=False)) if len(lines) >= 2 else {}
    six = subprocess.run(["ip", "netns", "exec", lan.scanner_ns, "cat", "/proc/net/snmp6"],
                         capture_output=True, text=True, timeout=10).stdout
    counters6 = {line.split()[0]: int(line.split()[1]) for line in six.splitlines() if line.startswith("Udp6")}
    return {"ipv4_datagrams": counters.get("InDatagrams", 0), "ipv4_dropped": counters.get("RcvbufErrors", 0),
            "ipv6_datagrams": counters6.get("Udp6InDatagrams", 0),
            "ipv6_dropped": counters6.get("Udp6RcvbufErrors", 0)}


def attribute(lan: TestLAN, d: dict, seen: dict[str, dict]) -> dict:
    """For a mismatch: which differing hosts avahi-daemon itself shows as peerscand does (the LAN lost the
    packets: nothing peerscand could know) and which not (peerscand's fault). Services from avahi-browse -r (a
    fresh resolve); addresses from avahi-daemon's own cache (its SIGUSR1 dump), per host."""
    try:
        rows = [r for r in lan.avahi_browse(timeout=180) if r.event == "=" and r.type.startswith("_stress")]
    except Exception as error:  # noqa: BLE001 — evidence only
        return {"error": repr(error)}
    avahi: dict[str, set] = {}
    for row in rows:
        txt = json.dumps(dict(t.split("=", 1) for t in row.txt if "=" in t), sort_keys=True)
        avahi.setdefault(row.host, set()).add((row.name, row.type, "local", row.port, txt))
    try:
        listed = {(r.name, r.type) for r in lan.avahi_browse(timeout=120)
                  if r.event == "+" and r.type.startswith("_stress")}
    except Exception:  # noqa: BLE001 — evidence only
        listed = set()
    cached = avahi_cached_addresses(lan)
    agree, disagree, addresses = [], [], {}
    for host in d["missing"] + d["unexpected"] + list(d["different"]):
        mine = {tuple(s) for s in seen[host]["services"]} if host in seen else set()
        listed_here = {(n, t) for n, t in listed if n == f"S{host.split('.')[0][1:]}"}
        same_services = avahi.get(host, set()) == mine or listed_here == {(s[0], s[1]) for s in mine}
        same_addresses = host not in seen or sorted(cached.get(host, set())) == seen[host]["addresses"]
        (agree if same_services and same_addresses else disagree).append(host)
        if host in d["different"] and len(addresses) < 20:
            addresses[host] = {"expected": d["different"][host]["expected"]["addresses"],
                               "peerscand": seen[host]["addresses"], "avahi_cache": sorted(cached.get(host, []))}
    return {"hosts_as_avahi_shows_them": len(agree), "hosts_avahi_shows_otherwise": disagree[:20],
            "addresses": addresses, "udp": udp_drops(lan)}


def avahi_cached_addresses(lan: TestLAN) -> dict[str, set[str]]:
    """avahi-daemon's cached A and AAAA records, by host name, from the cache dump it writes to its log on
    SIGUSR1."""
    log = lan.tmpdir / "avahi.log"
    start = log.stat().st_size if log.exists() else 0
    try:
        os.kill(lan.avahi_pid, signal.SIGUSR1)
    except (OSError, TypeError):
        return {}
    time.sleep(2)
    with open(log, errors="replace") as f:
        f.seek(start)
        text = f.read()
    out: dict[str, set[str]] = {}
    in_cache = False
    for line in text.splitlines():
        if line.startswith(";;; CACHE DUMP FOLLOWS"):
            in_cache = True
        elif line.startswith(";;;"):
            in_cache = line.startswith(";;; CACHE")
        elif in_cache and "\tIN\tA" in line:
            name, _, record = line.split("\t", 2)
            out.setdefault(name, set()).add(record.split(" ")[1].split(";")[0].strip())
    return out
