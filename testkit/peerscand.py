"""peerscand under test: the one wrapper the integration tests, the stress suite, the radio guest and the demo start,
watch and stop it with.

Each caller chooses peerscand's options (they differ: `--dump` for a follower of its standard output, the mDNS-only
presence flags, the radio's interfaces); the wrapper owns the rest: the binary (``PEERSCAND`` overrides
``.build/debug/peerscand``), running it as another user without capabilities, where it runs (``popen``: a test LAN's
``popen_in_scanner`` puts it in the scanner namespace, `subprocess.Popen` in the radio guest's own), its log (standard
error read line by line, kept in memory and copied to a file), the wait until its socket answers, its resource use and
its stop.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from testkit import proc
from testkit.waiting import wait_until
from testkit.wire import answers

__all__ = ["PEERSCAND", "ROOT", "Peerscand", "command"]

ROOT = Path(__file__).resolve().parents[1]
PEERSCAND = Path(os.environ.get("PEERSCAND", ROOT / ".build" / "debug" / "peerscand"))


def command(*options: str, binary: str | Path = PEERSCAND, user: int | None = None) -> list[str]:
    """peerscand's argv: `binary` with `options`; as `user` (uid and gid) with no capability at all, as the default
    unit runs it, when given.

    - Complexity: O(len(options)).
    """
    argv = [str(binary), *options]
    if user is None:
        return argv
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", *argv]


class Peerscand:
    """One peerscand process at a time from one argv: started by `start` (again after `stop`: a restart), its standard
    error kept in `stderr_lines` and appended to `log` (emptied when the wrapper is made), stopped by `stop`.

    Standard output goes where ``stdout`` says (default: nowhere); with `subprocess.PIPE` the caller reads
    ``process.stdout`` (the ``--dump`` followers).
    """

    def __init__(self, argv: Sequence[str], socket: Path, *, popen: Callable[..., subprocess.Popen] = subprocess.Popen,
                 log: Path | None = None, stdout: int | IO[Any] | None = subprocess.DEVNULL) -> None:
        """- Parameters:
          - argv: the whole command (`command`'s); callers may still extend `self.argv` before `start`.
          - socket: the Varlink socket peerscand serves (one of `argv`'s options), which `wait_serving` polls.
          - popen: how to run it, called as `subprocess.Popen` is.
        """
        self.argv = list(argv)
        self.socket = socket
        self.popen = popen
        self.log = log
        self.stdout = stdout
        self.process: subprocess.Popen | None = None
        self.stderr_lines: list[str] = []
        self._reader: threading.Thread | None = None
        if log is not None:
            log.parent.mkdir(parents=True, exist_ok=True)
            log.write_text("")

    def start(self) -> subprocess.Popen:
        """Starts peerscand (the previous process, if any, must have been stopped); returns its process."""
        assert self.process is None or self.process.poll() is not None, "peerscand is already running"
        self.process = self.popen(self.argv, stdout=self.stdout, stderr=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read_stderr, args=(self.process,), daemon=True,
                                        name="peerscand-log")
        self._reader.start()
        return self.process

    def _read_stderr(self, process: subprocess.Popen) -> None:
        with open(self.log, "a") if self.log is not None else contextlib.nullcontext() as log:
            for line in process.stderr:
                self.stderr_lines.append(line.rstrip("\n"))
                if log is not None:
                    log.write(line)
                    log.flush()

    def exited(self) -> str | None:
        """Why a wait on this peerscand is over early: it exited (a `give_up` of testkit.waiting)."""
        code = self.process.poll() if self.process is not None else None
        return None if code is None else f"peerscand exited ({code})"

    def log_tail(self, count: int = 30) -> str:
        """peerscand's last `count` lines of standard error (once it exited, up to its last: the reader is given up to
        5 s to reach the end of the pipe)."""
        if self._reader is not None and self.process is not None and self.process.poll() is not None:
            self._reader.join(timeout=5)
        return "\n".join(self.stderr_lines[-count:])

    def count(self, text: str) -> int:
        """How many lines of its standard error so far contain `text`."""
        return sum(1 for line in list(self.stderr_lines) if text in line)

    def wait_serving(self, timeout: float = 20, interval: float = 0.05) -> float:
        """Waits until the Varlink socket answers GetInfo; returns the seconds it took.

        - Raises: `testkit.waiting.WaitError` after `timeout`, or at once when peerscand exits.
        """
        return wait_until(lambda: answers(self.socket), timeout, interval=interval, what=f"{self.socket} to answer",
                          give_up=self.exited, details=self.log_tail)

    def usage(self) -> proc.Usage:
        """peerscand's CPU time and memory (`popen` execs it through `ip netns exec` and `setpriv`: the process's pid
        is peerscand's).

        - Raises: `OSError` when it is gone.
        """
        assert self.process is not None, "peerscand was never started"
        return proc.usage(self.process.pid)

    def signal(self, signum: int) -> None:
        assert self.process is not None, "peerscand was never started"
        self.process.send_signal(signum)

    def stop(self, timeout: float = 15) -> int:
        """Sends SIGTERM (unless it exited already) and waits for the exit; returns its exit status.

        - Raises: `AssertionError` when it did not exit within `timeout` seconds (it is killed first).
        """
        assert self.process is not None, "peerscand was never started"
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            code = self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"peerscand did not stop within {timeout:g} s of SIGTERM (killed):\n"
                                 + self.log_tail()) from None
        if self._reader is not None:
            self._reader.join(timeout=5)
        return code
