"""The browser harness every page test uses (testkit/browser.py): the window's width, screenshots, the count of
Content-Security-Policy violations, and a teardown that leaves no browser behind even when the test failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from testkit.browser import WIDTHS, Browser, serve_directory

# A page whose policy forbids every script: its inline script is one violation; its text shows it did not run.
BLOCKED_PAGE = """<!doctype html>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'">
<p id="state">script blocked</p>
<script>document.getElementById("state").textContent = "script ran";</script>
"""


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie (the container's init reaps nothing)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("width", WIDTHS)
def test_width_screenshot_and_csp_violations(loopback: Path, make_browser, tmp_path: Path, width: int) -> None:
    (tmp_path / "blocked.html").write_text(BLOCKED_PAGE)
    with serve_directory(loopback, tmp_path) as url:
        browser = make_browser(loopback, width=width)
        browser.driver.get(f"{url}/blocked.html")
        assert browser.driver.find_element("id", "state").text == "script blocked"
        violations = browser.csp_violations()
        assert len(violations) == 1 and violations[0]["directive"] == "script-src-elem", violations
        assert browser.driver.execute_script("return window.innerWidth;") == width
        screenshot = browser.screenshot("blocked")
    assert screenshot.name == f"blocked-{width}.png"
    assert screenshot.read_bytes().startswith(b"\x89PNG")


def test_teardown_kills_the_browser_when_the_test_fails(loopback: Path, tmp_path: Path) -> None:
    with pytest.raises(RuntimeError, match="a failing test"), Browser(loopback, screenshots=tmp_path) as browser:
        browser.driver.get("about:blank")
        started = browser.started_processes()
        raise RuntimeError("a failing test")
    assert len(started) >= 2  # chromium's browser process and its helpers
    assert [pid for pid in started if _running(pid)] == []
