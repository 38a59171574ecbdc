"""What happens when the LAN outgrows a stock avahi-daemon (run by `make stress` only: STRESS_PROFILE=full).

avahi-daemon's defaults bound two things a large LAN exceeds: `cache-entries-max=4096` (records cached per interface
and IP protocol: each service costs a PTR, an SRV and a TXT record, each host its A and AAAA records) and
`objects-per-client-max=1024` (browsers and resolvers one D-Bus client may hold: peerscand keeps a resolver open per
(service, protocol) row and a record browser per host and protocol, spread over as many clients as it needs). This
probe grows a LAN of virtual hosts (4 services each) in steps under an avahi-daemon with its default limits, and
records after each step how many services avahi-browse lists (per protocol, and distinct), how many peerscand shows,
how many Avahi clients it holds, and what either logged — the counts at which they stop following the LAN. The numbers
go to the evidence folder's `avahi-limits.json` and are printed.

Checked: Avahi refuses peerscand nothing at any step, and while the cache holds every service published (avahi-browse
lists them all) peerscand follows every one. Where the cache stops growing is recorded, not asserted: that is the
finding (docs/reliability.md has the numbers; avahi-browse then lists a few more services than peerscand follows,
whose SRV, TXT or address records did not fit in the cache, so they cannot be resolved).
"""

from __future__ import annotations

import json
import os
import time

import pytest

from testkit.peerscand import ROOT
from testlan.daemons import AVAHI_RECEIVE_BUFFER, enlarge_receive_buffers
from testlan.lan import TestLAN

from conftest import StressDaemon
from world import TYPES, observed

STEP_HOSTS = 40  # 160 services per step
MAX_SERVICES = 2400


@pytest.mark.skipif(os.environ.get("STRESS_PROFILE", "ci") != "full", reason="make stress only")
def test_a_lan_beyond_avahis_default_limits(tmp_path) -> None:
    evidence = ROOT / ".build" / "stress" / f"{time.strftime('%Y%m%d-%H%M%S')}-avahi-limits"
    evidence.mkdir(parents=True)
    rows = []
    with TestLAN() as lan:
        lan.start_avahi()  # the defaults: cache-entries-max=4096, objects-per-client-max=1024
        if AVAHI_RECEIVE_BUFFER:  # no datagram lost to a full socket buffer: the limits alone are measured
            enlarge_receive_buffers(lan.avahi_pid, AVAHI_RECEIVE_BUFFER)
        responders = [lan.add_peer(f"limitr{i}") for i in range(4)]
        state = tmp_path / "state"
        daemon = StressDaemon(lan, state, lan.tmpdir / "io.peerscan", evidence / "peerscand.log")
        daemon.start()
        published = 0
        number = 0
        try:
            while published < MAX_SERVICES:
                batches: dict[int, list[dict]] = {}
                for _ in range(STEP_HOSTS):
                    host = f"l{number}"
                    addresses = [f"10.238.{number // 250}.{number % 250 + 1}", f"fd70:7363:6170::{number + 1:x}"]
                    batches.setdefault(number % len(responders), []).extend(
                        {"op": "register", "name": f"L{number}", "type": t, "port": 1000 + number, "txt": {"n": "1"},
                         "server": f"{host}.local.", "addresses": addresses} for t in TYPES[:4])
                    number += 1
                    published += 4
                for index, ops in batches.items():
                    responders[index].command("batch", 180, ops=ops)
                time.sleep(4)
                browse = lan.run_in_scanner(["avahi-browse", "-a", "-p", "-t", "-k"], timeout=60, check=False).stdout
                seen = {tuple(line.split(";")[2:5]) for line in browse.splitlines()
                        if line.startswith("+;") and ";_stress" in line}  # (protocol, instance, type)
                distinct = len({row[1:] for row in seen})
                deadline = time.monotonic() + 30  # resolving lags listing: give peerscand time to catch up
                while True:
                    devices = observed(daemon.get_snapshot()["snapshot"])
                    if sum(len(d["services"]) for d in devices.values()) >= distinct or time.monotonic() > deadline:
                        break
                    time.sleep(1)
                row = {
                    "published_services": published, "published_hosts": number,
                    "avahi_browse_ipv4": sum(1 for row in seen if row[0] == "IPv4"),
                    "avahi_browse_ipv6": sum(1 for row in seen if row[0] == "IPv6"),
                    "avahi_browse_distinct": distinct,
                    "peerscand_devices": len(devices),
                    "peerscand_services": sum(len(d["services"]) for d in devices.values()),
                    "peerscand_devices_with_all_addresses": sum(1 for d in devices.values()
                                                                if len(d["addresses"]) == 2),
                    "peerscand_warnings": daemon.count(" warning ") + daemon.count(" error "),
                    "peerscand_refused": daemon.count("avahi resolver refused") + daemon.count("avahi browser failed"),
                    "peerscand_avahi_clients": 1 + daemon.count("avahi client added"),
                    "avahi_log_lines": len((lan.tmpdir / "avahi.log").read_text().splitlines()),
                }
                rows.append(row)
                print(f"\n{row}", flush=True)
            (evidence / "avahi.log").write_text((lan.tmpdir / "avahi.log").read_text())
        finally:
            daemon.stop()
            (evidence / "avahi-limits.json").write_text(json.dumps(rows, indent=1))
    print(f"\navahi limits: {evidence / 'avahi-limits.json'}", flush=True)
    first = rows[0]
    assert first["avahi_browse_ipv4"] == first["avahi_browse_ipv6"] == first["published_services"], first
    assert first["peerscand_services"] == first["published_services"], first
    assert all(row["peerscand_refused"] == 0 for row in rows), rows
    below_cache = [row for row in rows if row["avahi_browse_distinct"] == row["published_services"]]
    assert all(row["peerscand_services"] == row["published_services"] for row in below_cache), below_cache
