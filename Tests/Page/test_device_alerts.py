"""The device page's Alerts control (alerts.js) over the fake peerscand (testkit/fakedaemon.py): peerscan-web (its
debug build, or ``PEERSCAN_WEB``) and headless Chromium in a loopback-only namespace. A plain device shows what the
rules out of the box give it (none: it is not important); choosing "offline and online" sends SetAlertRule with the
device's id and those events, which the page shows again after a reload; choosing "default" removes the rule.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from testkit import synthetic
from testkit.fakedaemon import FakeDaemon
from testkit.netns import call_in
from testkit.page import Page
from testkit.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
WEB = Path(os.environ.get("PEERSCAN_WEB", ROOT / ".build" / "debug" / "peerscan-web"))
TOKEN = "device-alerts-test-token"
PORT = 8737


def _answers(namespace: Path) -> bool:
    def get() -> int:
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        try:
            connection.request("GET", "/api/alert-rules")
            return connection.getresponse().status
        finally:
            connection.close()

    with contextlib.suppress(OSError):
        return call_in(namespace, get) == 200
    return False


@contextlib.contextmanager
def web_over(namespace: Path, daemon: FakeDaemon, tmp_path: Path) -> Iterator[str]:
    """peerscan-web in the namespace over the fake; yields its origin."""
    if not WEB.exists():
        pytest.fail(f"{WEB} is not built: swift build --product peerscan-web (or set PEERSCAN_WEB)")
    (tmp_path / "token").write_text(TOKEN + "\n")
    web = subprocess.Popen(["nsenter", f"--net={namespace}", "--", str(WEB), "--listen", f"127.0.0.1:{PORT}",
                            "--socket", str(daemon.path), "--token-file", str(tmp_path / "token")],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: _answers(namespace), timeout=30, what="peerscan-web answering /api/alert-rules")
        yield f"http://127.0.0.1:{PORT}"
    finally:
        web.terminate()
        web.wait(timeout=10)


def _alerts_form(page: Page):
    return page.driver.find_element(By.CSS_SELECTOR, "form[data-alerts]")


def _wait_state(page: Page, choice: str, text: str) -> None:
    """Waits until the control shows `text` with `choice` chosen (the rules loaded)."""

    def shown() -> bool:
        form = _alerts_form(page)
        state = form.find_element(By.CSS_SELECTOR, "[data-alert-state]")
        select = form.find_element(By.TAG_NAME, "select")
        return state.text == text and select.is_enabled() and select.get_attribute("value") == choice

    wait_until(shown, timeout=20, what=f"the Alerts control showing {text!r} ({choice})",
               details=lambda: _alerts_form(page).text)


def _choose_and_save(page: Page, choice: str) -> None:
    form = _alerts_form(page)
    Select(form.find_element(By.TAG_NAME, "select")).select_by_value(choice)
    form.find_element(By.CSS_SELECTOR, ".actions button[type=submit]").click()
    wait_until(lambda: "Saved." in _alerts_form(page).find_element(By.CSS_SELECTOR, ".form-status").text,
               timeout=20, what="Saved.", details=lambda: _alerts_form(page).text)


def test_the_device_page_shows_and_sets_its_offline_and_online_alerts(loopback: Path, make_browser,
                                                                       tmp_path: Path) -> None:
    devices = synthetic.devices(20)
    for item in devices:
        item["important"] = False
    devices[1]["important"] = True
    snapshot = synthetic.snapshot(devices)
    plain, important = devices[0]["id"], devices[1]["id"]
    with FakeDaemon(tmp_path / "io.peerscan", snapshot) as daemon, web_over(loopback, daemon, tmp_path) as origin:
        page = Page(make_browser(loopback), origin, token=TOKEN)
        page.open(f"/devices/{important}")
        _wait_state(page, "default", "default: offline and online (an important device)")

        page.open(f"/devices/{plain}")
        _wait_state(page, "default", "default: none (only important devices alert)")
        _choose_and_save(page, "presence")
        assert ("io.peerscan.SetAlertRule", {"device": plain, "events": ["offline", "online"]}) in daemon.parameters
        assert daemon.alert_rules == {plain: ["offline", "online"]}
        _wait_state(page, "presence", "This device's rule: offline and online")

        page.open(f"/devices/{plain}")  # a reload: the rule comes from ListAlertRules
        _wait_state(page, "presence", "This device's rule: offline and online")

        _choose_and_save(page, "default")
        assert daemon.parameters[-2:] == [("io.peerscan.SetAlertRule", {"device": plain, "events": None}),
                                          ("io.peerscan.ListAlertRules", {})]
        _wait_state(page, "default", "default: none (only important devices alert)")
        assert daemon.alert_rules == {}
        assert page.browser.csp_violations() == []
