"""Bluetooth LE through bluetoothd on the radio guest's air (issues 26 and 35): btvirt's hci1 advertises, peerscand
(and, alone, the Bluetooth source) discovers through BlueZ's D-Bus API on hci0; hci2 floods addresses.

The source's own check (`test_the_source_reports_the_advertiser…`) runs the host-built Swift test binary's
BluetoothLiveTests. The device-level tests follow issue 26's contract for the snapshot (the `bluetooth` field of a
`peer` item, `--bluetooth-away`, `peerscanctl set --irk`, `peerscanctl merge`); those not about admission start
peerscand with `--bluetooth-admit-after 0`, so that hci1's advertiser is kept at once, as before issue 35.

Issue 35's admission and cap in the real stack: with `--bluetooth-admit-after 20` hci1 is listed as not kept
(`ephemeral`, no `new device` line) until heard for 20 s, then kept under the same id (one `new device` line, its
registry row); and an address flood from hci2 (testlan/radio/flood.py: a new random static address 20 times a second
for 2 minutes) beside hci1 stays within `--bluetooth-max-devices` in every snapshot, logs the limit once, leaves no
`new device` line and no registry row for any flood address, and hci1 is still listed and kept. The flood test adds
~2.5 minutes (in CI beside the builds: the radio guest runs in the background), the admission test ~40 s."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from testkit.waiting import WaitError, wait_until
from testlan.radio import bluetooth

from conftest import NAMESPACE, ROOT, SnapshotWatch, host_limits

NAME = "radio-ble-a"
MANUFACTURER = "Nordic Semiconductor ASA"  # bluetooth.NORDIC's name in the SIG's table
# --bluetooth-away for the tests. bluetoothd sends no PropertiesChanged for an advertiser whose data and RSSI stay
# the same (btvirt reports RSSI 127, "not available", every time): peerscand counts an unpaired device as heard
# while bluetoothd holds its object.
AWAY = 60
# bluetoothd's TemporaryTimeout (its default): it drops an unpaired device's object that long after its last
# advertisement, and peerscand counts --bluetooth-away from that removal.
TEMPORARY_TIMEOUT = 30
# --bluetooth-away of the tests that wait for an advertiser that stopped to go (offline, or gone): each waits
# TEMPORARY_TIMEOUT plus this, not plus AWAY; nothing in them needs hci1 held through one of bluetoothd's drops.
SHORT_AWAY = 20
IRK = "ec0234a357c8ad05341010a60a397d9b"  # the Core spec's sample IRK (Vol 3 Part H, 2.2.2), most significant first
ROTATION = 35  # seconds: past hci1's RPA timeout (30 s, bluetooth.set_privacy)
TESTS_BINARY = Path(os.environ.get("PEERSCAN_TESTS", ROOT / ".build" / "debug" / "peerscanPackageTests.xctest"))


@pytest.fixture(autouse=True)
def air():
    bluetooth.up()
    bluetooth.set_privacy(None)
    yield
    bluetooth.stop_advertising()


def bluetooth_devices(snapshot: dict) -> list[dict]:
    return [item for section in snapshot["sections"] if section["id"] == "networks" for item in section["items"]
            if item.get("kind") == "peer" and item.get("bluetooth")]


def by_address(snapshot: dict, address: str) -> dict | None:
    return next((item for item in bluetooth_devices(snapshot) if item["bluetooth"]["address"] == address), None)


def advertiser_item(snapshot: dict) -> dict | None:
    """The item of hci1's advertisement under any address (its public one, or a resolvable private one)."""
    return next((item for item in bluetooth_devices(snapshot) if item["bluetooth"].get("name") == NAME), None)


def bluetooth_id(address: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"bluetooth:{address}"))


def start(start_daemon, *extra: str, admit_after: int = 0, user: int | None = None):
    # The radio daemon's defaults are the integration tests' mDNS-only ones (--forget-after 0: a device that goes
    # is removed); a Bluetooth device must stay listed offline here (the last --forget-after given counts). An
    # advertiser is kept at once (--bluetooth-admit-after 0) unless the test is about admission.
    return start_daemon("--no-wifi", "--bluetooth-adapter", bluetooth.SCANNER, "--bluetooth-away", str(AWAY),
                        "--forget-after", "3600", "--bluetooth-admit-after", str(admit_after), *extra, user=user)


def ctl(daemon, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(ROOT / ".build" / "debug" / "peerscanctl"), *arguments, "--socket", str(daemon.socket)],
                          capture_output=True, text=True, check=True, timeout=30)


@pytest.mark.parametrize("user", [65534, None], ids=["nobody", "root"])
def test_the_source_reports_the_advertiser_with_its_name_and_manufacturer_data(user):
    """BluetoothDiscoverySource alone (the Swift BluetoothLiveTests in the guest): LE discovery through BlueZ on
    hci0 reports hci1's advertisement — also as uid 65534, which Debian's D-Bus policy for org.bluez allows."""
    bluetooth.advertise(NAME, bluetooth.NORDIC, b"\x01\x02")
    prefix = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] if user is not None else []
    environment = dict(os.environ, PEERSCAN_BLUETOOTH_LIVE_ADDRESS=bluetooth.ADVERTISER_ADDRESS,
                       PEERSCAN_BLUETOOTH_LIVE_NAME=NAME, PEERSCAN_BLUETOOTH_LIVE_COMPANY=f"{bluetooth.NORDIC:04x}",
                       PEERSCAN_BLUETOOTH_LIVE_ADAPTER=bluetooth.SCANNER, HOME="/tmp")
    done = subprocess.run([*prefix, str(TESTS_BINARY), "--testing-library", "swift-testing", "--filter",
                           "BluetoothLiveTests"], capture_output=True, text=True, env=environment, timeout=180)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "live: BluetoothAdvertisement" in done.stdout, done.stdout[-3000:]
    print(next(line for line in done.stdout.splitlines() if line.startswith("live: ")))


def test_an_advertiser_is_listed_with_its_name_and_manufacturer(start_daemon):
    bluetooth.advertise(NAME, bluetooth.NORDIC, b"\x01\x02")
    daemon = start(start_daemon)
    snapshot = daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS), timeout=60,
                               what="hci1's advertisement")
    item = by_address(snapshot, bluetooth.ADVERTISER_ADDRESS)
    facts = item["bluetooth"]
    assert item["id"].lower() == bluetooth_id(bluetooth.ADVERTISER_ADDRESS)
    assert facts["addressType"] == "public" and facts["ephemeral"] is False
    assert facts["name"] == NAME and facts["manufacturer"] == MANUFACTURER
    assert item["displayName"] == NAME
    assert item["online"] is True


def test_a_stopped_advertiser_is_offline_after_the_away_time(start_daemon):
    bluetooth.advertise(NAME, bluetooth.NORDIC, b"\x01")
    daemon = start(start_daemon, "--bluetooth-away", str(SHORT_AWAY))
    daemon.wait_for(lambda s: (by_address(s, bluetooth.ADVERTISER_ADDRESS) or {}).get("online"), timeout=60,
                    what="hci1 online")
    bluetooth.stop_advertising()
    stopped = time.monotonic()
    daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS)["online"] is False,
                    timeout=TEMPORARY_TIMEOUT + SHORT_AWAY + 20,
                    what="hci1 offline")
    assert time.monotonic() - stopped >= SHORT_AWAY - 2, "offline before --bluetooth-away"
    bluetooth.advertise(NAME, bluetooth.NORDIC, b"\x01")
    daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS)["online"] is True, timeout=30,
                    what="hci1 online again")


def rotations(daemon, count: int, timeout: float) -> tuple[set[str], set[str]]:
    """Watches the advertiser's items until it was seen under `count` resolvable private addresses; returns those
    addresses and the ids of the items that carried them."""
    addresses: set[str] = set()
    ids: set[str] = set()

    def seen(snapshot: dict) -> bool:
        for item in bluetooth_devices(snapshot):
            facts = item["bluetooth"]
            if facts.get("name") == NAME and facts["addressType"] == "resolvable-private":
                addresses.add(facts["address"])
                ids.add(item["id"].lower())
        return len(addresses) >= count

    # The kernel takes a new resolvable private address for an advertising instance only when it sets the instance
    # up (add-adv), not when the RPA timeout passes with the instance advertising: re-add it after each timeout.
    deadline = time.monotonic() + timeout
    while True:
        try:
            daemon.wait_for(seen, timeout=min(ROTATION, max(deadline - time.monotonic(), 1)),
                            what=f"{count} resolvable private addresses")
            return addresses, ids
        except WaitError:
            if time.monotonic() >= deadline:
                raise
        bluetooth.stop_advertising()
        bluetooth.advertise(NAME, bluetooth.NORDIC)


def test_with_its_irk_rotating_addresses_stay_one_device(start_daemon):
    """The advertiser's identity (its public address) gets the IRK; with privacy on it advertises under resolvable
    private addresses rotating every 30 s: all of them are that one device, one id."""
    bluetooth.advertise(NAME, bluetooth.NORDIC)
    daemon = start(start_daemon)
    daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS), timeout=60, what="hci1's identity")
    identity = bluetooth_id(bluetooth.ADVERTISER_ADDRESS)
    ctl(daemon, "set", identity, "--irk", IRK)
    bluetooth.stop_advertising()
    bluetooth.set_privacy(IRK)
    bluetooth.advertise(NAME, bluetooth.NORDIC)
    addresses, ids = rotations(daemon, 2, timeout=120)
    assert ids == {identity}, (addresses, ids)
    item = advertiser_item(daemon.snapshot)
    assert item["bluetooth"]["ephemeral"] is False


def test_without_an_irk_rotating_addresses_are_separate_ephemeral_devices(start_daemon):
    bluetooth.set_privacy(IRK)
    bluetooth.advertise(NAME, bluetooth.NORDIC)
    daemon = start(start_daemon, "--bluetooth-away", str(SHORT_AWAY))
    addresses, ids = rotations(daemon, 2, timeout=120)
    assert len(ids) == len(addresses) >= 2
    assert ids == {bluetooth_id(address) for address in addresses}
    listed = [item for item in bluetooth_devices(daemon.snapshot) if item["bluetooth"].get("name") == NAME]
    assert listed and all(item["bluetooth"]["ephemeral"] is True for item in listed)
    # An ephemeral device that stops advertising leaves the snapshot (no offline item is kept).
    bluetooth.stop_advertising()
    daemon.wait_for(lambda s: advertiser_item(s) is None, timeout=TEMPORARY_TIMEOUT + SHORT_AWAY + 30,
                    what="the ephemeral devices gone")


def test_a_public_advertiser_merged_with_a_lan_device_is_one_item():
    """hci1's device merged with a host of the test LAN (namespaces inside the guest; bluetoothd's bus is reachable
    from the scanner's namespace, a file-system socket) by `peerscanctl merge`: one item with both facts."""
    from testlan.lan import TestLAN, real_oui_mac
    from Tests.Integration.conftest import Daemon

    bluetooth.advertise(NAME, bluetooth.NORDIC)
    with TestLAN() as lan:
        # The LAN's programs get its private system bus (for its avahi-daemon); bluetoothd is on the guest's own.
        # peerscand takes BlueZ and Avahi from one system bus: give it the guest's, without avahi (the LAN host
        # answers ARP).
        lan.bus_address = "unix:path=/run/dbus/system_bus_socket"
        host = lan.add_host("phone", mac=real_oui_mac(0x66))
        daemon = Daemon(lan, lan.tmpdir / "state", "--bluetooth-adapter", bluetooth.SCANNER, "--bluetooth-away",
                        str(AWAY), "--bluetooth-admit-after", "0", socket=lan.tmpdir / "io.peerscan", mdns_only=False)
        try:
            snapshot = daemon.wait_for(
                lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS) and any(
                    host.mac in item.get("macAddresses", []) for section in s["sections"] for item in section["items"]),
                timeout=90, what="the advertiser and the LAN host")
            lan_item = next(item for section in snapshot["sections"] for item in section["items"]
                            if host.mac in item.get("macAddresses", []))
            ble_item = by_address(snapshot, bluetooth.ADVERTISER_ADDRESS)
            subprocess.run([str(ROOT / ".build" / "debug" / "peerscanctl"), "merge", lan_item["id"], ble_item["id"],
                            "--socket", str(daemon.socket)], check=True, capture_output=True, text=True, timeout=30)
            merged = daemon.wait_for(
                lambda s: (item := by_address(s, bluetooth.ADVERTISER_ADDRESS)) is not None
                and item["id"] == lan_item["id"] and host.mac in item.get("macAddresses", []),
                timeout=30, what="one item with both facts")
            item = by_address(merged, bluetooth.ADVERTISER_ADDRESS)
            assert item["bluetooth"]["name"] == NAME and host.ipv4 in item["addresses"]
            assert ble_item["id"] not in [i["id"] for section in merged["sections"] for i in section["items"]]
        finally:
            daemon.stop()


def log_lines(daemon, message: str) -> list[str]:
    """peerscand's log lines with this message (its stderr, read by a thread of the `Daemon`'s own)."""
    return [line for line in list(daemon.stderr_lines) if re.search(rf"\b(info|notice|warning)\s+{message}\b", line)]


def registry_keys(daemon, prefix: str) -> list[tuple[str, str]]:
    """(device id, key) of the registry's keys starting with `prefix`: read after the daemon stopped."""
    with contextlib.closing(sqlite3.connect(f"file:{daemon.state_directory / 'registry.sqlite'}?mode=ro",
                                            uri=True)) as database:
        return database.execute("SELECT device_id, key FROM device_key WHERE key LIKE ? ORDER BY key",
                                (prefix + "%",)).fetchall()


def peak_rss_kib(daemon) -> int:
    """peerscand's peak resident set, VmHWM (the `Daemon`'s process is peerscand itself in the guest)."""
    return daemon.usage().peak_rss_kib


ADMIT_AFTER = 20  # --bluetooth-admit-after of the admission test


def test_an_advertiser_is_kept_only_once_heard_for_the_admission_time(start_daemon):
    """Admission in the real stack (issue 35): with --bluetooth-admit-after 20, hci1's public advertiser is first
    listed as not kept (`ephemeral: true`, no `new device` line), then, heard for 20 s, kept under the same id: one
    `new device` line, and its key in the registry."""
    bluetooth.advertise(NAME, bluetooth.NORDIC)
    started = time.monotonic()
    daemon = start(start_daemon, admit_after=ADMIT_AFTER)
    identity = bluetooth_id(bluetooth.ADVERTISER_ADDRESS)
    snapshot = daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS), timeout=60,
                               what="hci1's advertisement")
    listed = time.monotonic()
    item = by_address(snapshot, bluetooth.ADVERTISER_ADDRESS)
    assert item["id"].lower() == identity and item["bluetooth"]["ephemeral"] is True, item
    assert item["online"] is True
    assert not log_lines(daemon, "new device"), log_lines(daemon, "new device")
    daemon.wait_for(lambda s: (by_address(s, bluetooth.ADVERTISER_ADDRESS) or {"bluetooth": {}})["bluetooth"].get(
        "ephemeral") is False, timeout=ADMIT_AFTER + 30, what="hci1 kept")
    kept = time.monotonic()
    print(f"listed {listed - started:.1f} s after the start (not kept), kept {kept - listed:.1f} s later")
    # Not kept before it was heard for ADMIT_AFTER (the daemon heard it at the earliest when it started).
    assert kept - started >= ADMIT_AFTER - 1, (kept - started, kept - listed)
    item = by_address(daemon.snapshot, bluetooth.ADVERTISER_ADDRESS)
    assert item["id"].lower() == identity and item["online"] is True and item["displayName"] == NAME
    wait_until(lambda: log_lines(daemon, "new device"), 10, what="the new device line",
               details=daemon.log_tail)
    lines = log_lines(daemon, "new device")
    assert len(lines) == 1 and identity in lines[0].lower(), lines
    daemon.stop()
    assert registry_keys(daemon, "bluetooth:") == [(identity, f"bluetooth:{bluetooth.ADVERTISER_ADDRESS}")]


# The address flood: hci2 advertises under a new random static address again and again (testlan/radio/flood.py)
# beside hci1's steady advertisement. Each flood address is listed from its advertisement until bluetoothd drops it
# (TemporaryTimeout, 30 s) plus --bluetooth-away: far more than FLOOD_CAP at once at any rate above a few a second.
FLOOD_SECONDS = 120  # the two minutes
FLOOD_CAP = 40  # --bluetooth-max-devices
FLOOD_AWAY = 30  # --bluetooth-away
# --bluetooth-admit-after: hci1 is kept during the flood, no flood address lives that long. At 50, 37 of the flood's
# first addresses were kept (one run): counted as heard for 50 s, their removals by bluetoothd (due 30 s after each)
# had not reached peerscand.
FLOOD_ADMIT_AFTER = 90
FLOOD_PREFIX = "c7:0f"  # the flood's addresses: c7:0f:00:00:00:01 on
# The least seconds between two flood addresses: 20 a second, 1,200 a minute (the benchmark floods 1,000 a
# minute). Unpaced, raw HCI reaches ~200 a second in the guest, and then the first four flood addresses counted as
# heard (bluetoothd holding their objects) for --bluetooth-admit-after and were kept (4 `new device` lines in one
# run, 197 a second): bluetoothd's removals or peerscand's reading of them fell behind (docs/radio-testing.md).
FLOOD_INTERVAL = 0.05
STOP_TIMEOUT = 90  # seconds peerscand may take to stop after the flood
KEEP_HEARD = 10  # seconds between hci1's advertisements anew during the flood


class Watch(SnapshotWatch):
    """The most Bluetooth devices listed in any snapshot, flood addresses among them, hci1's item's states, and
    whether the host item showed the limit."""

    def __init__(self, daemon) -> None:
        self.most_listed = 0
        self.most_flood = 0
        self.flood_seen: set[str] = set()
        self.limit_shown = False
        self.stable_missing = 0  # snapshots without hci1's item
        self.stable_states: list[tuple[float, bool | None, bool | None]] = []  # (time, online, ephemeral) on change
        self.started = time.monotonic()
        super().__init__(daemon)

    def count(self, snapshot: dict) -> None:
        devices = bluetooth_devices(snapshot)
        flood = [item["bluetooth"]["address"] for item in devices
                 if item["bluetooth"]["address"].startswith(FLOOD_PREFIX)]
        self.most_listed = max(self.most_listed, len(devices))
        self.most_flood = max(self.most_flood, len(flood))
        self.flood_seen.update(flood)
        stable = by_address(snapshot, bluetooth.ADVERTISER_ADDRESS)
        self.stable_missing += stable is None
        state = (None, None) if stable is None else (stable["online"], stable["bluetooth"]["ephemeral"])
        if not self.stable_states or self.stable_states[-1][1:] != state:
            self.stable_states.append((round(time.monotonic() - self.started, 1), *state))
        self.limit_shown |= "bluetooth-devices" in host_limits(snapshot)


def test_an_address_flood_stays_within_the_cap_and_is_never_kept(start_daemon, request):
    """An address flood (issue 35): hci2 advertises under a new random static address every FLOOD_INTERVAL seconds
    for FLOOD_SECONDS, while hci1 advertises steadily. With --bluetooth-max-devices FLOOD_CAP no snapshot lists
    more Bluetooth devices than the cap; `system limit reached limit=bluetooth-devices` is logged once and the host
    item shows the limit; no flood address is logged as new or written to the registry; hci1 is listed in every
    snapshot and, heard past --bluetooth-admit-after, kept (its registry row), online after the flood."""
    bluetooth.advertise(NAME, bluetooth.NORDIC)
    daemon = start(start_daemon, "--bluetooth-away", str(FLOOD_AWAY), "--bluetooth-max-devices", str(FLOOD_CAP),
                   admit_after=FLOOD_ADMIT_AFTER)
    identity = bluetooth_id(bluetooth.ADVERTISER_ADDRESS)
    # btvirt reports an advertiser only when it starts advertising and when a scan starts: under the flood hci0's
    # discovery rounds came far enough apart that bluetoothd dropped hci1's object (2 of 5 runs): hci1 was absent
    # --bluetooth-away later, its run of being heard ended, and it was not admitted (or, kept, went offline); and once
    # (a CI run, the guest slow: 23 s from `registry loaded` to `starting`) hci1 was not reported within 60 s of the
    # start at all. A real advertiser is heard every ~100 ms: hci1 advertises anew every KEEP_HEARD seconds from the
    # start, each time a report to hci0.
    keeping = threading.Event()

    def keep_heard() -> None:
        while not keeping.wait(KEEP_HEARD):
            bluetooth.stop_advertising()
            bluetooth.advertise(NAME, bluetooth.NORDIC)

    def stop_keeper() -> None:
        keeping.set()
        keeper.join(timeout=60)

    keeper = threading.Thread(target=keep_heard, daemon=True)
    keeper.start()
    request.addfinalizer(stop_keeper)  # on every path; stopped earlier below when the test gets that far
    daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS), timeout=60, what="hci1's advertisement")
    rss_before = peak_rss_kib(daemon)
    watch = Watch(daemon)
    flood = subprocess.Popen([sys.executable, "-m", "testlan.radio.flood", "--index", str(bluetooth.FLOODER),
                              "--seconds", str(FLOOD_SECONDS), "--interval", str(FLOOD_INTERVAL),
                              "--prefix", FLOOD_PREFIX],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        output, errors = flood.communicate(timeout=FLOOD_SECONDS + 60)
        assert flood.returncode == 0, errors[-3000:]
    finally:
        if flood.poll() is None:
            flood.kill()
            flood.wait()
        watch.stop()
    result = json.loads(output)
    flooded = set(result["addresses"])
    print(f"flood: {len(flooded)} addresses in {result['seconds']} s, {result['rate']} a second "
          f"({result['rate'] * 60:.0f} a minute)")
    print(f"hci1's item (seconds into the flood, online, ephemeral; None: not listed): {watch.stable_states}")
    removals = [line for line in Path("/var/log/bluetoothd.log").read_text(errors="replace").splitlines()
                if bluetooth.ADVERTISER_ADDRESS.replace(":", "_").upper() in line.upper() and "emov" in line]
    print(f"bluetoothd's log: {len(removals)} lines of removing hci1's device {removals[-3:]}")
    # hci1 heard since before the flood, longer than --bluetooth-admit-after by now: kept, and online while the keeper
    # goes on. In one CI run none of hci1's advertisements anew in the flood's last 20 s reached peerscand (btvirt's
    # reports to hci0 starved by the flood's) and hci1 was offline --bluetooth-away after the last; the cap is what is
    # checked here (hci1 never taken out: `stable_missing`), not btvirt's delivery under a flood.
    snapshot = daemon.wait_for(lambda s: (by_address(s, bluetooth.ADVERTISER_ADDRESS) or {"bluetooth": {}})[
        "bluetooth"].get("ephemeral") is False and by_address(s, bluetooth.ADVERTISER_ADDRESS)["online"],
        timeout=60, what="hci1 kept and online")
    stop_keeper()
    rss_after = peak_rss_kib(daemon)
    listed_now = len(bluetooth_devices(snapshot))
    tree = subprocess.run(["timeout", "-s", "KILL", "20", "busctl", "--system", "tree", "org.bluez"],
                          capture_output=True, text=True)  # a diagnosis only: not checked
    objects = tree.stdout.lower().count(f"dev_{FLOOD_PREFIX.replace(':', '_')}")
    print(f"bluetoothd holds {objects} objects of flood addresses after the flood (busctl: {tree.returncode})")
    limit_lines = log_lines(daemon, "system limit reached")
    new_devices = log_lines(daemon, "new device")
    print(f"snapshots seen: {watch.snapshots}; Bluetooth devices listed at most: {watch.most_listed} (cap "
          f"{FLOOD_CAP}), flood addresses at most {watch.most_flood}, {len(watch.flood_seen)} flood addresses ever "
          f"listed, {listed_now} listed at the end; hci1 missing from {watch.stable_missing} snapshots")
    print(f"peerscand's peak RSS (VmHWM): {rss_before} KiB before the flood, {rss_after} KiB after "
          f"(+{rss_after - rss_before} KiB)")
    print(f"log: {len(limit_lines)} 'system limit reached', {len(new_devices)} 'new device'")
    assert watch.snapshots > 0 and watch.flood_seen, "no flood address was ever listed"
    assert watch.most_listed <= FLOOD_CAP, watch.most_listed
    assert watch.most_listed == FLOOD_CAP and watch.limit_shown, "the flood did not reach the cap"
    assert watch.stable_missing == 0, "the cap took hci1's item out"
    assert len(limit_lines) == 1 and "limit=bluetooth-devices" in limit_lines[0], limit_lines
    assert f"--bluetooth-max-devices={FLOOD_CAP}" in limit_lines[0], limit_lines
    assert not [line for line in new_devices if FLOOD_PREFIX in line.lower()
                or any(bluetooth_id(address) in line.lower() for address in watch.flood_seen)], new_devices
    assert len(new_devices) == 1 and identity in new_devices[0].lower(), new_devices
    item = by_address(snapshot, bluetooth.ADVERTISER_ADDRESS)
    assert item["id"].lower() == identity and item["online"] is True
    # Stopped here with more time than `Daemon.stop` gives (15 s): right after the flood peerscand took longer than
    # that to end once (2026-11-29, its last line `Triggering graceful shutdown for service ScanService`).
    stopping = time.monotonic()
    daemon.process.send_signal(signal.SIGTERM)
    try:
        daemon.process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        daemon.process.kill()
        raise AssertionError(f"peerscand did not stop within {STOP_TIMEOUT} s of SIGTERM after the flood (killed):\n"
                             + daemon.log_tail()) from None
    print(f"peerscand stopped {time.monotonic() - stopping:.1f} s after SIGTERM")
    rows = registry_keys(daemon, "bluetooth:")
    flood_rows = [key for _, key in rows if key.startswith(f"bluetooth:{FLOOD_PREFIX}")]
    print(f"registry: {len(rows)} Bluetooth keys, {len(flood_rows)} of flood addresses")
    assert flood_rows == []
    assert rows == [(identity, f"bluetooth:{bluetooth.ADVERTISER_ADDRESS}")]
