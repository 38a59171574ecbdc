"""The Wi-Fi and Bluetooth screens of the live page, which the test LAN cannot fill (it has no radios): peerscan-web
on a fake peerscand (testkit/fakedaemon.py) serving a snapshot with access points and Bluetooth devices, in a
loopback-only namespace, and Chromium beside it. Their README screenshots are taken here; then a changeset brings an
SSID with control bytes and a Bluetooth name with markup, which must be shown as text.
"""

from __future__ import annotations

import copy
import subprocess
import uuid
from pathlib import Path

import pytest
from test_page import IMAGES, ORIGIN, PORT, TOKEN, settled_screenshot

from testkit.browser import loopback_namespace
from testkit.fakedaemon import FakeDaemon
from testkit.page import Page
from testkit.synthetic import difference
from testkit.waiting import wait_until

WEB = str(__import__("conftest").PEERSCAND.with_name("peerscan-web"))
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")
CONTROL_SSID = "caf\u00e9\x07\x1b[31mred\x1b[0m\r\nline\x7f\x01"
MARKUP_NAME = "<img src=x onerror=window.__canary=1><script>window.__canary=1</script>"


def identifier(key: str) -> str:
    return str(uuid.uuid5(NAMESPACE, key))


def wifi(ssid: str | None, security: str, points: list[tuple[str, int, int, str]], bars: int,
         connected: bool = False) -> dict:
    return {"id": identifier(f"wifi:{ssid}|{security}" if ssid is not None else f"wifi-bssid:{points[0][0]}"),
            "kind": "wifiNetwork", "ssid": ssid, "security": security, "bars": bars, "connected": connected,
            "accessPoints": [{"bssid": bssid, "frequency": frequency, "channel": channel, "band": band}
                             for bssid, frequency, channel, band in points]}


def ble(name: str | None, address: str, address_type: str, manufacturer: str | None, bars: int,
        ephemeral: bool = False) -> dict:
    return {"id": identifier(f"bluetooth:{address}"), "kind": "peer", "hostName": None, "displayName": name,
            "addresses": [], "interfaces": [], "services": [], "macAddresses": [], "vendor": None, "online": True,
            "presenceReason": "answered via=ble", "label": None, "important": False,
            "bluetooth": {"address": address, "addressType": address_type, "name": name, "appearance": None,
                          "manufacturer": manufacturer, "services": [], "bars": bars, "ephemeral": ephemeral}}


def radio_snapshot() -> dict:
    """A host with a Wi-Fi interface connected to "home", the networks in range and Bluetooth devices nearby."""
    home = wifi("home", "wpa2-personal", [("02:00:00:00:01:00", 2437, 6, "2.4GHz"),
                                          ("02:00:00:00:01:01", 5180, 36, "5GHz")], 4, connected=True)
    networks = [home,
                wifi("café libre", "open", [("02:00:00:00:02:00", 2412, 1, "2.4GHz")], 2),
                wifi("home", "open", [("02:00:00:00:03:00", 2462, 11, "2.4GHz")], 3),
                wifi("Neighbours", "wpa3-personal", [("02:00:00:00:04:00", 5745, 149, "5GHz"),
                                                     ("02:00:00:00:04:01", 5765, 153, "5GHz")], 1),
                wifi(None, "wpa2-personal", [("02:00:00:00:05:00", 5955, 1, "6GHz")], 1)]
    devices = [ble("Phone", "5a:11:22:33:44:55", "resolvable-private", "Apple, Inc.", 4),
               ble("Thermostat", "18:b4:30:01:02:04", "public", "Google", 2),
               ble("Watch", "7b:aa:bb:cc:dd:ee", "resolvable-private", "Apple, Inc.", 2, ephemeral=True),
               ble(None, "c0:ff:ee:00:00:01", "random-static", None, 1, ephemeral=True)]
    config = [{"id": identifier("config:scanning"), "kind": "scanning", "enabled": True},
              {"id": identifier("config:host"), "kind": "host", "hostName": "scanner.local", "avahiState": "running",
               "avahiReason": None, "interfaces": ["lan0", "wlan0"], "limits": []},
              {"id": identifier("wifi-interface:wlan0"), "kind": "wifiInterface", "name": "wlan0", "up": True,
               "connected": {"network": home["id"], "ssid": "home", "bssid": "02:00:00:00:01:00", "band": "2.4GHz"}}]
    return {"sections": [{"id": "config", "items": config}, {"id": "networks", "items": networks + devices}]}


@pytest.fixture
def fake_stack(tmp_path: Path):
    """(namespace, fake peerscand) with peerscan-web on the namespace's loopback; all stopped at the end."""
    (tmp_path / "token").write_text(TOKEN + "\n")
    with loopback_namespace() as namespace, FakeDaemon(tmp_path / "io.peerscan", radio_snapshot()) as daemon:
        with open(tmp_path / "peerscan-web.log", "w") as log:
            web = subprocess.Popen(["nsenter", f"--net={namespace}", "--", WEB, "--listen", f"127.0.0.1:{PORT}",
                                    "--socket", str(daemon.path), "--token-file", str(tmp_path / "token")],
                                   stdout=log, stderr=log)
            try:
                yield namespace, daemon
            finally:
                web.terminate()
                web.wait(timeout=10)


def test_wifi_and_bluetooth_screens_show_control_bytes_and_markup_as_text(fake_stack, make_browser):
    namespace, daemon = fake_stack
    page = Page(make_browser(namespace), ORIGIN, token=TOKEN)
    wait_until(lambda: _served(page), timeout=30, what="peerscan-web serving the page")
    page.open("/wifi")
    page.wait_text("ul.networks", "café libre")
    settled_screenshot(page, "page-wifi-1280")
    page.open("/bluetooth")
    page.wait_text("ul.bluetooth", "Thermostat")
    settled_screenshot(page, "page-bluetooth-1280")
    page.mark()

    before = radio_snapshot()
    after = copy.deepcopy(before)
    items = after["sections"][1]["items"]
    items.insert(1, wifi(CONTROL_SSID, "open", [("02:00:00:00:06:00", 2417, 2, "2.4GHz")], 3))
    items.append(ble(MARKUP_NAME, "c0:ff:ee:00:00:02", "random-static", MARKUP_NAME, 3))
    sequence = daemon.push(difference(before, after))

    wait_until(lambda: page.sequence() == (daemon.epoch, sequence), timeout=20, what="the changeset shown")
    shown = page.driver.execute_script("""
      const row = document.querySelector(`li[data-id="${arguments[0]}"]`);
      const text = (selector) => row?.querySelector(selector)?.textContent;
      return {name: text(".name"), maker: text(".cell:nth-child(2)")};
    """, items[-1]["id"])
    assert MARKUP_NAME in shown["name"] and MARKUP_NAME in shown["maker"], shown
    page.driver.execute_script("document.querySelector(\"nav a[data-screen='wifi']\").click();")
    page.wait_text("ul.networks", "red")
    ssid = page.driver.execute_script("return document.querySelector(`li[data-id='${arguments[0]}'] .name`)"
                                      ".textContent;", items[1]["id"])
    assert ssid == CONTROL_SSID, repr(ssid)
    assert page.marked(), "the page was loaded again"
    assert page.driver.execute_script("return typeof window.__canary;") == "undefined"
    assert page.driver.execute_script("return document.querySelectorAll('main img, main script').length;") == 0
    assert page.browser.csp_violations() == []
    assert (IMAGES / "page-wifi-1280.png").exists()


def _served(page: Page) -> bool:
    """Whether peerscan-web served the page (it may still be starting: Chromium then shows its error page)."""
    page.driver.get(ORIGIN + "/api/known")
    return page.driver.execute_script("return document.body.textContent.includes('devices');")
