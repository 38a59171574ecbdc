"""peerscand in the radio guest for the demo and the benchmark (the tests use the integration tests' `Daemon`):
watching the scanner and the station, its log in a file, its Varlink socket in a temp dir."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from testkit.peerscand import PEERSCAND, ROOT, Peerscand, command
from testlan.radio import air

__all__ = ["PEERSCAND", "PEERSCANCTL", "peerscand"]

PEERSCANCTL = Path(os.environ.get("PEERSCANCTL", ROOT / ".build" / "debug" / "peerscanctl"))


@contextlib.contextmanager
def peerscand(*extra: str, log: Path) -> Iterator[Peerscand]:
    """peerscand (as root) with `extra` options until the block ends; yields it (its `process`, its `socket`)."""
    folder = Path(tempfile.mkdtemp(prefix="radio-peerscand-"))
    socket = folder / "io.peerscan"
    daemon = Peerscand(command("--socket", str(socket), "--state-directory", str(folder / "state"),
                               "--no-neighbour-table", "--offline-after", "0", "--forget-after", "0",
                               "--interface", air.SCANNER, "--interface", air.STATION, *extra), socket, log=log)
    daemon.start()
    try:
        daemon.wait_serving(30, interval=0.1)
        yield daemon
    finally:
        daemon.stop(timeout=30)  # systemd waits 90 s; a daemon still running after 30 s fails the test
