"""The live page (issue 37) end to end: peerscand and peerscan-web in the test LAN's scanner namespace (as in
test_web.py), headless Chromium in that namespace (testkit/browser.py), the page read from the DOM (testkit/page.py).

The page must equal GetSnapshot after a churn of hundreds of changesets without a reload, resume a cut stream with
Last-Event-ID and follow a peerscand restart, make a person's edits (with the token only) that last, and show hostile
text as text. The screenshots for the README (docs/images/page-*.png, with PEERSCAN_UPDATE_SCREENSHOTS=1) are
taken here from a real scan.
"""

from __future__ import annotations

import os
import threading
import uuid
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from test_varlink import change, device_named
from test_web import PORT, TOKEN, Web

from testclient.varlinkclient import client
from testkit.page import Page, expected_rows
from testkit.waiting import wait_until
from testlan.lan import real_oui_mac

from test_scanner import MAC_NAMESPACE, by_mac, start_scanner

ORIGIN = f"http://127.0.0.1:{PORT}"
# Where the screenshots go: .build/page-screenshots (a test run leaves the tree clean); with
# PEERSCAN_UPDATE_SCREENSHOTS=1, docs/images, which the README shows.
IMAGES = Path(__file__).resolve().parents[2] / (
    "docs/images" if os.environ.get("PEERSCAN_UPDATE_SCREENSHOTS") == "1" else ".build/page-screenshots")


class Stack:
    """peerscand (restartable, its state kept) and peerscan-web in the scanner namespace, and Varlink calls."""

    def __init__(self, lan, start_daemon, tmp_path: Path) -> None:
        self.lan, self._start_daemon, self.tmp_path = lan, start_daemon, tmp_path
        self.daemon = self.web = None
        self.scanner = False

    def start(self, scanner: bool = False) -> Stack:
        """peerscand (`scanner`: with the neighbour table and probing, else an mDNS browser), then peerscan-web."""
        self.scanner = scanner
        self.start_daemon()
        self.web = Web(self.lan, self.daemon.socket, self.tmp_path)
        return self

    def start_daemon(self) -> None:
        self.daemon = start_scanner(self.lan, self._start_daemon) if self.scanner else self._start_daemon()
        self.daemon.wait_serving()
        self.daemon.wait_running()

    def restart_daemon(self) -> None:
        assert self.daemon.stop() == 0
        self.start_daemon()

    def call(self, method: str, *args):
        with client(self.daemon.socket).open("io.peerscan", namespaced=False) as service:
            return getattr(service, method)(*args)

    def snapshot(self) -> dict:
        return self.call("GetSnapshot")

    def close(self) -> None:
        if self.web is not None:
            self.web.stop()  # peerscand: the start_daemon fixture stops every one it started


@pytest.fixture
def stack(lan, start_daemon, tmp_path):
    made = Stack(lan, start_daemon, tmp_path)
    yield made
    made.close()


def open_page(make_browser, lan, path: str = "/", token: str | None = TOKEN, width: int = 1280) -> Page:
    page = Page(make_browser(lan.scanner_ns, width=width), ORIGIN, token=token)
    page.open(path)
    page.mark()
    return page


def mac_id(mac: str) -> str:
    return str(uuid.uuid5(MAC_NAMESPACE, mac))


class Churn:
    """Changes of every kind, round by round: services appearing and withdrawn, TXT and address changes, hosts
    leaving and coming back, labels, scanning off and on."""

    def __init__(self, lan, stack: Stack, labelled: str) -> None:
        self.stack, self.labelled, self.round = stack, labelled, 0
        self.peers = [lan.add_peer(f"churn{index}") for index in range(3)]
        self.visitor = lan.add_host("visitor", mac=real_oui_mac(0x90))
        for index, peer in enumerate(self.peers):
            change(peer, "register", f"Steady {index}", "_ipp._tcp", 631, {"round": "0"})

    def step(self) -> None:
        n, peer = self.round, self.peers[self.round % 3]
        peer.register(f"Service {n}", "_http._tcp", 8000 + n, {"n": str(n)})
        if n >= 3:
            self.peers[(n - 3) % 3].unregister(f"Service {n - 3}", "_http._tcp")
        if n % 4 == 1:
            change(peer, "update", f"Steady {n % 3}", "_ipp._tcp", txt={"round": str(n)})
        if n % 6 == 2:
            self.peers[0].add_address("10.231.0.201")
        if n % 6 == 5:
            self.peers[0].remove_address("10.231.0.201")
        if n % 10 == 7:
            self.stack.call("SetScanning", False)
            self.stack.call("SetScanning", True)
        if n % 12 == 3:
            self.visitor.silence()
        if n % 12 == 9:
            self.visitor.unsilence()
        for index in range(4):
            self.stack.call("SetDeviceLabel", self.labelled, f"Phone {n}.{index}", None, index % 2 == 0)
        self.round += 1

    def run_until(self, sequence: int, rounds: int = 8) -> None:
        """At least `rounds` rounds, and on until peerscand passed `sequence` (bounded)."""
        start = self.round
        while self.round - start < rounds or self.stack.daemon.sequence < sequence:
            assert self.round - start < 200, "the churn made too few changesets"
            self.step()

    def settle(self) -> None:
        """The visitor back (a host left silent would go offline only later, after the comparison)."""
        self.visitor.unsilence()


def test_after_hundreds_of_changesets_the_rows_equal_get_snapshot_without_a_reload(lan, stack, make_browser):
    phone, tablet = lan.add_host("phone", mac=real_oui_mac(0x80)), lan.add_host("tablet", mac=real_oui_mac(0x81))
    stack.start(scanner=True)
    stack.daemon.wait_for(lambda s: by_mac(s, phone.mac) and by_mac(s, tablet.mac), what="phone and tablet")
    churn = Churn(lan, stack, mac_id(phone.mac))
    page = open_page(make_browser, lan)
    first = stack.snapshot()["sequence"]
    # Meanwhile the page's rows are read again and again: at every instant they must be the devices of peerscand's
    # snapshot at the sequence the page shows (--dump's history), not only once it settled.
    samples: list = []
    sampling = threading.Event()
    sampler = threading.Thread(target=lambda: [samples.append(page.rows()) for _ in iter(sampling.is_set, True)])
    sampler.start()
    try:
        churn.run_until(first + 110)
        stack.call("MergeDevices", mac_id(phone.mac), [mac_id(tablet.mac)])
        churn.run_until(first + 220)
    finally:
        sampling.set()
        sampler.join()
    churn.settle()
    reply = page.wait_equal(stack.snapshot)
    with stack.daemon.condition:
        history = {sequence: snapshot for sequence, _, snapshot in stack.daemon.history}
    checked = [(shown, rows) for shown, rows in samples if shown[1] in history]
    assert len(checked) >= 50, len(checked)
    for (epoch, sequence), rows in checked:
        assert epoch == reply["epoch"] and rows.agrees(expected_rows(history[sequence])), (sequence, rows)

    assert page.marked(), "the page was loaded again"
    assert reply["sequence"] - first >= 200
    shown = page.sequences()
    assert {epoch for epoch, _ in shown} == {reply["epoch"]}
    # Every step from the first sequence shown to the last is one changeset applied (the page may have gone on past
    # the reply's sequence: a late presence change).
    assert page.changesets(shown) == shown[-1][1] - shown[0][1], (page.changesets(shown), shown[0], shown[-1])
    assert shown[-1][1] >= reply["sequence"] >= shown[0][1] + 200, (shown[0], reply["sequence"], shown[-1])
    merged = by_mac(reply["snapshot"], tablet.mac)
    assert merged["id"] == mac_id(phone.mac) and phone.mac in merged["macAddresses"]
    assert page.browser.csp_violations() == []


def test_a_cut_stream_resumes_with_last_event_id_and_a_peerscand_restart_is_followed(lan, stack, make_browser):
    phone = lan.add_host("phone", mac=real_oui_mac(0x82))
    stack.start(scanner=True)
    stack.daemon.wait_for(lambda s: by_mac(s, phone.mac), what="the phone")
    churn = Churn(lan, stack, mac_id(phone.mac))
    page = open_page(make_browser, lan)
    churn.run_until(stack.daemon.sequence + 20, rounds=3)

    # peerscan-web goes mid-churn: the page's stream ends; changes go on meanwhile; the page resumes where it was.
    stack.web.stop()
    churn.run_until(stack.daemon.sequence + 15, rounds=2)
    stack.web = Web(lan, stack.daemon.socket, stack.tmp_path)
    churn.run_until(stack.daemon.sequence + 10, rounds=2)
    churn.settle()
    before = page.wait_equal(stack.snapshot)
    assert page.marked()
    shown = page.sequences()
    steps = list(zip(shown, shown[1:], strict=False))
    assert all(after[1] == before_[1] + 1 for before_, after in steps), f"not resumed changeset by changeset: {shown}"
    ids = page.rows()[1].ids

    # peerscand restarts: another epoch, a fresh snapshot; the same devices, the same ids.
    stack.restart_daemon()
    after = page.wait_equal(stack.snapshot)
    assert after["epoch"] != before["epoch"] and page.marked()
    # Every device shown before is shown with the same id (the restarted daemon may list one more: a neighbour entry
    # of the churn's address changes, say).
    assert set(ids) <= set(page.rows()[1].ids)


def edit_form(page: Page, title: str):
    """The device page's form of that title, once GetDevice's reply is shown."""
    path = f"//form[h3[normalize-space()='{title}']]"
    wait_until(lambda: page.driver.find_elements(By.XPATH, path), timeout=20, what=f"the form {title!r}")
    return page.driver.find_element(By.XPATH, path)


def submit(page: Page, form, outcome: str) -> None:
    form.find_element(By.CSS_SELECTOR, ".actions button[type=submit]").click()
    wait_until(lambda: outcome in form.find_element(By.CSS_SELECTOR, ".form-status").text, timeout=20,
               what=f"{outcome!r} after submitting",
               details=lambda: form.find_element(By.CSS_SELECTOR, ".form-status").text)


def test_edits_from_the_device_page_reach_get_device_and_last_and_need_the_token(lan, stack, make_browser):
    phone, tablet = lan.add_host("phone", mac=real_oui_mac(0x84)), lan.add_host("tablet", mac=real_oui_mac(0x85))
    stack.start(scanner=True)
    stack.daemon.wait_for(lambda s: by_mac(s, phone.mac) and by_mac(s, tablet.mac), what="phone and tablet")
    phone_id, tablet_id = mac_id(phone.mac), mac_id(tablet.mac)
    page = open_page(make_browser, lan, f"/devices/{phone_id}")

    label = edit_form(page, "Name and note")
    name = label.find_element(By.CSS_SELECTOR, "input[type=text]")
    name.clear()
    name.send_keys("Hall phone")
    label.find_element(By.CSS_SELECTOR, "input[type=checkbox]").click()
    submit(page, label, "Saved.")
    device = stack.call("GetDevice", phone_id)
    assert device["label"] == "Hall phone" and device["important"] is True

    # The merge's list follows the live snapshot (also when GetDevice answered before the first snapshot came).
    merge = edit_form(page, "Merge")
    wait_until(lambda: merge.find_elements(By.CSS_SELECTOR, f"option[value='{tablet_id}']"), timeout=10,
               what="the tablet in the merge's list")
    Select(merge.find_element(By.TAG_NAME, "select")).select_by_value(tablet_id)
    submit(page, merge, "Merged 1.")
    macs = {sighting["value"] for sighting in stack.call("GetDevice", phone_id)["macAddresses"]}
    assert macs == {phone.mac, tablet.mac}
    stack.daemon.wait_for(lambda s: by_mac(s, tablet.mac)["id"] == phone_id, what="one device")

    split = edit_form(page, "Split")  # its keys follow the device: the tablet's MAC address since the merge
    wait_until(lambda: split.is_displayed() and split.find_elements(
        By.CSS_SELECTOR, f"option[value='mac:{tablet.mac}']"), timeout=10, what="the tablet's key in the split form")
    Select(split.find_element(By.TAG_NAME, "select")).select_by_value(f"mac:{tablet.mac}")
    split.find_element(By.CSS_SELECTOR, ".actions button[type=submit]").click()
    wait_until(lambda: page.driver.current_url.endswith(f"/devices/{tablet_id}"), timeout=20, what="the new device")

    def apart(s: dict) -> bool:
        p, t = by_mac(s, phone.mac), by_mac(s, tablet.mac)
        return p is not None and t is not None and p["id"] == phone_id and t["id"] == tablet_id \
            and p["macAddresses"] == [phone.mac]

    stack.daemon.wait_for(apart, what="two devices again")
    stack.restart_daemon()
    stack.daemon.wait_for(apart, what="still two after a restart")
    device = stack.call("GetDevice", phone_id)
    assert device["label"] == "Hall phone" and device["important"] is True
    assert stack.call("GetDevice", tablet_id)["id"] == tablet_id

    # Without the token (a fresh browser: nothing in its sessionStorage) an edit is refused, and nothing changes.
    stranger = open_page(make_browser, lan, f"/devices/{phone_id}", token=None)
    label = edit_form(stranger, "Name and note")
    name = label.find_element(By.CSS_SELECTOR, "input[type=text]")
    name.clear()
    name.send_keys("Intruder")
    submit(stranger, label, "Not authorized")
    device = stack.call("GetDevice", phone_id)
    assert device["label"] == "Hall phone" and device["important"] is True
    assert stranger.marked()


HOSTILE = {
    "img": "<img src=x onerror=window.__canary=1>",
    "script": "</script><script>window.__canary=1</script>",
    "rlo": "\u202eexe.txt",
    "label": '<b onmouseover="window.__canary=1">Bold</b><script>window.__canary=1</script>',
}
# Service instance names cannot hold a '.' (python-zeroconf 0.47 cannot publish them): the same markup without one.
HOSTILE_NAMES = {
    "img": "<img src=x onerror=self['__canary']=1>",
    "script": "</script><script>self['__canary']=1</script>",
    "rlo": "\u202egnp",
}


def test_hostile_text_is_shown_as_text(lan, stack, make_browser):
    peer = lan.add_peer("hostile")
    stack.start()
    change(peer, "register", HOSTILE_NAMES["img"], "_http._tcp", 80,
           {"img": HOSTILE["img"], "script": HOSTILE["script"], "rlo": HOSTILE["rlo"]})
    change(peer, "register", HOSTILE_NAMES["script"], "_ssh._tcp", 22)
    # 10 KB of TXT over two services: one TXT record must fit in one mDNS packet (RFC 6762 §17: 9,000 bytes).
    for number, type_ in enumerate(("_ipp._tcp", "_printer._tcp")):
        txt = {f"k{number}{index:02d}": chr(ord("a") + index % 26) * 240 for index in range(21)}
        change(peer, "register", HOSTILE_NAMES["rlo"], type_, 631 + number, txt)
    snapshot = stack.daemon.wait_for(lambda s: (d := device_named(s, "hostile.local")) and len(d["services"]) == 4,
                                     what="the hostile host's four services")
    device = device_named(snapshot, "hostile.local")
    device_id = device["id"]
    assert sum(len(key) + len(value) + 1 for service in device["services"] for key, value in service["txt"].items()
               if service["type"] in ("_ipp._tcp", "_printer._tcp")) >= 10_000

    page = open_page(make_browser, lan, f"/devices/{device_id}")
    for text in (*HOSTILE_NAMES.values(), HOSTILE["img"], HOSTILE["script"], HOSTILE["rlo"], "u" * 240):
        page.wait_text("main", text)
    stack.call("SetDeviceLabel", device_id, HOSTILE["label"], HOSTILE["script"], None)
    page.wait_text("main h1", HOSTILE["label"])
    page.driver.get(f"{ORIGIN}/")
    page.wait_text(f"li[data-id='{device_id}'] .name", HOSTILE["label"])
    page.wait_text(f"li[data-id='{device_id}'] .services", HOSTILE_NAMES["img"])

    for path in ("/", f"/devices/{device_id}"):
        page.driver.get(ORIGIN + path)
        page.wait_text("main", HOSTILE["label"])
        assert page.driver.execute_script("return typeof window.__canary;") == "undefined"
        markup = page.driver.execute_script("return document.querySelectorAll('main img, main script, main b').length;")
        assert markup == 0
        assert page.browser.csp_violations() == []


def settled_screenshot(page: Page, name: str) -> Path:
    """The viewport once no animation runs, as IMAGES/NAME.png."""
    wait_until(lambda: page.driver.execute_script("return document.getAnimations().length === 0;"), timeout=10,
               what="the page's animations over")
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / f"{name}.png"
    assert page.driver.save_screenshot(str(path)), path
    return path


def test_screenshots_of_each_screen_from_a_real_scan(lan, stack, make_browser):
    tv, printer, laptop = lan.add_peer("livingroom-tv"), lan.add_peer("office-printer"), lan.add_peer("laptop")
    plug = lan.add_host("plug", mac=real_oui_mac(0x86))
    change(tv, "register", "Living Room TV", "_airplay._tcp", 7000, {"model": "AppleTV11,1"})
    change(printer, "register", "Office Printer", "_ipp._tcp", 631, {"ty": "LaserJet 400", "pdl": "application/pdf"})
    change(printer, "register", "Office Printer", "_http._tcp", 80, {"path": "/"})
    change(laptop, "register", "laptop", "_ssh._tcp", 22)
    stack.start(scanner=True)
    snapshot = stack.daemon.wait_for(
        lambda s: by_mac(s, plug.mac) and all(device_named(s, f"{name}.local")
                                              for name in ("livingroom-tv", "office-printer", "laptop")),
        what="the four devices")
    stack.call("SetDeviceLabel", mac_id(plug.mac), "Kitchen plug", "left of the sink", True)
    printer_id = device_named(snapshot, "office-printer.local")["id"]

    wide = open_page(make_browser, lan)
    wide.wait_equal(stack.snapshot)
    written = [settled_screenshot(wide, "page-devices-1280")]
    wide.open(f"/devices/{printer_id}")  # the Wi-Fi and Bluetooth screens: test_page_screens.py (no radio here)
    wide.wait_text("main", "LaserJet 400")
    written.append(settled_screenshot(wide, "page-device-1280"))
    narrow = open_page(make_browser, lan, width=360)
    narrow.wait_equal(stack.snapshot)
    written.append(settled_screenshot(narrow, "page-devices-360"))
    assert wide.browser.csp_violations() == [] and narrow.browser.csp_violations() == []
    for path in written:
        assert 2_000 < path.stat().st_size < 200_000, (path, path.stat().st_size)
