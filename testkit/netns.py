"""Work in another network namespace from this process: setns(2) moves only the calling thread, so `call_in` runs a
function on a thread of its own that joined the namespace and hands back its result (a socket made there stays in
that namespace and is usable from any thread) or its error."""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

CLONE_NEWNET = 0x40000000
_libc = ctypes.CDLL(None, use_errno=True)
T = TypeVar("T")


def namespace_path(namespace: str | Path) -> Path:
    """A namespace's file: a name of `ip netns` (under /run/netns) or a path (e.g. /proc/PID/ns/net)."""
    return Path(namespace) if "/" in str(namespace) else Path("/run/netns") / str(namespace)


def enter(namespace: str | Path) -> None:
    """Moves the calling thread (only it) into the namespace."""
    with open(namespace_path(namespace)) as handle:
        if _libc.setns(handle.fileno(), CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {namespace}")


def call_in(namespace: str | Path, function: Callable[[], T]) -> T:
    """`function()` on a thread that joined the namespace: its result, or the error it raised."""
    outcome: dict = {}

    def run() -> None:
        try:
            enter(namespace)
            outcome["result"] = function()
        except BaseException as error:  # handed to the caller's thread
            outcome["error"] = error

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]
