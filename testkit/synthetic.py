"""Synthetic snapshots and changesets in the wire's JSON (docs/protocol.md, "The snapshot" and "Changesets: the index
semantics"), for the fake daemon (testkit/fakedaemon.py) and the page's benchmark (benchmarks/web.py).

``devices(n)`` makes n device items as peerscand would list them: mDNS hosts with services and addresses,
neighbour-only devices known by a MAC address, a few Bluetooth ones; name-based ids as peerscand derives them; in the
snapshot's order (named devices by ``displayName``, then the others by first MAC address, ties by id).
``snapshot(items)`` wraps them with the config section. ``difference(old, new)`` is the changeset between two such
snapshots for the cases the benchmark makes (updates, inserts, deletes; no moves): checked against
``testclient/applier.py`` by Tests/Page/test_fakedaemon.py.

Standard library only, deterministic for a seed.
"""

from __future__ import annotations

import random
import uuid

__all__ = ["NAMESPACE", "devices", "difference", "device_id", "snapshot", "sort_key"]

# DeviceID.namespace: uuid5(DNS namespace, "peerscan.io"), as docs/protocol.md ("Ids") says.
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
_MAC_NAMESPACE = uuid.uuid5(NAMESPACE, "mac-address")

# (OUI, vendor) of the kinds of devices a home or office LAN holds.
_VENDORS = [
    ("3c:22:fb", "Apple, Inc."), ("f0:18:98", "Apple, Inc."), ("00:17:88", "Signify Netherlands B.V."),
    ("b8:27:eb", "Raspberry Pi Foundation"), ("dc:a6:32", "Raspberry Pi Trading Ltd"), ("00:0c:29", "VMware, Inc."),
    ("f4:f5:d8", "Google, Inc."), ("18:b4:30", "Nest Labs Inc."), ("00:1b:63", "Apple, Inc."),
    ("30:05:5c", "Brother industries, LTD."), ("00:00:0c", "Cisco Systems, Inc"), ("ac:bc:32", "Apple, Inc."),
    ("5c:aa:fd", "Sonos, Inc."), ("a4:77:33", "Google, Inc."), ("00:11:32", "Synology Incorporated"),
    ("ec:fa:bc", "Espressif Inc."), ("70:ee:50", "Netatmo"), ("00:04:4b", "NVIDIA"),
]
# (instance name stem, service type, port, TXT record) of what such devices announce.
_SERVICES = [
    ("Living Room TV", "_airplay._tcp", 7000, {"model": "AppleTV6,2"}),
    ("Kitchen Speaker", "_googlecast._tcp", 8009, {"md": "Google Home Mini", "fn": "Kitchen"}),
    ("Office Printer", "_ipp._tcp", 631, {"rp": "ipp/print", "ty": "Brother HL-L2350DW"}),
    ("Hue Bridge", "_hue._tcp", 443, {"bridgeid": "001788fffe6e0b3a"}),
    ("NAS", "_smb._tcp", 445, {}),
    ("Build Server", "_ssh._tcp", 22, {}),
    ("Thermostat", "_hap._tcp", 8080, {"md": "Thermostat", "ci": "9"}),
    ("Speaker", "_spotify-connect._tcp", 4070, {"CPath": "/zc"}),
    ("Camera", "_http._tcp", 80, {"path": "/"}),
]
_ROOMS = ["Kitchen", "Hall", "Office", "Bedroom", "Garage", "Attic", "Lab", "Studio", "Den", "Porch"]


def device_id(key: str) -> str:
    """The name-based id peerscand gives a device met for the first time: of its host name, or of ``mac:…``."""
    if key.startswith("mac:"):
        return str(uuid.uuid5(_MAC_NAMESPACE, key[4:]))
    return str(uuid.uuid5(NAMESPACE, key))


def sort_key(item: dict) -> tuple:
    """The snapshot's order of device items: named ones by ``displayName``, then the others by first MAC, then id."""
    name = item.get("displayName")
    if name is not None:
        return (0, name, item["id"])
    return (1, (item.get("macAddresses") or [""])[0], item["id"])


def _mac(rng: random.Random, oui: str) -> str:
    return oui + "".join(f":{rng.randrange(256):02x}" for _ in range(3))


def _presence(rng: random.Random, online: bool, sources: str) -> str:
    return f"answered via={sources}" if online else f"unanswered asked={sources}"


def _mdns_device(rng: random.Random, number: int) -> dict:
    stem, service_type, port, txt = _SERVICES[number % len(_SERVICES)]
    oui, vendor = _VENDORS[rng.randrange(len(_VENDORS))]
    name = f"{_ROOMS[number % len(_ROOMS)]} {stem} {number:05d}"
    host = f"{stem.lower().replace(' ', '-')}-{number:05d}.local"
    ipv4 = f"10.{number >> 16 & 255}.{number >> 8 & 255}.{number & 255}"
    services = [{"name": name, "type": service_type, "domain": "local", "port": port, "txt": dict(txt)}]
    if rng.random() < 0.3:
        services.append({"name": name, "type": "_device-info._tcp", "domain": "local", "port": 0,
                         "txt": {"model": "MacSamba"}})
    services.sort(key=lambda service: (service["type"], service["name"], service["domain"]))
    online = rng.random() < 0.85
    return {
        "id": device_id(host), "kind": "peer", "hostName": host, "displayName": name,
        "addresses": [ipv4, f"fd70:7363:616e::{number:x}", f"fe80::{rng.randrange(1 << 16):x}:{number:x}%lan0"],
        "interfaces": ["lan0"], "services": services, "macAddresses": [_mac(rng, oui)], "vendor": vendor,
        "online": online, "presenceReason": _presence(rng, online, "arp,ndp,mdns"), "label": None,
        "important": rng.random() < 0.02,
    }


def _neighbour_device(rng: random.Random, number: int) -> dict:
    randomized = rng.random() < 0.3
    if randomized:  # a locally administered address: no vendor
        mac = f"{rng.randrange(64) << 2 | 2:02x}" + "".join(f":{rng.randrange(256):02x}" for _ in range(5))
        vendor = None
    else:
        oui, vendor = _VENDORS[rng.randrange(len(_VENDORS))]
        mac = _mac(rng, oui)
    online = rng.random() < 0.7
    return {
        "id": device_id(f"mac:{mac}"), "kind": "peer", "hostName": None, "displayName": None,
        "addresses": [f"10.{128 | number >> 16 & 127}.{number >> 8 & 255}.{number & 255}"], "interfaces": ["lan0"],
        "services": [], "macAddresses": [mac], "vendor": vendor, "online": online,
        "presenceReason": _presence(rng, online, "arp"), "label": None, "important": False,
    }


def _bluetooth_device(rng: random.Random, number: int) -> dict:
    address = "c0" + "".join(f":{rng.randrange(256):02x}" for _ in range(5))
    online = rng.random() < 0.9
    return {
        "id": str(uuid.uuid5(NAMESPACE, f"bluetooth:{address}")), "kind": "peer", "hostName": None,
        "displayName": f"Tag {number:05d}", "addresses": [], "interfaces": [], "services": [], "macAddresses": [],
        "vendor": None, "online": online, "presenceReason": _presence(rng, online, "ble"), "label": None,
        "important": False,
        "bluetooth": {"address": address, "addressType": "random-static", "name": f"Tag {number:05d}",
                      "appearance": 512, "manufacturer": "Tile, Inc.",
                      "services": ["0000feed-0000-1000-8000-00805f9b34fb"], "bars": rng.randrange(5),
                      "ephemeral": False},
    }


def devices(count: int, seed: int = 37) -> list[dict]:
    """``count`` device items (70 % mDNS hosts, 25 % neighbour-only, 5 % Bluetooth), in the snapshot's order.

    - Complexity: O(count log count).
    """
    rng = random.Random(seed)
    made = []
    for number in range(count):
        draw = rng.random()
        maker = _mdns_device if draw < 0.7 else _neighbour_device if draw < 0.95 else _bluetooth_device
        made.append(maker(rng, number))
    made.sort(key=sort_key)
    return made


def snapshot(items: list[dict], scanning: bool = True) -> dict:
    """A snapshot: the config section (scanning and host items) and, while scanning, ``networks`` with ``items``."""
    config = [
        {"id": str(uuid.uuid5(NAMESPACE, "config:scanning")), "kind": "scanning", "enabled": scanning},
        {"id": str(uuid.uuid5(NAMESPACE, "config:host")), "kind": "host", "hostName": "scanner.local",
         "avahiState": "running", "avahiReason": None, "interfaces": ["lan0"], "limits": []},
    ]
    sections = [{"id": "config", "items": config}]
    if scanning:
        sections.append({"id": "networks", "items": list(items)})
    return {"sections": sections}


def difference(old: dict, new: dict) -> dict:
    """The changeset taking ``old`` to ``new`` (same sections in the same order; items inserted, deleted or updated,
    the survivors in the same relative order). Raises ``ValueError`` for what it does not make: section changes,
    moves.

    - Complexity: O(n) in the items of both.
    """
    if [s["id"] for s in old["sections"]] != [s["id"] for s in new["sections"]]:
        raise ValueError("the sections differ: not a case of this differ")
    changes: dict[str, list] = {"itemDeletes": [], "itemInserts": [], "itemUpdates": []}
    for number, (before, after) in enumerate(zip(old["sections"], new["sections"], strict=True)):
        new_ids = {item["id"] for item in after["items"]}
        old_items = {item["id"]: item for item in before["items"]}
        for index, item in enumerate(before["items"]):
            if item["id"] not in new_ids:
                changes["itemDeletes"].append({"id": item["id"], "from": [number, index]})
        survivors_old = [item["id"] for item in before["items"] if item["id"] in new_ids]
        survivors_new = [item["id"] for item in after["items"] if item["id"] in old_items]
        if survivors_old != survivors_new:
            raise ValueError(f"items of section {before['id']} moved: not a case of this differ")
        for index, item in enumerate(after["items"]):
            previous = old_items.get(item["id"])
            if previous is None:
                changes["itemInserts"].append({"item": item, "at": [number, index]})
            elif previous != item:
                changes["itemUpdates"].append({"item": item, "at": [number, index]})
    return {key: value for key, value in changes.items() if value}
