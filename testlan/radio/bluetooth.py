"""Bluetooth LE in the radio guest (in the guest only): bluetoothd on a system bus of its own, btvirt's three emulated
LE controllers — hci0 (SCANNER, peerscand's), hci1 (ADVERTISER) and hci2 (FLOODER: flood.py's address flood) — and
advertising on hci1 through the kernel's management API (btmgmt). bluetooth.sh beside this file starts them
(`bluetooth_up`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCANNER = "hci0"
SCANNER_ADDRESS = "00:aa:01:00:00:00"
ADVERTISER = 1  # hci1's index
ADVERTISER_ADDRESS = "00:aa:01:01:00:01"
FLOODER = 2  # hci2's index: the address flood's controller (flood.py)
NORDIC = 0x0059  # a company identifier: "Nordic Semiconductor ASA" in the SIG's table


def up() -> None:
    """Starts the system bus, btvirt and bluetoothd, and powers the scanner and the advertiser (idempotent per guest
    boot; the flood powers hci2 off and takes it over HCI's user channel itself)."""
    if not Path("/var/log/bluetoothd.log").exists():  # the guest's /var/log is a tmpfs of this boot
        # Up to 4 starts of btvirt (bluetooth.sh) of ~20 s each, and bluetoothd's 20 s.
        subprocess.run(["sh", "-c", f". {HERE / 'bluetooth.sh'}; bluetooth_up"], check=True, timeout=150)
    for name in ("hci0", "hci1"):
        busctl("set-property", "org.bluez", f"/org/bluez/{name}", "org.bluez.Adapter1", "Powered", "b", "true")


def busctl(*arguments: str, user: int | None = None) -> subprocess.CompletedProcess:
    prefix = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] if user is not None else []
    return subprocess.run([*prefix, "timeout", "-s", "KILL", "10", "busctl", "--system", *arguments],
                          capture_output=True, text=True, check=user is None)


def btmgmt(*arguments: str) -> str:
    """btmgmt under script(1): it prints nothing without a tty."""
    command = " ".join(["timeout", "-s", "KILL", "10", "btmgmt", *arguments])
    done = subprocess.run(["script", "-qec", command, "/dev/null"], capture_output=True, text=True, timeout=20)
    return done.stdout


def advertising_data(name: str | None, company: int | None = None, payload: bytes = b"") -> str:
    """The AD structures, hex: the complete local name (0x09) and manufacturer data (0xFF, company little-endian)."""
    data = b""
    if name is not None:
        encoded = name.encode()
        data += bytes([len(encoded) + 1, 0x09]) + encoded
    if company is not None:
        field = company.to_bytes(2, "little") + payload
        data += bytes([len(field) + 1, 0xFF]) + field
    return data.hex()


def advertise(name: str | None, company: int | None = None, payload: bytes = b"", instance: int = 1) -> None:
    """hci1 advertises (general discoverable, connectable) until `stop_advertising`."""
    output = btmgmt("--index", str(ADVERTISER), "add-adv", "-g", "-c", "-d",
                    advertising_data(name, company, payload), str(instance))
    assert "Instance added" in output, output


def stop_advertising() -> None:
    btmgmt("--index", str(ADVERTISER), "clr-adv")


def set_privacy(irk: str | None, rpa_timeout: int = 30) -> None:
    """Privacy on hci1 with `irk` (32 hex digits, most significant first, as peerscanctl takes it) and a short RPA
    timeout (the kernel's least: 30 s, through debugfs), or off. The controller is powered off around it, as the
    kernel requires."""
    debugfs = Path("/sys/kernel/debug/bluetooth")
    if not debugfs.exists():
        subprocess.run(["mount", "-t", "debugfs", "debugfs", "/sys/kernel/debug"], check=True)
    btmgmt("--index", str(ADVERTISER), "power", "off")
    if irk is None:
        btmgmt("--index", str(ADVERTISER), "privacy", "off")
    else:
        (debugfs / f"hci{ADVERTISER}" / "rpa_timeout").write_text(f"{rpa_timeout}\n")
        # btmgmt hands the key to the management API as written, and mgmt (like the kernel and bluetoothd's
        # storage) holds keys least significant octet first: reverse the spec's most-significant-first digits.
        btmgmt("--index", str(ADVERTISER), "privacy", "on", bytes.fromhex(irk)[::-1].hex())
    btmgmt("--index", str(ADVERTISER), "power", "on")
