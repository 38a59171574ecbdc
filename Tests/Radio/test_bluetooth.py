"""Bluetooth LE through bluetoothd on the radio guest's air (issue 26): btvirt's hci1 advertises, peerscand (and,
alone, the Bluetooth source) discovers through BlueZ's D-Bus API on hci0.

The source's own check (`test_the_source_reports_the_advertiser…`) runs the host-built Swift test binary's
BluetoothLiveTests. The device-level tests follow issue 26's contract for the snapshot (the `bluetooth` field of a
`peer` item, `--bluetooth-away`, `peerscanctl set --irk`, `peerscanctl merge`): they need the device table of the
`ble` branch. They start peerscand with `--bluetooth-admit-after 0`: hci1's advertiser is kept at once, as before
issue 35's admission."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from testlan.radio import bluetooth
from testlan.waiting import WaitError

from conftest import NAMESPACE, ROOT

NAME = "radio-ble-a"
MANUFACTURER = "Nordic Semiconductor ASA"  # bluetooth.NORDIC's name in the SIG's table
# --bluetooth-away for the tests. bluetoothd sends no PropertiesChanged for an advertiser whose data and RSSI stay
# the same (btvirt reports RSSI 127, "not available", every time): peerscand counts an unpaired device as heard
# while bluetoothd holds its object.
AWAY = 60
# bluetoothd's TemporaryTimeout (its default): it drops an unpaired device's object that long after its last
# advertisement, and peerscand counts --bluetooth-away from that removal.
TEMPORARY_TIMEOUT = 30
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
                           "BluetoothLiveTests"], capture_output=True, text=True, env=environment, timeout=120)
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
    daemon = start(start_daemon)
    daemon.wait_for(lambda s: (by_address(s, bluetooth.ADVERTISER_ADDRESS) or {}).get("online"), timeout=60,
                    what="hci1 online")
    bluetooth.stop_advertising()
    stopped = time.monotonic()
    daemon.wait_for(lambda s: by_address(s, bluetooth.ADVERTISER_ADDRESS)["online"] is False,
                    timeout=TEMPORARY_TIMEOUT + AWAY + 20,
                    what="hci1 offline")
    assert time.monotonic() - stopped >= AWAY - 2, "offline before --bluetooth-away"
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
    daemon = start(start_daemon)
    addresses, ids = rotations(daemon, 2, timeout=120)
    assert len(ids) == len(addresses) >= 2
    assert ids == {bluetooth_id(address) for address in addresses}
    listed = [item for item in bluetooth_devices(daemon.snapshot) if item["bluetooth"].get("name") == NAME]
    assert listed and all(item["bluetooth"]["ephemeral"] is True for item in listed)
    # An ephemeral device that stops advertising leaves the snapshot (no offline item is kept).
    bluetooth.stop_advertising()
    daemon.wait_for(lambda s: advertiser_item(s) is None, timeout=TEMPORARY_TIMEOUT + AWAY + 30,
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
