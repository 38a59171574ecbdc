"""The scanner at its widest (`make stress` and `make stress-ci`, 7–17 s): a /22 with 1,000 silent hosts.

peerscand sweeps at most a /22 around its address (docs/scanning.md, "Probing"), 1,021 addresses, and the kernel's
neighbour table holds 1,024 entries by default (`gc_thresh3`, global across network namespaces: this test's entries
count against the whole machine's). The LAN: the scanner at 10.231.0.1/22 and one block of 1,000 silent hosts
(testlan/silent.py: one namespace answering ARP for them all from user space, so their own kernels add no entries),
MAC addresses of their own, no mDNS, nothing sent unasked; peerscand with its defaults (--probe-interval 30,
--probe-rate 500) and its log at debug (the `probe round` lines).

Checked: every one of the 1,000 is listed within two probe intervals (60 s; a round whose datagrams the kernel had no
room for, `ENOBUFS`, leaves the rest to the next). Recorded in the evidence folder's `scanner-sweep.json` and printed:
the time to the last host, the most entries the scanner's table held, the kernel's `neighbour table overflow` lines
and refused allocations meanwhile (machine-wide: other tests' too), the `probe round` lines' counts, and the `host`
item's limits (a round with no room shows `neighbour-table ipv4` there, `system limit reached` in the log).

Runs before test_stress.py's session LAN exists (file order), so that LAN's probing does not share the table with it.
"""

from __future__ import annotations

import json
import time

import pytest

from benchmarks.scanner import (
    Daemon,
    NeighbourWatch,
    arp_table_fulls,
    kernel_overflow_lines,
    logged_seconds_to_last,
    macs,
    probe_rounds,
)
from testclient import applier
from testlan.lan import TestLAN
from testlan.silent import add_silent_block

from conftest import PEERSCAND, ROOT

SILENT_HOSTS = 1000  # of the /22's 1,021: not more, the table (1,024 machine-wide) is shared with other tests
PROBE_INTERVAL = 30  # peerscand's default


def test_a_slash22_with_1000_silent_hosts_is_listed_whole() -> None:
    if not PEERSCAND.exists():
        pytest.exit(f"{PEERSCAND} is missing: run `swift build` first (or set PEERSCAND)", 2)
    evidence = ROOT / ".build" / "stress" / f"{time.strftime('%Y%m%d-%H%M%S')}-scanner-sweep"
    evidence.mkdir(parents=True)
    with TestLAN(prefix_length=22) as lan:
        lan.start_avahi()
        block = add_silent_block(lan, SILENT_HOSTS)
        expected = set(block.macs)
        overflows, table_fulls = kernel_overflow_lines(), arp_table_fulls()
        watch = NeighbourWatch(lan)
        daemon = Daemon(lan, "--log-level", "debug")
        done, limits = None, None
        try:
            done = daemon.wait_for(lambda s: expected <= macs(s), timeout=2 * PROBE_INTERVAL + 10)
            limits = applier.config_item(daemon.snapshot, "host").get("limits", [])
        finally:
            missing = len(expected - macs(daemon.snapshot)) if daemon.snapshot else len(expected)
            daemon.stop()
            watch.stop()
            log = (lan.tmpdir / "peerscand.log").read_text(errors="replace")
            result = {
                "hosts": SILENT_HOSTS, "missing": missing,
                "seconds_to_last_host": round(done - daemon.started, 2) if done else None,
                "logged_seconds_to_last_host": logged_seconds_to_last(log, expected),
                "scanner_neighbour_entries_max": watch.most,
                "kernel_overflow_lines": kernel_overflow_lines() - overflows,
                "kernel_table_fulls": arp_table_fulls() - table_fulls,
                "log": probe_rounds(log),
                "host_limits": limits,
                "responder": block.stop(),
            }
            (evidence / "scanner-sweep.json").write_text(json.dumps(result, indent=1))
            (evidence / "peerscand.log").write_text(log)
            print(f"\nscanner sweep: {result}", flush=True)
    assert result["missing"] == 0
    assert result["responder"]["answered"] >= SILENT_HOSTS
