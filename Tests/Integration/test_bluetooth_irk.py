"""Bluetooth IRKs on the test LAN (issue 26): `peerscanctl set DEVICE --irk HEX` binds a key to a device (SetDeviceIRK),
the registry keeps it (table device_irk) and loads it after a restart, `--irk none` removes it; `--irk -` and
`--irk-file` take the key off the command line; bad keys and unknown devices are refused; the key is never in a log
line or peerscanctl's output. (Advertisements need the radio guest: Tests/Radio.)"""

from __future__ import annotations

import uuid

import pytest
import varlink
from test_registry import ctl, registry_rows

from testclient import varlinkclient
from testlan.lan import real_oui_mac

from test_scanner import MAC_NAMESPACE, PEERSCANCTL, by_mac, log_lines, start_scanner

IRK = "ec0234a357c8ad05341010a60a397d9b"


def test_an_irk_is_bound_kept_across_a_restart_removed_and_never_shown(lan, start_daemon, tmp_path):
    phone = lan.add_host("phone", mac=real_oui_mac(0x70))
    daemon = start_scanner(lan, start_daemon, "--no-bluetooth")
    daemon.wait_for(lambda s: by_mac(s, phone.mac), what="the phone")
    device_id = str(uuid.uuid5(MAC_NAMESPACE, phone.mac))

    printed = ctl(lan, daemon, "set", phone.mac, "--irk", IRK.upper())
    assert printed.stdout.strip() == f"{device_id}: irk set"
    assert any("irk=set" in line for line in log_lines(daemon, "client set device irk", device_id))

    # The key from standard input and from a file (not on the command line: /proc/PID/cmdline, shell history).
    from_stdin = lan.run_in_scanner([PEERSCANCTL, "set", phone.mac, "--irk", "-", "--socket", str(daemon.socket)],
                                    input=IRK + "\n")
    assert from_stdin.stdout.strip() == f"{device_id}: irk set"
    key_file = tmp_path / "irk"
    key_file.write_text(f"irk:{IRK}\n")
    assert ctl(lan, daemon, "set", phone.mac, "--irk-file", str(key_file)).stdout.strip() == f"{device_id}: irk set"
    key_file.write_text("not a key\n")
    unreadable = ctl(lan, daemon, "set", phone.mac, "--irk-file", str(key_file), check=False)
    assert unreadable.returncode != 0 and "not a key" not in unreadable.stderr and "irk" in unreadable.stderr.lower()

    refused = ctl(lan, daemon, "set", phone.mac, "--irk", "0123", check=False)
    assert refused.returncode != 0 and "0123" not in refused.stderr
    with varlinkclient.client(daemon.socket).open("io.peerscan") as service:
        with pytest.raises(varlink.VarlinkError) as invalid:
            service.SetDeviceIRK(device_id, "xyz")
        assert invalid.value.error() == "io.peerscan.InvalidIRK"
        with pytest.raises(varlink.VarlinkError) as unknown:
            service.SetDeviceIRK(str(uuid.uuid4()), IRK)
        assert unknown.value.error() == "io.peerscan.DeviceNotFound"
    shown = ctl(lan, daemon, "show", device_id).stdout + ctl(lan, daemon, "list").stdout
    assert IRK not in shown.lower()
    assert daemon.stop() == 0
    assert not any(IRK in line.lower() for line in daemon.stderr_lines)
    registry = tmp_path / "state" / "registry.sqlite"
    assert registry_rows(registry, "SELECT device_id, irk FROM device_irk") == [(device_id, IRK)]

    second = start_scanner(lan, start_daemon, "--no-bluetooth")
    item = by_mac(second.wait_for(lambda s: by_mac(s, phone.mac), what="the phone after the restart"), phone.mac)
    assert item["id"] == device_id and "bluetooth" not in item
    assert ctl(lan, second, "set", device_id, "--irk", "none").stdout.strip() == f"{device_id}: irk removed"
    assert second.stop() == 0
    assert registry_rows(registry, "SELECT device_id, irk FROM device_irk") == []
