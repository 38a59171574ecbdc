"""The device registry on the test LAN: identities that stay across sources and restarts, history served over
Varlink (the PyPI client) and printed by peerscanctl, forgetting, and the faults (a corrupt database, a full disk,
kill -9 during writes)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
import uuid
from pathlib import Path

import pytest
import varlink

from testclient import applier, varlinkclient
from testkit.waiting import wait_until
from testlan.lan import Peer, fill_file_system, real_oui_mac

from test_scanner import MAC_NAMESPACE, NAMESPACE, PEERSCANCTL, by_mac, log_lines, start_scanner

BENCH = str(__import__("conftest").PEERSCAND.with_name("peerscan-bench"))


def link_mac(namespace: str) -> str:
    return json.loads(subprocess.run(["ip", "-j", "-n", namespace, "link", "show", "lan0"], capture_output=True,
                                     text=True, check=True).stdout)[0]["address"]


def ctl(lan, daemon, *argv: str, check: bool = True) -> subprocess.CompletedProcess:
    return lan.run_in_scanner([PEERSCANCTL, *argv, "--socket", str(daemon.socket)], check=check)


def registry_rows(path: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(sql).fetchall()


def device_count(path: Path) -> int:
    """The devices a registry holds so far; 0 while its schema is not there yet or it is locked."""
    try:
        return registry_rows(path, "SELECT count(*) FROM device")[0][0]
    except sqlite3.Error:
        return 0


def test_a_mac_only_device_that_starts_announcing_mdns_keeps_its_id_across_restarts(lan, start_daemon, tmp_path):
    peer = lan.add_peer("alpha")  # its responder publishes nothing yet: a silent host
    mac = link_mac(peer.namespace)
    daemon = start_scanner(lan, start_daemon)
    found = daemon.wait_for(lambda s: by_mac(s, mac), what="alpha, known by its MAC")
    device_id = by_mac(found, mac)["id"]
    assert device_id == str(uuid.uuid5(MAC_NAMESPACE, mac)) and by_mac(found, mac)["hostName"] is None
    sequence = daemon.sequence
    peer.register("Alpha", "_http._tcp", 80)
    daemon.wait_for(lambda s: by_mac(s, mac)["hostName"] == "alpha.local", what="alpha named")
    assert by_mac(daemon.snapshot, mac)["id"] == device_id
    changes = daemon.changes_since(sequence)
    assert not any(d["id"] == device_id for c in changes for d in c.get("itemDeletes", [])), changes
    assert not any(i["item"]["id"] == device_id for c in changes for i in c.get("itemInserts", [])), changes
    assert any(u["item"]["id"] == device_id for c in changes for u in c.get("itemUpdates", [])), changes
    assert not log_lines(daemon, "device merged", timeout=0)
    assert daemon.stop() == 0

    # Restarted: mDNS may name it before its MAC answers; either way it keeps the id (not the host name's).
    second = start_scanner(lan, start_daemon)
    snapshot = second.wait_for(lambda s: any(d["hostName"] == "alpha.local" for d in applier.devices(s).values()),
                               what="alpha after the restart")
    alpha = next(d for d in applier.devices(snapshot).values() if d["hostName"] == "alpha.local")
    assert alpha["id"] == device_id != str(uuid.uuid5(NAMESPACE, "alpha.local"))
    assert log_lines(second, "device online", device_id), "a known device is back, not new"
    assert not any(device_id in line for line in log_lines(second, "new device", timeout=0))

    # Its history, over Varlink (the PyPI client) and in peerscanctl.
    with varlinkclient.client(second.socket).open("io.peerscan") as service:
        reply = service.GetDevice(device_id)
        known = service.ListKnownDevices()["devices"]
    assert reply["id"] == device_id and reply["present"] and reply["online"]
    assert reply["device"]["hostName"] == "alpha.local"
    assert [s["value"] for s in reply["hostNames"]] == ["alpha.local"]
    assert [s["value"] for s in reply["macAddresses"]] == [mac]
    assert peer.ipv4 in [s["value"] for s in reply["addresses"]]
    assert reply["firstSeen"].endswith("Z") and reply["firstSeen"] <= reply["lastSeen"]
    assert [d["id"] for d in known] == [device_id]
    shown = ctl(lan, second, "show", "alpha").stdout
    assert device_id in shown and "alpha.local" in shown and mac in shown and "first seen:" in shown, shown
    # By MAC address: the same device (its sightings' last seen is "now", so the seconds may differ).
    assert ctl(lan, second, "show", mac).stdout.splitlines()[0] == shown.splitlines()[0] == f"id:          {device_id}"
    known_table = ctl(lan, second, "known").stdout
    assert "FIRST SEEN" in known_table and device_id in known_table and "online" in known_table, known_table
    # "history", the old name of "known", still works (hidden from the help).
    aliased = ctl(lan, second, "history").stdout
    assert aliased.splitlines()[0] == known_table.splitlines()[0] and device_id in aliased, aliased
    missing = ctl(lan, second, "show", "nobody-here", check=False)
    assert missing.returncode == 1 and "no device" in missing.stderr


def test_a_known_host_that_turns_out_to_own_a_mac_only_device_absorbs_it_for_good(lan, start_daemon):
    peer = lan.add_peer("alpha")
    mac = link_mac(peer.namespace)
    # Alpha announces only an address nobody has: its MAC address is a device of its own.
    peer.register("Alpha", "_http._tcp", 80, addresses=["fd70:7363:616e::99"])
    daemon = start_scanner(lan, start_daemon)
    snapshot = daemon.wait_for(lambda s: by_mac(s, mac) and any(d["hostName"] == "alpha.local"
                                                                 for d in applier.devices(s).values()),
                               what="alpha and its MAC as two devices")
    alpha_id = str(uuid.uuid5(NAMESPACE, "alpha.local"))
    mac_id = by_mac(snapshot, mac)["id"]
    assert mac_id == str(uuid.uuid5(MAC_NAMESPACE, mac)) and applier.devices(snapshot)[alpha_id]["macAddresses"] == []
    # Then it announces its real IPv4 address, which the MAC-only device answers on: the two are one.
    peer.update("Alpha", "_http._tcp", addresses=["fd70:7363:616e::99", peer.ipv4])
    snapshot = daemon.wait_for(lambda s: mac_id not in applier.devices(s) and (d := by_mac(s, mac)) is not None
                               and d["id"] == alpha_id, what="the MAC-only device merged into alpha")
    merged = log_lines(daemon, "device merged", mac_id)
    assert any(f"into={alpha_id}" in line for line in merged), merged
    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        history = service.GetDevice(alpha_id)
        assert [s["value"] for s in history["macAddresses"]] == [mac]
        assert peer.ipv4 in [s["value"] for s in history["addresses"]]
        with pytest.raises(varlink.VarlinkError):
            service.GetDevice(mac_id)
    # Alpha withdraws its services (goodbyes: avahi forgets them), and peerscand restarts: the MAC address alone
    # is alpha, known.
    peer.unregister_all()
    daemon.wait_for(lambda s: not applier.devices(s)[alpha_id]["services"], what="alpha without services")
    assert daemon.stop() == 0
    second = start_scanner(lan, start_daemon)
    snapshot = second.wait_for(lambda s: (d := by_mac(s, mac)) is not None and d["hostName"] is None,
                               what="the MAC address alone after the restart (avahi may hold alpha a second)")
    assert by_mac(snapshot, mac)["id"] == alpha_id
    assert log_lines(second, "device online", alpha_id)
    assert not log_lines(second, "new device", timeout=0)


def test_two_host_names_on_one_mac_address_are_two_devices_with_their_own_ids(lan, start_daemon):
    alpha = lan.add_peer("alpha")
    beta = Peer(lan, alpha.index, "beta", alpha.namespace)  # a second responder on the same host
    lan.peers.append(beta)
    beta._start()
    alpha.register("Alpha", "_http._tcp", 80)
    beta.register("Beta", "_ssh._tcp", 22)
    mac = link_mac(alpha.namespace)
    daemon = start_scanner(lan, start_daemon)

    def both(s: dict) -> bool:
        names = {d["hostName"] for d in applier.devices(s).values() if mac in d["macAddresses"]}
        return names == {"alpha.local", "beta.local"}

    snapshot = daemon.wait_for(both, what="alpha and beta, both with the MAC address")
    ids = {d["hostName"]: d["id"] for d in applier.devices(snapshot).values()}
    assert ids == {"alpha.local": str(uuid.uuid5(NAMESPACE, "alpha.local")),
                   "beta.local": str(uuid.uuid5(NAMESPACE, "beta.local"))}
    assert daemon.stop() == 0
    second = start_scanner(lan, start_daemon)
    snapshot = second.wait_for(both, what="both again after the restart")
    assert {d["hostName"]: d["id"] for d in applier.devices(snapshot).values()} == ids


def test_forgetting_is_privileged_and_removes_the_device_and_its_history(lan, start_daemon):
    plug = lan.add_host("plug", mac=real_oui_mac(0x90))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, plug.mac), what="the plug")
    device_id = by_mac(daemon.snapshot, plug.mac)["id"]
    plug.silence()
    daemon.wait_for(lambda s: by_mac(s, plug.mac)["online"] is False, timeout=30, what="offline")
    _, replies = varlinkclient.call_as(daemon.socket, [{"method": "io.peerscan.ForgetDevice",
                                                        "parameters": {"id": device_id}}])
    assert replies[0]["error"] == "io.peerscan.PermissionDenied"
    result = ctl(lan, daemon, "forget", plug.mac)
    assert result.stdout.strip() == f"forgot {device_id}"
    daemon.wait_for(lambda s: by_mac(s, plug.mac) is None, what="the plug gone")
    _, replies = varlinkclient.call_as(daemon.socket, [{"method": "io.peerscan.GetDevice",
                                                        "parameters": {"id": device_id}}])
    assert replies[0] == {"error": "io.peerscan.DeviceNotFound", "parameters": {"id": device_id}}
    _, replies = varlinkclient.call_as(daemon.socket, [{"method": "io.peerscan.GetDevice",
                                                        "parameters": {"id": "not-a-uuid"}}])
    assert replies[0] == {"error": "org.varlink.service.InvalidParameter", "parameters": {"parameter": "id"}}
    again = ctl(lan, daemon, "forget", device_id, check=False)
    assert again.returncode == 1 and "knows no device" in again.stderr
    time.sleep(1.5)  # one write batch
    rows = registry_rows(daemon.state_directory / "registry.sqlite", "SELECT id FROM device")
    assert (device_id,) not in rows


def test_a_corrupt_database_is_moved_aside_and_the_daemon_starts_fresh(lan, start_daemon, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    (state / "registry.sqlite").write_bytes(b"SQLite format 3\0" + os.urandom(8192))
    plug = lan.add_host("plug", mac=real_oui_mac(0x91))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, plug.mac), what="the plug")
    assert any(" error registry unusable " in line and "registry.sqlite" in line for line in daemon.stderr_lines)
    assert any(" error registry moved aside " in line for line in daemon.stderr_lines)
    assert not any("registry unavailable" in line for line in daemon.stderr_lines)
    aside = list(state.glob("registry.sqlite.broken-*"))
    assert aside and aside[0].read_bytes().startswith(b"SQLite format 3\0")
    device_id = by_mac(daemon.snapshot, plug.mac)["id"]
    wait_until(lambda: (device_id,) in registry_rows(state / "registry.sqlite", "SELECT id FROM device"), 5,
               "the fresh registry to hold the plug", interval=0.2)


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MiB file system for the state directory (tmpfs), unmounted afterwards."""
    mountpoint = tmp_path / "state"
    mountpoint.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "peerscan-test", str(mountpoint)], check=True)
    try:
        yield mountpoint
    finally:
        subprocess.run(["umount", "-l", str(mountpoint)], check=False)


def test_a_full_disk_is_logged_the_daemon_keeps_serving_and_writes_resume(lan, start_daemon, small_disk):
    first = lan.add_host("first", mac=real_oui_mac(0x92))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, first.mac), what="the first host")
    time.sleep(1.5)  # written
    filler = small_disk / "filler"
    fill_file_system(filler)
    late = lan.add_host("late", mac=real_oui_mac(0x93))
    daemon.wait_for(lambda s: by_mac(s, late.mac), timeout=30, what="the host that came while the disk was full")
    late_id = by_mac(daemon.snapshot, late.mac)["id"]
    wait_until(lambda: any("registry write failed" in line for line in daemon.stderr_lines), 10,
               "'registry write failed'", interval=0.2, details=daemon.log_tail)
    failed = [line for line in daemon.stderr_lines if "registry write failed" in line]
    assert failed and " error registry write failed " in failed[0], failed
    # Still serving, from memory: the snapshot and the history of the host not written yet.
    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        assert service.GetDevice(late_id)["macAddresses"][0]["value"] == late.mac
        assert by_mac(service.GetSnapshot()["snapshot"], late.mac) is not None
    filler.unlink()
    wait_until(lambda: any("registry writes resumed" in line for line in daemon.stderr_lines), 10,
               "'registry writes resumed'", interval=0.2, details=daemon.log_tail)
    assert (late_id,) in registry_rows(small_disk / "registry.sqlite", "SELECT id FROM device")


def test_kill_9_during_heavy_writes_leaves_a_consistent_database(lan, start_daemon, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    database = state / "registry.sqlite"
    # Write batches back to back (1,000 devices churning as fast as they can), then SIGKILL mid-stream, three times.
    for round in range(3):
        writer = subprocess.Popen([BENCH, "registry-churn", "--devices", "1000", "--rate", "0", "--flush-interval",
                                   "0", "--seconds", "60", "--database", str(database)],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Once every device is written (a sanitized build takes several seconds for that), go on churning a while.
        wait_until(lambda: database.exists() and device_count(database) == 1000, 60,
                   "the writer to write 1,000 devices",
                   give_up=lambda: None if writer.poll() is None else "the writer exited")
        time.sleep(1 + round)
        writer.send_signal(signal.SIGKILL)
        writer.wait()
        assert registry_rows(database, "PRAGMA integrity_check") == [("ok",)]
        assert registry_rows(database, "SELECT count(*) FROM device")[0][0] == 1000
    # And peerscand takes it as it is.
    daemon = start_daemon("--forget-after", "600", mdns_only=False)
    daemon.wait_serving()
    loaded = next(line for line in daemon.stderr_lines if "registry loaded" in line)
    assert "devices=1000" in loaded, loaded
    assert not any("registry unusable" in line for line in daemon.stderr_lines)
    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        assert len(service.ListKnownDevices()["devices"]) == 1000


def test_the_wifi_baseline_is_for_root_and_the_control_group_only(lan, start_daemon):
    """Where this host has been (the networks it connected to, those trusted) is not every local user's to read; an
    SSID to trust must be listed (there is no Wi-Fi on the test LAN)."""
    daemon = start_scanner(lan, start_daemon)
    for method, parameters in (("ListKnownWiFiNetworks", {}), ("TrustWiFiNetwork", {"ssid": "HomeNet"}),
                               ("UntrustWiFiNetwork", {"ssid": "HomeNet"})):
        _, replies = varlinkclient.call_as(daemon.socket, [{"method": f"io.peerscan.{method}",
                                                            "parameters": parameters}])
        assert replies[0]["error"] == "io.peerscan.PermissionDenied", (method, replies)
    assert ctl(lan, daemon, "wifi", "known").returncode == 0
    refused = ctl(lan, daemon, "wifi", "trust", "HomeNet", check=False)
    assert refused.returncode != 0 and "HomeNet" in refused.stderr, refused.stderr

