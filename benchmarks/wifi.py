"""Wi-Fi in the radio guest (``make bench-wifi``, which boots it: testlan/radio/guest.py): how soon a new access
point reaches a Monitor client after the scan that found it, and peerscand's CPU per scan with 4 and with 30 access
points. Inside the guest, as root::

    python3 -m benchmarks.wifi [--scans 10]

- Delay: peerscand follows the scans others trigger (no --wifi-scan-interval); four access points are off (and
  flushed from the kernel's cache) when it starts; per round one is switched on and a scan is triggered with iw.
  Reported: from iw's `scan finished` event to the changeset listing it at a Monitor client (peerscand's own work:
  the dump and the diff), and from the trigger to that changeset (the scan itself included, ~2 s in the CN domain).
- CPU: utime+stime of peerscand (/proc/PID/stat) around `--scans` scans triggered one after another (each waited
  for, plus 1 s for peerscand to finish with it), divided by the scans; with 4 access points (the SAE and OWE ones
  off) and with 30 (26 more BSSes on one radio: testlan/radio/hostapd/later/bench.conf).
The numbers go to stdout and, as JSON, to the results share (.build-radio/last-run/bench-wifi.json after the run).
Under TCG every number is several times what a real machine gives: compare them with each other, not with the host's
benchmarks.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from testclient import varlinkclient
from testkit.peerscand import Peerscand
from testlan.radio import air
from testlan.radio.daemon import peerscand


def listed(snapshot: dict, ssid: str) -> bool:
    return any(item.get("kind") == "wifiNetwork" and item.get("ssid") == ssid
               for section in snapshot["sections"] for item in section["items"])


FRESH = ("sae", "owe", "open", "5ghz")  # switched off before peerscand starts: one round each, new to peerscand


def delays(socket: Path) -> dict:
    after_scan, after_trigger = [], []
    follower = varlinkclient.MonitorFollower(socket)
    try:
        for ap in (air.BY_NAME[name] for name in FRESH):
            follower.wait_for(lambda s: not listed(s, ap.ssid), timeout=10, what=f"{ap.ssid} not listed yet")
            air.enable(ap)
            triggered = time.monotonic()
            finished = air.trigger_scan(air.SCANNER)
            follower.wait_for(lambda s: listed(s, ap.ssid), timeout=30, what=f"{ap.ssid} listed")
            seen = time.monotonic()  # the follower's thread notified at the changeset
            after_scan.append(seen - finished)
            after_trigger.append(seen - triggered)
    finally:
        follower.close()
    return {"rounds": len(after_scan), "after_scan_median_s": statistics.median(after_scan),
            "after_scan_max_s": max(after_scan), "after_trigger_median_s": statistics.median(after_trigger)}


def cpu_per_scan(daemon: Peerscand, scans: int) -> float:
    before = daemon.usage().cpu_seconds
    for _ in range(scans):
        air.trigger_scan(air.SCANNER)
        time.sleep(1)
    return (daemon.usage().cpu_seconds - before) / scans


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scans", type=int, default=10)
    arguments = parser.parse_args()
    results = Path(os.environ.get("RADIO_RESULTS", "/tmp"))
    report: dict = {}
    for name in FRESH:
        air.disable(air.BY_NAME[name])
    air.trigger_scan(air.SCANNER, flush=True)
    with peerscand("--wifi-expire", "30", log=results / "peerscand-bench.log") as daemon:
        report["delay"] = delays(daemon.socket)
        print(f"delay: {json.dumps(report['delay'])}", flush=True)
        for ap in (air.BY_NAME["sae"], air.BY_NAME["owe"]):
            air.disable(ap)
        air.trigger_scan(air.SCANNER, flush=True)
        report["cpu_per_scan_4_aps_s"] = cpu_per_scan(daemon, arguments.scans)
        print(f"cpu per scan, 4 access points: {report['cpu_per_scan_4_aps_s'] * 1000:.1f} ms", flush=True)
        with air.bench_access_points() as extra:
            air.trigger_scan(air.SCANNER)
            report["cpu_per_scan_30_aps_s"] = cpu_per_scan(daemon, arguments.scans)
            seen = len(air.dump(air.SCANNER))
        print(f"cpu per scan, {4 + extra} access points ({seen} in the scan): "
              f"{report['cpu_per_scan_30_aps_s'] * 1000:.1f} ms", flush=True)
        report["access_points_seen_with_30"] = seen
    (results / "bench-wifi.json").write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
