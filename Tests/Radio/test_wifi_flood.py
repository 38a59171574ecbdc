"""A beacon flood on the radio guest's air (issue 35): fake access points appearing and leaving in waves
(`air.flood_wave`: 20 open BSSes on wlan9, new SSIDs and BSSIDs in each wave) beside the air's six networks, one of
them trusted. With `--wifi-networks-max` CAP no snapshot lists more networks than the cap, the limit is logged and
shown, the trusted network stays listed, only networks that were listed reach the registry, and a wave's rows are gone
from the registry once it has not been heard for `--forget-after`. ~2 minutes."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import time

import pytest

from testkit.waiting import wait_until
from testkit.wire import RawConnection
from testlan.radio import air

from conftest import SnapshotWatch, host_limits, network, networks

pytestmark = pytest.mark.usefixtures("known_air")

CAP = 12  # --wifi-networks-max: the air's 6 networks and 6 of a wave's 20
EXPIRE = 30  # --wifi-expire
# --forget-after: not under WirelessTable.sightingInterval (60 s), the most a heard network's row goes without its
# last_seen moving on. peerscand forgets once a minute: a row goes at most FORGET_AFTER + 60 s after it was last
# written.
FORGET_AFTER = 60
FORGETTING = 60
TRUSTED = air.BY_NAME["wpa2"]


class Watch(SnapshotWatch):
    """The most networks listed in any snapshot, every SSID ever listed, whether the limit was shown and how many
    snapshots lacked the trusted network."""

    def __init__(self, daemon) -> None:
        self.most_listed = 0
        self.listed: set[str | None] = set()
        self.limit_shown = False
        self.trusted_missing = 0
        super().__init__(daemon)

    def count(self, snapshot: dict) -> None:
        items = networks(snapshot)
        self.most_listed = max(self.most_listed, len(items))
        self.listed.update(item["ssid"] for item in items)
        self.limit_shown |= "wifi-networks" in host_limits(snapshot)
        self.trusted_missing += network(snapshot, TRUSTED) is None


def ssids(snapshot: dict) -> set[str | None]:
    return {item["ssid"] for item in networks(snapshot)}


def registry_ssids(daemon) -> list[str | None]:
    """The SSIDs of the registry's Wi-Fi networks (read while peerscand runs: it writes every second)."""
    with contextlib.closing(sqlite3.connect(f"file:{daemon.state_directory / 'registry.sqlite'}?mode=ro",
                                            uri=True)) as database:
        return [row[0] for row in database.execute("SELECT ssid FROM wifi_network ORDER BY ssid")]


def lines(daemon, message: str) -> list[str]:
    return [line for line in list(daemon.stderr_lines) if re.search(rf"\b(info|notice|warning)\s+{message}\b", line)]


def test_a_beacon_flood_in_waves_stays_within_the_cap_and_leaves_the_registry(start_daemon):
    daemon = start_daemon("--wifi-scan-interval", "3", "--wifi-expire", str(EXPIRE), "--wifi-networks-max", str(CAP),
                          "--forget-after", str(FORGET_AFTER))
    daemon.wait_for(lambda s: all(network(s, ap) is not None for ap in air.AIR), timeout=60, what="the air's networks")
    with RawConnection(daemon.socket) as connection:
        reply = connection.call("io.peerscan.TrustWiFiNetwork", {"ssid": TRUSTED.ssid})
        assert "error" not in reply, reply
    watch = Watch(daemon)
    try:
        with air.flood_wave(1) as first:
            daemon.wait_for(lambda s: len(networks(s)) == CAP and ssids(s) & set(first), timeout=30,
                            what="the list full of the first wave")
            written = time.monotonic()  # its rows' last_seen at the latest (it leaves in less than 60 s)
        left = time.monotonic()
        with air.flood_wave(2) as second:
            daemon.wait_for(lambda s: not ssids(s) & set(first) and ssids(s) & set(second),
                            timeout=EXPIRE + 30, what="the second wave in the first's place")
            first_rows = [ssid for ssid in registry_ssids(daemon) if ssid in first]
            print(f"the first wave left the list {time.monotonic() - left:.1f} s after it stopped; its rows in the "
                  f"registry: {len(first_rows)}")
            assert 0 < len(first_rows) <= CAP, first_rows
            assert set(first_rows) <= watch.listed, "a network never listed reached the registry"
            wait_until(lambda: not set(registry_ssids(daemon)) & set(first),
                       written + FORGET_AFTER + FORGETTING + 15 - time.monotonic(), interval=1,
                       what="the first wave's rows forgotten", details=daemon.log_tail)
            print(f"the first wave's rows were forgotten {time.monotonic() - left:.1f} s after it stopped")
            rows = registry_ssids(daemon)
    finally:
        watch.stop()
    print(f"snapshots: {watch.snapshots}, networks listed at most: {watch.most_listed} (cap {CAP}), SSIDs ever "
          f"listed: {len(watch.listed)}; registry at the end: {len(rows)} networks")
    assert watch.most_listed == CAP and watch.limit_shown, "the flood did not reach the cap"
    assert watch.trusted_missing == 0, "the cap took the trusted network out"
    assert TRUSTED.ssid in rows, "the baseline left the registry"
    assert set(rows) <= watch.listed, "a network never listed reached the registry"
    assert len([ssid for ssid in rows if ssid in second]) <= CAP, rows
    limits = lines(daemon, "system limit reached")
    print(f"log: {len(limits)} 'system limit reached'")
    assert limits and all("limit=wifi-networks" in line and f"--wifi-networks-max={CAP}" in line for line in limits), \
        limits
    forgotten = lines(daemon, "registry forgetting wifi")
    assert forgotten, "no `registry forgetting wifi` line"
