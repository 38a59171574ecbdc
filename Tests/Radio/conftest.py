"""Fixtures for the radio tests, which run INSIDE the radio guest (`make radio-test`: testlan/radio/guest.py boots
it, testlan/radio/air.py describes the air): peerscand as the integration tests run it (their `Daemon`: --dump
replayed, stderr kept), on the guest's own kernel with mac80211_hwsim radios — no network namespace is needed, the
guest has no network device but lo.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import uuid
from pathlib import Path

import pytest

from testlan.radio import air
from Tests.Integration.conftest import Daemon

ROOT = Path(__file__).resolve().parents[2]
# peerscan's namespace (DeviceID.namespace): the version 5 UUID of peerscan.io in the DNS namespace.
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
# The interfaces peerscand watches: the scanner and the station (the others are the access points).
INTERFACES = ("--interface", air.SCANNER, "--interface", air.STATION)


def pytest_collection_modifyitems(config, items):
    if os.environ.get("RADIO_GUEST") != "1":
        raise pytest.UsageError("the radio tests run inside the radio guest: make radio-test")


def network_id(ssid: str | None, security: str, bssid: str | None = None) -> str:
    """The contract's id of a Wi-Fi network: of SSID and security, of the BSSID for a hidden one."""
    name = f"wifi:{ssid}|{security}" if ssid is not None else f"wifi-bssid:{bssid}"
    return str(uuid.uuid5(NAMESPACE, name))


def interface_id(name: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"wifi-interface:{name}"))


def same_id(a: str, b: str) -> bool:
    return a.lower() == b.lower()


def networks(snapshot: dict) -> list[dict]:
    """The wifiNetwork items of the networks section, in order."""
    return [item for section in snapshot["sections"] if section["id"] == "networks" for item in section["items"]
            if item.get("kind") == "wifiNetwork"]


def network(snapshot: dict, ap: air.AccessPoint) -> dict | None:
    """The item an access point of the air belongs to (hidden: the one of its BSSID), or None."""
    ssid = None if ap.hidden else ap.ssid
    for item in networks(snapshot):
        if item["ssid"] == ssid and item["security"] == ap.security and (
                ssid is not None or any(point["bssid"] == ap.bssid for point in item["accessPoints"])):
            return item
    return None


def wifi_interface(snapshot: dict, name: str) -> dict | None:
    return next((item for section in snapshot["sections"] if section["id"] == "config" for item in section["items"]
                 if item.get("kind") == "wifiInterface" and item["name"] == name), None)


class GuestHost:
    """What `Daemon` needs of a test LAN, for the guest: a temp dir and a way to start peerscand (directly: the
    guest's kernel is the scanner's)."""

    def __init__(self, tmpdir: Path) -> None:
        self.tmpdir = tmpdir

    def popen_in_scanner(self, argv, **kwargs):
        return subprocess.Popen(argv, **kwargs)


class Air:
    """The air for one test: changes go through here and are undone afterwards."""

    def __init__(self) -> None:
        self.disabled: set[air.AccessPoint] = set()
        self.powered: set[air.AccessPoint] = set()

    def disable(self, ap: air.AccessPoint) -> None:
        air.disable(ap)
        self.disabled.add(ap)

    def enable(self, ap: air.AccessPoint) -> None:
        air.enable(ap)
        self.disabled.discard(ap)

    def set_txpower(self, ap: air.AccessPoint, dbm: int) -> None:
        air.set_txpower(ap, dbm)
        self.powered.add(ap)

    def restore(self) -> None:
        for ap in list(self.disabled):
            self.enable(ap)
        for ap in self.powered:
            air.set_txpower(ap, ap.default_txpower)
        self.powered.clear()


@pytest.fixture
def known_air():
    """The kernel's scan caches of the interfaces peerscand watches hold the air as configured and nothing else, so
    no test sees another's leftovers (a signal set through the medium, the twin, an access point switched off): the
    scanner's after a flushed scan (then more until every access point is in: a scan can miss the hidden one), the
    station's empty. A flushed scan is repeated (up to 5) while it hears more than the air: under load an access point
    a test switched off was once heard in the first flushed scan after its hostapd had exited."""
    expected = {ap.bssid for ap in air.AIR}
    for _ in range(5):
        seen = air.scan_until_seen(expected, flush=True, attempts=5)
        if seen.keys() == expected:
            break
    else:
        raise air.AirError(f"{air.SCANNER}: the air is not as configured: {sorted(seen)}")
    air.forget(air.STATION)


@pytest.fixture
def radio_air():
    state = Air()
    yield state
    state.restore()


@pytest.fixture
def start_daemon():
    """Starts peerscand --dump watching the scanner and the station (plus `extra`); stops it afterwards."""
    daemons: list[Daemon] = []
    folder = Path(tempfile.mkdtemp(prefix="radio-test-"))
    os.chmod(folder, 0o755)

    def start(*extra: str, user: int | None = None) -> Daemon:
        host = GuestHost(folder)
        daemon = Daemon(host, folder / f"state{len(daemons)}", *INTERFACES, *extra,
                        socket=folder / f"io.peerscan{len(daemons)}", user=user)
        daemons.append(daemon)
        return daemon

    yield start
    for daemon in daemons:
        daemon.stop()


class SnapshotWatch:
    """Hands `count` every snapshot the daemon publishes from the watch's start (its --dump stream: each changeset's
    result, in the `Daemon`'s `history`, which the watch empties as it goes so that a long flood does not hold them
    all), on a thread of its own until `stop`."""

    def __init__(self, daemon) -> None:
        self.daemon = daemon
        self.snapshots = 0
        with daemon.condition:
            daemon.history = []  # those before the start
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def count(self, snapshot: dict) -> None:
        raise NotImplementedError

    def _take(self) -> None:
        with self.daemon.condition:
            history, self.daemon.history = self.daemon.history, []
        for _, _, snapshot in history:
            self.snapshots += 1
            self.count(snapshot)

    def _run(self) -> None:
        while not self.stopping.is_set():
            with self.daemon.condition:
                self.daemon.condition.wait(timeout=0.5)
            self._take()

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        self._take()


def host_limits(snapshot: dict) -> list[str]:
    """The names of the limits the host item shows."""
    return [limit["name"] for section in snapshot["sections"] if section["id"] == "config"
            for item in section["items"] if item.get("kind") == "host" for limit in item.get("limits") or []]
