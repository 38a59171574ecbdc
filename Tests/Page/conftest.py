"""Fixtures for the page's tests that need no test LAN: the changeset vectors against every applier, and the browser
harness itself (testkit/browser.py). The browser runs in a throw-away network namespace with only loopback, so these
tests run as root (`make test` does); the Python applier's vectors need nothing.

Run: `.venv/bin/python -m pytest Tests/Page` (no build needed but peerscan-web's, `swift build --product peerscan-web`,
for test_fakedaemon.py's last test: peerscan-web over the fake peerscand).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from testkit.browser import loopback_namespace, make_browser

__all__ = ["make_browser"]  # a fixture, found here by pytest


@pytest.fixture(scope="module")
def loopback() -> Iterator[Path]:
    """A network namespace with only loopback, for the module's browsers and servers."""
    if os.geteuid() != 0:
        pytest.fail("the browser runs in a network namespace of its own: run the page's tests as root")
    with loopback_namespace() as namespace:
        yield namespace
