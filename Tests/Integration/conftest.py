"""Fixtures for the integration tests: a test LAN (network namespaces, a private bus, a real avahi-daemon and
python-zeroconf peers — see testlan/) and peerscand running in it with --dump.

Run as root: `make test` (or `python3 -m pytest tests/integration` after `swift build`).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

from testlan.lan import TestLAN  # noqa: E402
import applier  # noqa: E402

PEERSCAND = Path(os.environ.get("PEERSCAND", ROOT / ".build" / "debug" / "peerscand"))


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        raise pytest.UsageError("the integration tests create network namespaces: run them as root")
    if not PEERSCAND.exists():
        raise pytest.UsageError(f"{PEERSCAND} is missing: run `swift build` first (or set PEERSCAND)")


class Daemon:
    """peerscand --dump in the scanner namespace, its output replayed into the current snapshot."""

    def __init__(self, lan: TestLAN, state_directory: Path, *extra: str) -> None:
        self.lan = lan
        self.argv = [str(PEERSCAND), "--dump", "--state-directory", str(state_directory), "--log-level", "debug",
                     "--resync-grace", "20", *extra]
        self.snapshot: dict | None = None
        self.sequence = -1
        self.history: list[tuple[int, dict, dict]] = []  # (sequence, changes, snapshot after)
        self.final: dict | None = None
        self.lines: queue.Queue = queue.Queue()
        self.stderr_lines: list[str] = []
        self.condition = threading.Condition()
        self.process = lan.popen_in_scanner(self.argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    def _read(self) -> None:
        for line in self.process.stdout:
            message = json.loads(line)
            with self.condition:
                if message["event"] == "snapshot":
                    if message.get("final"):
                        self.final = message["snapshot"]
                        assert message["sequence"] == self.sequence, "final snapshot at the last sequence"
                    else:
                        self.snapshot, self.sequence = message["snapshot"], message["sequence"]
                else:
                    assert message["sequence"] == self.sequence + 1, f"gap: {self.sequence} -> {message['sequence']}"
                    self.snapshot = applier.apply(self.snapshot, message["changes"])
                    self.sequence = message["sequence"]
                    self.history.append((self.sequence, message["changes"], self.snapshot))
                self.condition.notify_all()

    def _read_stderr(self) -> None:
        for line in self.process.stderr:
            self.stderr_lines.append(line.rstrip("\n"))

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 20, what: str = "condition") -> dict:
        """Waits until the current snapshot satisfies `predicate`; returns it."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                if self.snapshot is not None and predicate(self.snapshot):
                    return self.snapshot
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.process.poll() is not None:
                    tail = "\n".join(self.stderr_lines[-30:])
                    why = "timed out" if self.process.poll() is None else f"peerscand exited ({self.process.poll()})"
                    raise AssertionError(f"{why} waiting for {what}; snapshot: {json.dumps(self.snapshot)}\n{tail}")
                self.condition.wait(remaining)

    def wait_running(self) -> dict:
        """Waits until Avahi is running as the host item shows it (and peerscand's signal handlers are installed)."""
        return self.wait_for(lambda s: applier.config_item(s, "host")["avahiState"] == "running", what="avahi running")

    def devices(self) -> dict:
        with self.condition:
            return applier.devices(self.snapshot)

    def changes_since(self, sequence: int) -> list[dict]:
        with self.condition:
            return [changes for seq, changes, _ in self.history if seq > sequence]

    def signal(self, signum: int) -> None:
        self.process.send_signal(signum)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=15)
        self._reader.join(timeout=5)
        return code


@pytest.fixture
def lan():
    with TestLAN() as lan:
        lan.start_avahi()
        yield lan


@pytest.fixture
def start_daemon(lan, tmp_path):
    daemons: list[Daemon] = []

    def start(*extra: str) -> Daemon:
        daemon = Daemon(lan, tmp_path / "state", *extra)
        daemons.append(daemon)
        return daemon

    yield start
    for daemon in daemons:
        daemon.stop()
