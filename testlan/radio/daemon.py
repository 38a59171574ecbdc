"""peerscand in the radio guest for the demo and the benchmark (the tests use the integration tests' `Daemon`):
watching the scanner and the station, its log in a file, its Varlink socket in a temp dir."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from testclient import varlinkclient
from testlan.radio import air
from testlan.waiting import wait_until

ROOT = Path(__file__).resolve().parents[2]
PEERSCAND = Path(os.environ.get("PEERSCAND", ROOT / ".build" / "debug" / "peerscand"))
PEERSCANCTL = Path(os.environ.get("PEERSCANCTL", ROOT / ".build" / "debug" / "peerscanctl"))


@contextlib.contextmanager
def peerscand(*extra: str, log: Path) -> Iterator[tuple[subprocess.Popen, Path]]:
    """peerscand (as root) with `extra` options until the block ends; yields the process and its socket."""
    folder = Path(tempfile.mkdtemp(prefix="radio-peerscand-"))
    socket = folder / "io.peerscan"
    argv = [str(PEERSCAND), "--socket", str(socket), "--state-directory", str(folder / "state"),
            "--no-neighbour-table", "--offline-after", "0", "--forget-after", "0",
            "--interface", air.SCANNER, "--interface", air.STATION, *extra]
    with log.open("w") as output:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=output)
    try:
        wait_until(lambda: varlinkclient.answers(socket), 30, interval=0.1, what="peerscand's socket",
                   give_up=lambda: None if process.poll() is None else f"peerscand exited ({process.returncode})",
                   details=lambda: log.read_text()[-2000:])
        yield process, socket
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
