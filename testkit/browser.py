"""Headless Chromium for the page's tests, always inside a network namespace of the test's, never in the host's.

Debian's ``chromium`` is driven through Debian's ``chromium-driver`` with Selenium (PyPI, pinned in the Makefile's
``deps``). chromedriver and the browser it starts run in the namespace (``nsenter --net=…``): a test LAN's
(``/run/netns/NAME``) or a throw-away one with only loopback (``loopback_namespace()``). The test talks to chromedriver
through testkit/forward.py's forward: a listener on the host's loopback whose connections are opened, from a thread
that joined the namespace (setns(2) is per thread), to chromedriver's port on the namespace's loopback. Only
WebDriver's commands cross; every page the browser loads comes from inside the namespace.

The browser runs as root with ``--no-sandbox``: Chromium refuses to start as root with its sandbox on, and the tests run
as root to make namespaces. That is acceptable here: the browser loads only the page under test from a loopback or
test-LAN server of the test's own, in a namespace that has no route to anything else, with a profile in a temporary
folder removed at the end; the sandbox protects a user's machine from hostile sites, of which there are none here.

    with loopback_namespace() as namespace, Browser(namespace, width=360, screenshots=folder) as browser:
        browser.driver.get(url)
        browser.screenshot("home")
        assert browser.csp_violations() == []

``Browser.close()`` (also on an exception in the ``with`` block, or from a pytest fixture's teardown) quits the session
and kills chromedriver and every process it started, even when the session no longer answers.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options

from testkit.forward import LoopbackForward
from testkit.netns import call_in, namespace_path

__all__ = ["WIDTHS", "Browser", "loopback_namespace", "make_browser", "serve_directory"]

# The widths the page is checked at: a desktop window and a phone.
WIDTHS = (1280, 360)
# Where ``make_browser``'s screenshots go: one folder per test.
SCREENSHOTS = Path(__file__).resolve().parent.parent / ".build" / "page-screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
_libc = ctypes.CDLL(None, use_errno=True)

# Installed before any script of every document (CDP Page.addScriptToEvaluateOnNewDocument): each Content-Security-
# Policy violation is kept, so a test can read how many there were and which.
_CSP_LISTENER = """
window.__peerscanCSPViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__peerscanCSPViolations.push({directive: event.violatedDirective, blocked: event.blockedURI,
                                       source: event.sourceFile, line: event.lineNumber});
});
"""


def _child_setup() -> None:
    _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG: die with the test even if it is killed


@contextlib.contextmanager
def loopback_namespace() -> Iterator[Path]:
    """A throw-away network namespace with loopback up and nothing else (``unshare --net``), held by a sleeping
    process while the block runs; yields its path."""
    holder = subprocess.Popen(["unshare", "--net", "--", "sh", "-c", "ip link set lo up && echo up && exec sleep 1d"],
                              stdout=subprocess.PIPE, text=True, preexec_fn=_child_setup, start_new_session=True)
    try:
        assert holder.stdout is not None
        if holder.stdout.readline().strip() != "up":
            raise RuntimeError("unshare --net did not bring loopback up")
        yield Path(f"/proc/{holder.pid}/ns/net")
    finally:
        holder.kill()
        holder.wait()


def _free_port(namespace: Path) -> int:
    """A TCP port free on the namespace's loopback now."""

    def ask() -> int:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return probe.getsockname()[1]

    return call_in(namespace, ask)


def _descendants(pid: int) -> list[int]:
    """Every living descendant of a process (from /proc's parent ids)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry.name))
    found, pending = [], [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


@contextlib.contextmanager
def serve_directory(namespace: str | Path, directory: Path) -> Iterator[str]:
    """Python's http.server over ``directory`` on the namespace's loopback while the block runs; yields its URL."""
    server = subprocess.Popen(
        ["nsenter", f"--net={namespace_path(namespace)}", "--", "python3", "-u", "-m", "http.server",
         "--bind", "127.0.0.1", "--directory", str(directory), "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, preexec_fn=_child_setup,
        start_new_session=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        match = re.search(r"port (\d+)", line)
        if not match:
            raise RuntimeError(f"http.server did not start: {line!r}")
        yield f"http://127.0.0.1:{match.group(1)}"
    finally:
        server.kill()
        server.wait()


class Browser:
    """Headless Chromium in a network namespace, driven by Selenium; see the module's docstring.

    - Parameters: namespace: a test LAN's namespace name or a namespace's path; width, height: the window's size in
      CSS pixels (the page's tests use 1280 and 360 wide); screenshots: the folder ``screenshot`` writes to.
    """

    def __init__(self, namespace: str | Path, width: int = 1280, height: int = 900,
                 screenshots: Path | None = None) -> None:
        self.namespace = namespace_path(namespace)
        self.screenshots = screenshots
        self.width, self.height = width, height
        self._profile = Path(tempfile.mkdtemp(prefix="peerscan-chromium-"))
        self._driver_process: subprocess.Popen | None = None
        self._forwarder: LoopbackForward | None = None
        self._processes: set[int] = set()
        self.driver: webdriver.Remote | None = None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    def _start(self) -> None:
        port = _free_port(self.namespace)
        with open(self._profile / "chromedriver.log", "wb") as log:
            self._driver_process = subprocess.Popen(
                ["nsenter", f"--net={self.namespace}", "--", CHROMEDRIVER, f"--port={port}"],
                stdout=log, stderr=subprocess.STDOUT, preexec_fn=_child_setup, start_new_session=True)
        self._forwarder = LoopbackForward(self.namespace, port)
        options = Options()
        options.binary_location = CHROMIUM
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         f"--user-data-dir={self._profile / 'profile'}", f"--window-size={self.width},{self.height}",
                         "--no-first-run", "--disable-background-networking", "--disable-component-update"):
            options.add_argument(argument)
        self.driver = self._connect(options)
        self._processes.update(_descendants(self._driver_process.pid))
        self._check_namespace()
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": _CSP_LISTENER})
        # --window-size sets the outer window; the page's layout width is what the tests mean.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                    {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                                     "mobile": False})

    def _check_namespace(self) -> None:
        """Fails unless chromedriver and every browser process are in the namespace (never the host's)."""
        expected = os.stat(self.namespace).st_ino
        for pid in [self._driver_process.pid, *self._processes]:
            with contextlib.suppress(FileNotFoundError, ProcessLookupError):  # a helper that has ended meanwhile
                if os.stat(f"/proc/{pid}/ns/net").st_ino != expected:
                    raise RuntimeError(f"process {pid} of the browser is outside the namespace {self.namespace}")

    def _connect(self, options: Options) -> webdriver.Remote:
        """The session, once chromedriver answers (it needs a moment to listen)."""
        url = f"http://127.0.0.1:{self._forwarder.host_port}"
        last: Exception | None = None
        for _ in range(100):
            if self._driver_process.poll() is not None:
                raise RuntimeError(f"chromedriver exited: {(self._profile / 'chromedriver.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self._forwarder.host_port), timeout=1) as probe:
                    probe.sendall(b"GET /status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    if probe.recv(12).startswith(b"HTTP/1."):
                        return webdriver.Remote(command_executor=url, options=options)
            except OSError as error:
                last = error
            threading.Event().wait(0.1)
        raise RuntimeError(f"chromedriver did not answer: {last}")

    def csp_violations(self) -> list[dict]:
        """The Content-Security-Policy violations of the current document so far (directive, blocked URI, source)."""
        return self.driver.execute_script("return window.__peerscanCSPViolations || [];")

    def screenshot(self, name: str) -> Path:
        """Saves the viewport as ``NAME-WIDTH.png`` in the screenshots folder; returns the file."""
        if self.screenshots is None:
            raise ValueError("Browser(screenshots=…) names no folder")
        self.screenshots.mkdir(parents=True, exist_ok=True)
        path = self.screenshots / f"{name}-{self.width}.png"
        if not self.driver.save_screenshot(str(path)):
            raise RuntimeError(f"no screenshot written to {path}")
        return path

    def close(self) -> None:
        """Quits the session and kills chromedriver and every process it started. Idempotent."""
        if self._driver_process is not None:
            self._processes.update(_descendants(self._driver_process.pid))
        if self.driver is not None:
            with contextlib.suppress(Exception):  # a session that no longer answers is killed below
                self.driver.quit()
            self.driver = None
        if self._driver_process is not None:
            self._processes.update(_descendants(self._driver_process.pid))
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._driver_process.pid, signal.SIGKILL)
            self._driver_process.wait()
            self._driver_process = None
        for pid in self._processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self._forwarder is not None:
            self._forwarder.close()
            self._forwarder = None
        shutil.rmtree(self._profile, ignore_errors=True)

    def started_processes(self) -> set[int]:
        """The processes chromedriver started (the browser's) that were seen so far, for a test of the teardown."""
        if self._driver_process is not None:
            self._processes.update(_descendants(self._driver_process.pid))
        return set(self._processes)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@pytest.fixture
def make_browser(request: pytest.FixtureRequest) -> Iterator[Callable[..., Browser]]:
    """A pytest fixture (import it into a conftest.py): ``make_browser(namespace, width=1280)`` starts a ``Browser``
    whose screenshots go to ``.build/page-screenshots/TEST/``; every browser it started is closed at the test's
    teardown, also when the test failed."""
    browsers: list[Browser] = []
    folder = SCREENSHOTS / re.sub(r"[^\w.-]+", "_", request.node.name)

    def make(namespace: str | Path, width: int = WIDTHS[0], height: int = 900) -> Browser:
        browsers.append(Browser(namespace, width=width, height=height, screenshots=folder))
        return browsers[-1]

    yield make
    for browser in browsers:
        browser.close()
