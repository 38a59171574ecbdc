"""Fixtures for the page's tests that need no test LAN: the changeset vectors against every applier, and the browser
harness itself (testkit/browser.py). The browser runs in a throw-away network namespace with only loopback, so these
tests run as root (`make test` does); the Python applier's vectors need nothing.

Run: `.venv/bin/python -m pytest Tests/Page` (no build needed but peerscan-web's, `swift build --product peerscan-web`,
for test_fakedaemon.py's last test: peerscan-web over the fake peerscand).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from testkit.browser import loopback_namespace, make_browser, serve_directory

__all__ = ["make_browser"]  # a fixture, found here by pytest

PAGE = Path(__file__).resolve().parents[2] / "Sources" / "PeerscanWeb" / "Page"


@pytest.fixture(scope="module")
def loopback() -> Iterator[Path]:
    """A network namespace with only loopback, for the module's browsers and servers."""
    if os.geteuid() != 0:
        pytest.fail("the browser runs in a network namespace of its own: run the page's tests as root")
    with loopback_namespace() as namespace:
        yield namespace


@pytest.fixture
def run_in_page_module(loopback: Path, make_browser) -> Callable[[str, str], object]:
    """``run_in_page_module(NAME, SCRIPT)``: runs the asynchronous WebDriver script SCRIPT in headless Chromium on a
    document of the page's origin (Sources/PeerscanWeb/Page served on loopback), so that it can import NAME; its
    arguments are the module's URL, then the callback. Returns what the script handed to its callback."""

    def run(name: str, script: str) -> object:
        with serve_directory(loopback, PAGE) as url:
            browser = make_browser(loopback)
            browser.driver.get(f"{url}/{name}")  # a document of the server's origin, to import the module from
            return browser.driver.execute_async_script(script, f"{url}/{name}")

    return run
