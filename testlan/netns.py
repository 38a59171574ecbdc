"""The test LAN's plumbing: commands, network namespaces, the switch and its ports, child processes, and teardown on
every exit path.

Every namespace is named ``psl-<pid>-<tag>-…`` after the harness process that owns it, so `cleanup_stale` can remove
what dead harnesses left behind while other runs go on. Nothing here creates anything in, or binds anything to, the
host's own network namespace: a veth pair is created inside the switch namespace with its other end placed straight
into the namespace it joins.
"""

from __future__ import annotations

import atexit
import ctypes
import glob
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Protocol

PREFIX = "psl-"
# The address plan: every host's interface on the switch is lan0; the scanner is .1 / ::1, peers and hosts .10 on.
INTERFACE = "lan0"
IPV4_NET = "10.231.0"
IPV6_NET = "fd70:7363:616e:"

_NS_RE = re.compile(rf"^{PREFIX}(\d+)-")
_libc = ctypes.CDLL(None, use_errno=True)


def child_setup() -> None:
    """In the child before exec: die with the harness even if the harness gets SIGKILL.

    PR_SET_PDEATHSIG follows the *thread* that started the child: a process started from a thread that ends
    (e.g. an avahi-daemon restarted from a helper thread) is killed then.
    """
    _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def run(*argv: str, check: bool = True, timeout: float = 30, **kw: Any) -> str:
    """Run a command, return its stdout; raise with stderr on failure."""
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def stop_process(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 5) -> None:
    """Signal a child and reap it; SIGKILL if it does not exit within ``timeout``."""
    if proc.poll() is None:
        try:
            proc.send_signal(sig)
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream:
            try:
                stream.close()
            except OSError:
                pass


def start_reporter(argv: list[str], log: Path, what: str, timeout: float = 10) -> subprocess.Popen[str]:
    """Start a responder that writes `{"ready": true}` once its socket is open and its counts, as its last JSON line,
    when it stops (``stop_reporter``); returns once it is ready. Its standard error goes to ``log``.

    - Raises: RuntimeError (naming ``what`` and ``log``) if it is not ready within ``timeout``."""
    with open(log, "ab") as stderr:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True, preexec_fn=child_setup,
                                start_new_session=True)
    assert proc.stdout
    ready = select.select([proc.stdout], [], [], timeout)[0] and proc.stdout.readline()
    if not ready or not json.loads(ready).get("ready"):
        stop_reporter(proc)
        raise RuntimeError(f"{what} did not start; see {log}")
    return proc


def stop_reporter(proc: subprocess.Popen[str]) -> dict:
    """Stop a responder started by ``start_reporter`` (SIGTERM, SIGKILL after 5 s); returns its counts."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        output = proc.communicate(timeout=5)[0]
    except subprocess.TimeoutExpired:
        proc.kill()
        output = proc.communicate()[0]
    lines = output.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


# ---------------------------------------------------------------------------------------------
# Namespaces and the switch


def add_namespace(ns: str, switch: bool = False) -> None:
    """Create namespace ``ns`` with lo up, no DAD and no router solicitations (and no IPv6 at all on the switch)."""
    run("ip", "netns", "add", ns)
    run("ip", "-n", ns, "link", "set", "lo", "up")
    # No DAD, so link-local addresses are usable at once; no router solicitations.
    settings = ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
                "net.ipv6.conf.default.router_solicitations=0"]
    if switch:  # the switch has no addresses at all
        settings += ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
    run("ip", "netns", "exec", ns, "sysctl", "-qw", *settings)


def make_switch(switch_ns: str) -> bool:
    """A bridge br0 without multicast snooping in ``switch_ns``; if bridges are unavailable, a dummy link whose macvlan
    children in bridge mode play the switch.

    - Returns: whether it is a bridge (`connect` needs to know).
    """
    uses_bridge = True
    try:
        run("ip", "-n", switch_ns, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
    except RuntimeError:
        uses_bridge = False
        run("ip", "-n", switch_ns, "link", "add", "br0", "type", "dummy")
    run("ip", "-n", switch_ns, "link", "set", "br0", "up")
    return uses_bridge


def connect(switch_ns: str, uses_bridge: bool, ns: str, port: str, ipv4: str | None, ipv6: str | None,
            mac: str | None = None, ipv4_prefix: int = 24) -> None:
    """Join namespace ``ns`` to the switch (port ``port``) as interface lan0 with the given addresses (and MAC; the
    IPv4 address with prefix length ``ipv4_prefix``)."""
    sw = ("ip", "-n", switch_ns, "link")
    if uses_bridge:
        run(*sw, "add", port, "type", "veth", "peer", "name", INTERFACE, "netns", ns)
        run(*sw, "set", port, "master", "br0", "up")
    else:
        run(*sw, "add", "link", "br0", "name", port, "type", "macvlan", "mode", "bridge")
        run(*sw, "set", port, "netns", ns)
        run("ip", "-n", ns, "link", "set", port, "name", INTERFACE)
    if mac:
        run("ip", "-n", ns, "link", "set", INTERFACE, "address", mac)
    if ipv4:
        run("ip", "-n", ns, "addr", "add", f"{ipv4}/{ipv4_prefix}", "dev", INTERFACE)
    if ipv6:
        run("ip", "-n", ns, "addr", "add", f"{ipv6}/64", "dev", INTERFACE, "nodad")
    run("ip", "-n", ns, "link", "set", INTERFACE, "up")


def kill_namespace(ns: str) -> None:
    """SIGKILL every process in namespace ``ns``, then delete it."""
    for _ in range(20):
        pids = [int(p) for p in run("ip", "netns", "pids", ns, check=False).split()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    run("ip", "netns", "del", ns, check=False)


def _namespaces() -> list[str]:
    return [line.split()[0] for line in run("ip", "netns", "list").splitlines() if line.strip()]


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` runs; a zombie (an init that does not reap leaves them) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def cleanup_stale(prefix: str = PREFIX) -> list[str]:
    """Remove namespaces and temp dirs left by harness processes that are no longer alive.

    Names carry the owner's pid (``psl-<pid>-...``); those of live owners are kept, so this is
    safe while other test runs are going on.

    - Returns: the names of the namespaces removed.
    """
    removed = []
    for ns in _namespaces():
        match = _NS_RE.match(ns) if ns.startswith(prefix) else None
        if match and not _pid_alive(int(match.group(1))):
            kill_namespace(ns)
            removed.append(ns)
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{prefix}*")):
        match = _NS_RE.match(os.path.basename(path))
        if match and not _pid_alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)
    return removed


# ---------------------------------------------------------------------------------------------
# Teardown on every exit path: one module-level registry, atexit and signal handlers.


class Closable(Protocol):
    def close(self) -> None: ...


_live: set[Closable] = set()
_previous_handlers: dict[int, Any] = {}


def close_at_exit(resource: Closable) -> None:
    """Close ``resource`` at interpreter exit and on SIGTERM/SIGINT (then the signal's previous handling goes on),
    unless `forget_at_exit` was called for it first."""
    _live.add(resource)
    _install_handlers()


def forget_at_exit(resource: Closable) -> None:
    """Undo `close_at_exit` (the resource closed itself)."""
    _live.discard(resource)


def _close_all() -> None:
    for resource in list(_live):
        resource.close()


def _on_signal(signum: int, frame: Any) -> None:
    _close_all()
    previous = _previous_handlers.pop(signum, signal.SIG_DFL)
    signal.signal(signum, previous)
    if callable(previous):
        previous(signum, frame)  # e.g. Python's SIGINT handler raises KeyboardInterrupt
    elif previous == signal.SIG_DFL:
        os.kill(os.getpid(), signum)  # die of the signal, as the sender expects


def _install_handlers() -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread; atexit still applies
    for signum in (signal.SIGTERM, signal.SIGINT):
        if signum not in _previous_handlers:
            _previous_handlers[signum] = signal.signal(signum, _on_signal)


atexit.register(_close_all)
