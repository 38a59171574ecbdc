"""A Bluetooth LE address flood from one of btvirt's controllers (in the radio guest only): the controller advertises
under a new random static address again and again, as "BLE spam" firmwares (ESP32, Flipper Zero) do.

It takes the controller for itself over HCI's user channel (raw HCI commands from this process, no exec per
address; the kernel's management interface and bluetoothd lose the controller until the flood ends) and, for each
address, sends LE Set Advertise Enable (off), LE Set Random Address and LE Set Advertise Enable (on): btvirt reports
an advertisement to every controller scanning at that moment (emulator/btdev.c, le_set_adv_enable_complete), and
again whenever one starts a scan while it is on. btvirt's LE controllers (`-L`) have the legacy advertising commands
only. The advertising data carry the flags a discoverable advertiser sends (LE General Discoverable): bluetoothd's
unfiltered discovery (bluetoothctl's `scan on`) makes no device object for an LE advertiser without them (peerscand's,
with a discovery filter, would).

    python -m testlan.radio.flood --index 2 --seconds 120 [--interval S] [--prefix C7:0F]

prints one JSON line at the end: the addresses advertised, the seconds and the rate.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import select
import socket
import struct
import subprocess
import sys
import time

HCI_CHANNEL_USER = 1
HCI_COMMAND_PKT = 0x01
HCI_EVENT_PKT = 0x04
EVT_CMD_COMPLETE = 0x0E
EVT_CMD_STATUS = 0x0F
RESET = (0x03, 0x0003)
LE_SET_RANDOM_ADDRESS = (0x08, 0x0005)
LE_SET_ADV_PARAMETERS = (0x08, 0x0006)
LE_SET_ADV_DATA = (0x08, 0x0008)
LE_SET_ADV_ENABLE = (0x08, 0x000A)
ADV_NONCONN_IND = 0x03  # what spam firmwares send most: non-connectable, undirected
OWN_ADDRESS_RANDOM = 0x01


class HCIError(Exception):
    pass


def opcode(command: tuple[int, int]) -> int:
    ogf, ocf = command
    return (ogf << 10) | ocf


def user_channel(index: int) -> socket.socket:
    """A socket bound to hciINDEX's user channel (CPython's bind takes no channel: libc's, through ctypes)."""
    sock = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, socket.BTPROTO_HCI)
    address = struct.pack("<HHH", socket.AF_BLUETOOTH, index, HCI_CHANNEL_USER)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.bind(sock.fileno(), ctypes.c_char_p(address), len(address)) != 0:
        errno = ctypes.get_errno()
        sock.close()
        raise OSError(errno, f"hci{index}: bind to the user channel failed")
    return sock


class Controller:
    """Raw HCI commands over a user channel, one at a time (each waits for its Command Complete)."""

    def __init__(self, index: int) -> None:
        self.sock = user_channel(index)

    def close(self) -> None:
        self.sock.close()

    def command(self, command: tuple[int, int], parameters: bytes = b"", timeout: float = 5) -> int:
        """Sends the command; returns its status (0: success)."""
        code = opcode(command)
        self.sock.send(struct.pack("<BHB", HCI_COMMAND_PKT, code, len(parameters)) + parameters)
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([self.sock], [], [], remaining)[0]:
                raise HCIError(f"no answer to opcode {code:#06x} within {timeout} s")
            packet = self.sock.recv(300)
            if len(packet) < 3 or packet[0] != HCI_EVENT_PKT:
                continue
            event, body = packet[1], packet[3:]
            if event == EVT_CMD_COMPLETE and len(body) >= 4 and struct.unpack_from("<H", body, 1)[0] == code:
                return body[3]
            if event == EVT_CMD_STATUS and len(body) >= 4 and struct.unpack_from("<H", body, 2)[0] == code:
                return body[0]


def advertising_data(name: str) -> bytes:
    """LE Set Advertising Data's parameters: the flags (LE General Discoverable, no BR/EDR) and the local name."""
    encoded = name.encode()
    data = bytes([2, 0x01, 0x06, len(encoded) + 1, 0x09]) + encoded
    return bytes([len(data)]) + data.ljust(31, b"\0")


def static_address(prefix: bytes, number: int) -> str:
    """A random static address (the two top bits set): PREFIX then the number, big-endian."""
    return ":".join(f"{octet:02x}" for octet in prefix + number.to_bytes(6 - len(prefix), "big"))


def flood(index: int, seconds: float, interval: float = 0, prefix: str = "c7:0f", name: str = "radio-flood",
          log=None) -> dict:
    """Advertises on hciINDEX under a new random static address every `interval` seconds at most, for `seconds`.
    Returns the addresses and the rate reached."""
    octets = bytes.fromhex(prefix.replace(":", ""))
    assert octets[0] & 0xC0 == 0xC0, "a random static address has the two top bits set"
    # Powered off through the management interface first: the user channel takes only a controller that is down.
    subprocess.run(["script", "-qec", f"timeout -s KILL 10 btmgmt --index {index} power off", "/dev/null"],
                   capture_output=True, timeout=20)
    deadline = time.monotonic() + 10
    while True:
        try:
            controller = Controller(index)
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    addresses: list[str] = []
    try:
        controller.command(RESET)
        parameters = struct.pack("<HHBBB6sBB", 0x00A0, 0x00A0, ADV_NONCONN_IND, OWN_ADDRESS_RANDOM, 0, b"\0" * 6,
                                 0x07, 0)  # every 100 ms, from the random address, on the three channels
        for command, body in ((LE_SET_ADV_PARAMETERS, parameters), (LE_SET_ADV_DATA, advertising_data(name))):
            status = controller.command(command, body)
            if status:
                raise HCIError(f"opcode {opcode(command):#06x}: status {status:#04x}")
        started = time.monotonic()
        end = started + seconds
        number = 0
        while time.monotonic() < end:
            number += 1
            address = static_address(octets, number)
            if number > 1:
                controller.command(LE_SET_ADV_ENABLE, b"\0")
            status = controller.command(LE_SET_RANDOM_ADDRESS, bytes.fromhex(address.replace(":", ""))[::-1])
            if status:
                raise HCIError(f"LE Set Random Address {address}: status {status:#04x}")
            status = controller.command(LE_SET_ADV_ENABLE, b"\1")
            if status:
                raise HCIError(f"LE Set Advertise Enable: status {status:#04x}")
            addresses.append(address)
            if log is not None and len(addresses) % 100 == 0:
                print(f"flood: {len(addresses)} addresses in {time.monotonic() - started:.1f} s", file=log, flush=True)
            if interval:
                time.sleep(max(0.0, started + number * interval - time.monotonic()))
        elapsed = time.monotonic() - started
        controller.command(LE_SET_ADV_ENABLE, b"\0")
    finally:
        controller.close()
    return {"addresses": addresses, "seconds": round(elapsed, 3), "rate": round(len(addresses) / elapsed, 2)}


def main() -> None:
    parser = argparse.ArgumentParser(prog="flood", description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=int, default=2, help="the controller's index (hciN)")
    parser.add_argument("--seconds", type=float, default=120)
    parser.add_argument("--interval", type=float, default=0, help="least seconds between addresses (0: at once)")
    parser.add_argument("--prefix", default="c7:0f", help="the addresses' first octets")
    arguments = parser.parse_args()
    result = flood(arguments.index, arguments.seconds, arguments.interval, arguments.prefix, log=sys.stderr)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
