"""A person's say on the test LAN (issue 23): labels (a name, a note, important) with peerscanctl and over Varlink,
in the item and the registry, across a restart, an important device's presence lines at warning; and a person's
merge and split of devices, kept across restarts."""

from __future__ import annotations

import time
import uuid

from test_registry import ctl, link_mac, registry_rows

from testclient import applier, varlinkclient
from testlan.lan import real_oui_mac

from test_scanner import MAC_NAMESPACE, by_mac, log_lines, start_scanner


def test_a_label_shows_in_the_item_and_the_registry_and_survives_a_restart(lan, start_daemon, tmp_path):
    plug = lan.add_host("plug", mac=real_oui_mac(0x60))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, plug.mac), what="the plug")
    device_id = str(uuid.uuid5(MAC_NAMESPACE, plug.mac))
    found = by_mac(daemon.snapshot, plug.mac)
    assert found["label"] is None and found["important"] is False

    sequence = daemon.sequence
    printed = ctl(lan, daemon, "set", plug.mac, "--name", "Kitchen plug", "--note", "left of the sink", "--important")
    assert printed.stdout.strip() == f'{device_id}: name "Kitchen plug", note "left of the sink", important'
    item = daemon.wait_for(lambda s: by_mac(s, plug.mac)["label"] == "Kitchen plug", what="the label")
    item = by_mac(item, plug.mac)
    assert item["displayName"] == "Kitchen plug" and item["important"] is True and item["id"] == device_id
    # One update of the item, in one changeset.
    changes = daemon.changes_since(sequence)
    assert len(changes) == 1 and [u["item"]["id"] for u in changes[0].get("itemUpdates", [])] == [device_id], changes
    assert log_lines(daemon, "client labelled device", device_id)

    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        reply = service.GetDevice(device_id)
        known = service.ListKnownDevices()["devices"]
    assert (reply["label"], reply["note"], reply["important"]) == ("Kitchen plug", "left of the sink", True)
    assert reply["device"]["label"] == "Kitchen plug"
    assert [(d["id"], d["label"]) for d in known] == [(device_id, "Kitchen plug")]
    shown = ctl(lan, daemon, "show", "kitchen plug").stdout
    assert "label:       Kitchen plug" in shown and "note:        left of the sink" in shown, shown
    assert "important:   yes" in shown, shown
    # Only what is given changes; an empty note clears it.
    assert "note -, important" in ctl(lan, daemon, "set", device_id, "--note", "").stdout
    assert daemon.stop() == 0
    registry = tmp_path / "state" / "registry.sqlite"
    assert registry_rows(registry, "SELECT device_id, name, note, important FROM device_label") == [
        (device_id, "Kitchen plug", None, 1)]

    second = start_scanner(lan, start_daemon)
    snapshot = second.wait_for(lambda s: by_mac(s, plug.mac), what="the plug after the restart")
    again = by_mac(snapshot, plug.mac)
    assert (again["id"], again["label"], again["displayName"], again["important"]) == (
        device_id, "Kitchen plug", "Kitchen plug", True)
    # Back at warning: an important device's return is an alert.
    assert any("important=true" in line and "warning" in line for line in log_lines(second, "device online", device_id))

    # Cleared: the name found (none, for a MAC-only device) is back.
    ctl(lan, second, "set", device_id, "--name", "", "--no-important")
    second.wait_for(lambda s: by_mac(s, plug.mac)["label"] is None and by_mac(s, plug.mac)["displayName"] is None
                    and by_mac(s, plug.mac)["important"] is False, what="the label cleared")


def test_an_important_device_going_offline_is_logged_at_warning(lan, start_daemon):
    server = lan.add_host("server", mac=real_oui_mac(0x61))
    other = lan.add_host("other", mac=real_oui_mac(0x62))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, server.mac) and by_mac(s, other.mac), what="both hosts")
    ctl(lan, daemon, "set", server.mac, "--important")
    daemon.wait_for(lambda s: by_mac(s, server.mac)["important"], what="marked important")
    server.silence()
    other.silence()
    daemon.wait_for(lambda s: not by_mac(s, server.mac)["online"] and not by_mac(s, other.mac)["online"], timeout=30,
                    what="both offline")
    important = [line for line in log_lines(daemon, "device offline", server.mac) if server.mac in line]
    assert important and all("warning" in line and "important=true" in line for line in important), important
    plain = [line for line in log_lines(daemon, "device offline", other.mac) if other.mac in line]
    assert plain and all(" info " in f" {line} " and "important" not in line for line in plain), plain


def test_labelling_needs_root_or_the_control_group(lan, start_daemon):
    host = lan.add_host("cam", mac=real_oui_mac(0x63))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, host.mac), what="the camera")
    device_id = str(uuid.uuid5(MAC_NAMESPACE, host.mac))
    _, replies = varlinkclient.call_as(daemon.socket, [
        {"method": "io.peerscan.SetDeviceLabel", "parameters": {"id": device_id, "name": "Mine"}}])
    assert replies[0]["error"] == "io.peerscan.PermissionDenied", replies
    assert by_mac(daemon.snapshot, host.mac)["label"] is None
    _, replies = varlinkclient.call_as(daemon.socket, [
        {"method": "io.peerscan.SetDeviceLabel", "parameters": {"id": str(uuid.uuid4()), "name": "x"}}], uid=0, gid=0)
    assert replies[0]["error"] == "io.peerscan.DeviceNotFound", replies


def test_a_merge_of_two_mac_only_hosts_and_a_split_are_kept_across_restarts(lan, start_daemon, tmp_path):
    phone = lan.add_host("phone", mac=real_oui_mac(0x64))
    tablet = lan.add_host("tablet", mac=real_oui_mac(0x65))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, phone.mac) and by_mac(s, tablet.mac), what="both hosts")
    phone_id, tablet_id = (str(uuid.uuid5(MAC_NAMESPACE, host.mac)) for host in (phone, tablet))
    ctl(lan, daemon, "set", phone_id, "--name", "Phone")
    daemon.wait_for(lambda s: by_mac(s, phone.mac)["label"] == "Phone", what="the label")

    sequence = daemon.sequence
    printed = ctl(lan, daemon, "merge", "phone", tablet.mac).stdout
    assert printed.strip() == f"merged {tablet_id} into {phone_id}", printed

    def one_device(s):
        return (d := by_mac(s, phone.mac)) is not None and d["id"] == phone_id and tablet.mac in d["macAddresses"]

    snapshot = daemon.wait_for(one_device, what="one device")
    merged = by_mac(snapshot, tablet.mac)
    assert merged["id"] == phone_id and merged["label"] == "Phone" and tablet.ipv4 in merged["addresses"]
    assert tablet_id not in [d["id"] for d in applier.devices(snapshot).values()]
    changes = daemon.changes_since(sequence)
    assert len(changes) == 1, changes  # one changeset: the tablet's item deleted, the phone's updated
    assert any(f"into={phone_id}" in line for line in log_lines(daemon, "device merged", tablet_id))
    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        history = service.GetDevice(phone_id)
    assert sorted(s["value"] for s in history["macAddresses"]) == sorted([phone.mac, tablet.mac])
    assert daemon.stop() == 0

    second = start_scanner(lan, start_daemon)
    second.wait_for(lambda s: one_device(s) and by_mac(s, phone.mac)["online"], what="one device after the restart")
    assert not [line for line in log_lines(second, "new device", timeout=1) if tablet.mac in line]

    sequence = second.sequence
    printed = ctl(lan, second, "split", "phone", tablet.mac).stdout
    assert printed.strip() == f"split {tablet.mac} off {phone_id}: now {tablet_id}", printed

    def two_devices(s):
        return ((p := by_mac(s, phone.mac)) is not None and (t := by_mac(s, tablet.mac)) is not None
                and p["id"] == phone_id and t["id"] == tablet_id and p["macAddresses"] == [phone.mac])

    second.wait_for(two_devices, what="two devices again")
    assert len(second.changes_since(sequence)) == 1
    assert any(f"into={tablet_id}" in line for line in log_lines(second, "device split", phone_id))
    assert not [line for line in log_lines(second, "new device", timeout=1) if tablet.mac in line]
    assert second.stop() == 0
    registry = tmp_path / "state" / "registry.sqlite"
    assert registry_rows(registry, "SELECT device_id, key FROM device_split") == [(phone_id, f"mac:{tablet.mac}")]

    third = start_scanner(lan, start_daemon)
    third.wait_for(two_devices, what="still two after a restart")
    refused = ctl(lan, third, "split", phone_id, phone.mac, check=False)
    assert refused.returncode == 1 and "only key" in refused.stderr, refused.stderr


def test_a_label_stays_when_a_mac_only_device_announces_mdns_and_its_host_name_stays_split(lan, start_daemon):
    peer = lan.add_peer("alpha")  # its responder publishes nothing yet: a silent host
    mac = link_mac(peer.namespace)
    mac_id = str(uuid.uuid5(MAC_NAMESPACE, mac))
    daemon = start_scanner(lan, start_daemon)
    daemon.wait_for(lambda s: by_mac(s, mac), what="alpha, known by its MAC")
    ctl(lan, daemon, "set", mac, "--name", "Attic box", "--important")
    daemon.wait_for(lambda s: by_mac(s, mac)["label"] == "Attic box", what="the label")
    peer.register("Alpha", "_http._tcp", 80)
    snapshot = daemon.wait_for(lambda s: by_mac(s, mac)["hostName"] == "alpha.local", what="alpha named")
    named = by_mac(snapshot, mac)
    assert (named["id"], named["displayName"], named["label"], named["important"]) == (
        mac_id, "Attic box", "Attic box", True)

    # A person says the host name is another device: the MAC address keeps the id and the label.
    printed = ctl(lan, daemon, "split", mac_id, "alpha").stdout
    host_id = printed.split("now ")[-1].strip()
    assert host_id and host_id != mac_id, printed

    def apart(s):
        devices = applier.devices(s)
        host, box = devices.get(host_id), devices.get(mac_id)
        return (host is not None and box is not None and host["hostName"] == "alpha.local"
                and host["macAddresses"] == [] and box["hostName"] is None and box["macAddresses"] == [mac]
                and box["label"] == "Attic box")

    daemon.wait_for(apart, what="the host name split off")
    # Alpha still announces the address its MAC address answers on, and the kernel confirms it every probe round
    # (2 s): no automatic rule joins them again.
    time.sleep(6)
    assert apart(daemon.snapshot), daemon.snapshot
    assert daemon.stop() == 0

    second = start_scanner(lan, start_daemon)
    second.wait_for(apart, what="still apart after a restart")
