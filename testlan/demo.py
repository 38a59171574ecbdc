"""The demo scene: peers that appear, change and leave over time, with peerscand watching them.

``python3 -m testlan demo [--duration SECONDS] [--peerscand PATH]`` brings up the test LAN, starts peerscand in the
scanner namespace and shows its changes as they happen, while a script plays the scene in a loop. Ctrl-C (or the
duration) ends it and tears everything down.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

from .lan import TestLAN

ROOT = Path(__file__).resolve().parents[1]


def _describe(changes: dict, snapshot_items: dict) -> list[str]:
    """One line per change, for people."""
    lines = []
    for insert in changes.get("itemInserts", []):
        item = insert["item"]
        snapshot_items[item["id"]] = item
        if item["kind"] == "peer":
            types = ",".join(sorted({s["type"] for s in item["services"]}))
            lines.append(f"+ {item['displayName']} ({item['hostName']}) {' '.join(item['addresses'])} {types}")
    for update in changes.get("itemUpdates", []):
        item = update["item"]
        old = snapshot_items.get(item["id"], {})
        snapshot_items[item["id"]] = item
        if item["kind"] == "peer":
            lines.append(f"~ {item['displayName']} ({item['hostName']}) {_difference(old, item)}")
        elif item["kind"] == "host":
            lines.append(f"  avahi {item['avahiState']}" + (f" ({item['avahiReason']})" if item["avahiReason"] else ""))
        elif item["kind"] == "scanning":
            lines.append(f"  scanning {'on' if item['enabled'] else 'off'}")
    for delete in changes.get("itemDeletes", []):
        item = snapshot_items.pop(delete["id"], {})
        if item.get("kind") == "peer":
            lines.append(f"- {item['displayName']} ({item['hostName']})")
    return lines


def _difference(old: dict, new: dict) -> str:
    parts = []
    old_services = {(s["name"], s["type"]): s for s in old.get("services", [])}
    new_services = {(s["name"], s["type"]): s for s in new["services"]}
    parts += [f"+{key[1]}" for key in new_services.keys() - old_services.keys()]
    parts += [f"-{key[1]}" for key in old_services.keys() - new_services.keys()]
    for key in new_services.keys() & old_services.keys():
        if old_services[key]["port"] != new_services[key]["port"]:
            parts.append(f"{key[1]} port {old_services[key]['port']}→{new_services[key]['port']}")
        for txt_key in sorted(set(old_services[key]["txt"]) | set(new_services[key]["txt"])):
            before, after = old_services[key]["txt"].get(txt_key), new_services[key]["txt"].get(txt_key)
            if before != after:
                parts.append(f"txt {txt_key}={before}→{after}")
    parts += [f"address {a} new" for a in sorted(set(new["addresses"]) - set(old.get("addresses", [])))]
    parts += [f"address {a} gone" for a in sorted(set(old.get("addresses", [])) - set(new["addresses"]))]
    return ", ".join(parts) or "changed"


def _show(process: subprocess.Popen) -> None:
    items: dict = {}
    for line in process.stdout:
        message = json.loads(line)
        stamp = time.strftime("%H:%M:%S")
        if message["event"] == "snapshot" and not message.get("final"):
            for section in message["snapshot"]["sections"]:
                for item in section["items"]:
                    items[item["id"]] = item
            print(f"{stamp} snapshot at sequence {message['sequence']}: {len(items) - 2} devices", flush=True)
        elif message["event"] == "changeset":
            for text in _describe(message["changes"], items):
                print(f"{stamp} [{message['sequence']}] {text}", flush=True)


def _scene(lan: TestLAN, stop: threading.Event) -> None:
    """Peers appear, change and leave, in a loop."""
    def pause(seconds: float) -> bool:
        return not stop.wait(seconds)

    tv = lan.add_peer("livingroom-tv")
    printer = lan.add_peer("office-printer")
    laptop = lan.add_peer("laptop")
    round_number = 0
    while not stop.is_set():
        round_number += 1
        tv.register("Living Room TV", "_airplay._tcp", 7000, {"model": "TV1", "fw": f"{round_number}.0"})
        if not pause(2): break
        printer.register("Office Printer", "_ipp._tcp", 631, {"rp": "ipp/print", "color": "T"})
        printer.register("Office Printer", "_http._tcp", 80, {"path": "/"})
        if not pause(2): break
        tv.register("Living Room TV", "_raop._tcp", 7000, {"am": "TV1"})
        laptop.register("Laptop", "_ssh._tcp", 22)
        if not pause(2): break
        printer.update("Office Printer", "_ipp._tcp", txt={"rp": "ipp/print", "color": "F"})
        if not pause(2): break
        laptop.update("Laptop", "_ssh._tcp", port=2222)
        if not pause(2): break
        laptop.unregister("Laptop", "_ssh._tcp")
        if not pause(2): break
        tv.unregister("Living Room TV", "_raop._tcp")
        tv.unregister("Living Room TV", "_airplay._tcp")
        printer.unregister("Office Printer", "_http._tcp")
        printer.unregister("Office Printer", "_ipp._tcp")
        if not pause(3): break


def demo(duration: float | None, peerscand: str) -> None:
    with TestLAN() as lan:
        lan.start_avahi()
        print(f"test LAN up (scanner namespace {lan.scanner_ns}); starting peerscand; Ctrl-C ends the demo", flush=True)
        state = Path(lan.tmpdir) / "state"
        socket = Path(lan.tmpdir) / "io.peerscan"
        process = lan.popen_in_scanner([peerscand, "--dump", "--state-directory", str(state), "--socket", str(socket)],
                                       stdout=subprocess.PIPE, text=True)
        shower = threading.Thread(target=_show, args=(process,), daemon=True)
        shower.start()
        stop = threading.Event()
        scene = threading.Thread(target=_scene, args=(lan, stop), daemon=True)
        scene.start()
        try:
            scene.join(timeout=duration)
        except KeyboardInterrupt:
            pass
        stop.set()
        scene.join(timeout=20)


def default_peerscand() -> str:
    return os.environ.get("PEERSCAND", str(ROOT / ".build" / "debug" / "peerscand"))
