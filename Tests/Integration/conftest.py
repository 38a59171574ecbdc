"""Fixtures for the integration tests: a test LAN (network namespaces, a private bus, a real avahi-daemon and
python-zeroconf peers — see testlan/) and peerscand running in it with --dump, serving its Varlink socket in the
test's temp dir (testkit/peerscand.py starts and stops it, testclient/varlinkclient.py talks to it).

Run as root: `make test` (or `.venv/bin/python -m pytest Tests/Integration` after `swift build`).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from testclient import applier
from testkit.browser import make_browser
from testkit.peerscand import PEERSCAND, ROOT, Peerscand, command
from testkit.waiting import wait_notified
from testlan.broker import Broker
from testlan.lan import TestLAN

# The tests take PEERSCAND (and its siblings' paths) from here; make_browser is a fixture (test_page.py's Chromium).
__all__ = ["PEERSCAND", "ROOT", "Daemon", "make_browser"]
# `thread` or `address` when peerscand is a sanitized build (make sanitize): the tests' resource and time goals, which
# are those of a normal build, do not hold there.
SANITIZER = os.environ.get("PEERSCAN_SANITIZER", "")


# The files whose tests take longest (~100-200 s each at three at a time, 2026-11-30), longest first. pytest-xdist's
# --dist loadfile hands the files out in collection order as workers free up: these go first, so that none of them is
# the run's tail.
LONGEST_FIRST = ("test_alerts.py", "test_wifi_presence.py", "test_scanner.py", "test_page.py", "test_discovery.py",
                 "test_alerts_end_to_end.py", "test_mqtt.py", "test_varlink.py")


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        raise pytest.UsageError("the integration tests create network namespaces: run them as root")
    if not PEERSCAND.exists():
        raise pytest.UsageError(f"{PEERSCAND} is missing: run `swift build` first (or set PEERSCAND)")
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FIRST)))  # stable: the rest in their order


class Daemon(Peerscand):
    """peerscand --dump in the scanner namespace, its output replayed into the current snapshot; its Varlink socket
    is `socket`."""

    # The mDNS tests run peerscand as an mDNS browser: no neighbour table, devices go as soon as their last service
    # does. The scanner tests (test_scanner.py) pass `mdns_only=False` and their own presence flags.
    MDNS_ONLY = ("--no-neighbour-table", "--offline-after", "0", "--forget-after", "0")

    def __init__(self, lan: TestLAN, state_directory: Path, *extra: str, socket: Path | None = None,
                 mdns_only: bool = True, user: int | None = None) -> None:
        self.lan = lan
        self.state_directory = state_directory
        # Always a socket of the test's own (default: in the LAN's temp dir), never the shared default under /run.
        socket = socket or lan.tmpdir / "io.peerscan"
        extra = ("--socket", str(socket), *(self.MDNS_ONLY if mdns_only else ()), *extra)
        if user is not None:  # as that user, without any capability (the default unit's peerscand)
            state_directory.mkdir(parents=True, exist_ok=True)
            os.chown(state_directory, user, user)
            os.chmod(socket.parent, 0o777)
        super().__init__(command("--dump", "--state-directory", str(state_directory), "--log-level", "debug",
                                 "--resync-grace", "20", *extra, user=user),
                         socket, popen=lan.popen_in_scanner, stdout=subprocess.PIPE)
        self.snapshot: dict | None = None
        self.initial: dict | None = None  # the first snapshot the daemon wrote
        self.sequence = -1
        self.history: list[tuple[int, dict, dict]] = []  # (sequence, changes, snapshot after)
        self.final: dict | None = None
        self.condition = threading.Condition()
        self.start()
        self._dump_reader = threading.Thread(target=self._read_dump, daemon=True)
        self._dump_reader.start()

    def _read_dump(self) -> None:
        for line in self.process.stdout:
            message = json.loads(line)
            with self.condition:
                if message["event"] == "snapshot":
                    if message.get("final"):
                        self.final = message["snapshot"]
                        assert message["sequence"] == self.sequence, "final snapshot at the last sequence"
                    else:
                        self.snapshot, self.sequence = message["snapshot"], message["sequence"]
                        if self.initial is None:
                            self.initial = message["snapshot"]
                else:
                    assert message["sequence"] == self.sequence + 1, f"gap: {self.sequence} -> {message['sequence']}"
                    self.snapshot = applier.apply(self.snapshot, message["changes"])
                    self.sequence = message["sequence"]
                    self.history.append((self.sequence, message["changes"], self.snapshot))
                self.condition.notify_all()

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 20, what: str = "condition") -> dict:
        """Waits until the current snapshot satisfies `predicate`; returns it."""
        with self.condition:
            wait_notified(self.condition, lambda: self.snapshot is not None and predicate(self.snapshot), timeout,
                          what=what, give_up=self.exited,
                          details=lambda: f"snapshot: {json.dumps(self.snapshot)}\n{self.log_tail()}")
            return self.snapshot

    def wait_running(self) -> dict:
        """Waits until Avahi is running as the host item shows it (and peerscand's signal handlers are installed)."""
        return self.wait_for(lambda s: applier.config_item(s, "host")["avahiState"] == "running", what="avahi running")

    @property
    def rss_kib(self) -> int:
        """peerscand's resident set."""
        return self.usage().rss_kib

    def devices(self) -> dict:
        with self.condition:
            return applier.devices(self.snapshot)

    def changes_since(self, sequence: int) -> list[dict]:
        with self.condition:
            return [changes for seq, changes, _ in self.history if seq > sequence]

    def stop(self, timeout: float = 15) -> int:
        code = super().stop(timeout)
        self._dump_reader.join(timeout=5)
        return code


@pytest.fixture
def lan():
    with TestLAN() as lan:
        lan.start_avahi()
        yield lan


@pytest.fixture
def broker(lan, tmp_path):
    """mosquitto on the scanner namespace's loopback, keeping retained messages across its restarts."""
    broker = Broker(lan.scanner_ns, "127.0.0.1", tmp_path / "broker", persistence=True)
    broker.start()
    yield broker
    broker.stop()


@pytest.fixture
def start_daemon(lan, tmp_path):
    daemons: list[Daemon] = []

    def start(*extra: str, mdns_only: bool = True, user: int | None = None) -> Daemon:
        daemon = Daemon(lan, tmp_path / "state", *extra, mdns_only=mdns_only, user=user)
        daemons.append(daemon)
        return daemon

    yield start
    for daemon in daemons:
        daemon.stop()


@pytest.fixture
def socket_path(lan):
    """Where the Varlink socket goes: the LAN's temp dir, which is mode 0755 (searchable by any user)."""
    return lan.tmpdir / "io.peerscan"


@pytest.fixture
def start_varlink_daemon(lan, tmp_path, socket_path):
    """Starts peerscand with --dump and --socket (default: `socket_path`), waiting until the socket answers."""
    daemons: list[Daemon] = []

    def start(*extra: str, socket: Path | None = None, wait: bool = True, mdns_only: bool = True) -> Daemon:
        daemon = Daemon(lan, tmp_path / f"state{len(daemons)}", *extra, socket=socket or socket_path,
                        mdns_only=mdns_only)
        daemons.append(daemon)
        if wait:
            daemon.wait_serving()
            daemon.wait_running()
        return daemon

    yield start
    for daemon in daemons:
        daemon.stop()


def edit_groups(*argv: str, check: bool = True) -> None:
    """groupadd/groupdel, again while another test process holds /etc/group's lock (their exit code 10: the stage
    runs its tests in two processes)."""
    for _ in range(50):
        result = subprocess.run(argv, capture_output=True, text=True)
        if result.returncode != 10:
            break
        time.sleep(0.1)
    if check and result.returncode != 0:
        raise subprocess.CalledProcessError(result.returncode, argv, result.stdout, result.stderr)


@pytest.fixture
def control_group():
    """A group created for the test (name, gid), removed afterwards."""
    name = f"pstest{os.getpid()}"
    edit_groups("groupdel", name, check=False)
    edit_groups("groupadd", name)
    try:
        gid = int(subprocess.run(["getent", "group", name], check=True, capture_output=True, text=True)
                  .stdout.split(":")[2])
        yield name, gid
    finally:
        edit_groups("groupdel", name)
