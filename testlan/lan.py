"""A test LAN in network namespaces: a bridge, a scanner host with avahi-daemon, and peers.

Topology (all names get a unique ``psl-<pid>-<tag>`` prefix)::

    <base>-sw   "switch": bridge br0, one veth port per host, no addresses
    <base>-sc   scanner: lan0 = 10.231.0.1/24, fd70:7363:616e::1/64 (+ link-local);
                a private D-Bus system bus and avahi-daemon (allow-interfaces=lan0)
    <base>-pN   peer N:  lan0 = 10.231.0.(10+N)/24, fd70:7363:616e::(10+N)/64;
                runs responder.py (python-zeroconf)

Nothing is ever created in, or bound to, the host's own network namespace: veth pairs are
created inside the switch namespace with their other end placed straight into the host
namespace of the scanner or peer.

Typical use in a test::

    with TestLAN() as lan:
        lan.start_avahi()
        peer = lan.add_peer("alpha")
        peer.register("web", "_http._tcp", 80, {"path": "/"})
        proc = lan.popen_in_scanner(["./peerscand", ...])
        rows = lan.avahi_browse()

Everything started is torn down on context exit, at interpreter exit, and on SIGTERM/SIGINT.
Needs root, iproute2, dbus-daemon, avahi-daemon, avahi-utils, and /usr/bin/python3 with zeroconf.

This module is the LAN itself (`TestLAN`: its namespaces, the private bus, avahi-daemon, running
things in the scanner namespace); the parts live beside it and are re-exported here: `netns`
(commands, namespaces, the switch, processes, teardown), `peers` (`Peer`, `Host`, MAC addresses),
`daemons` (the bus's and avahi-daemon's configuration), `browse` (avahi-browse's output), `waiting`
(deadline loops).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from testkit.waiting import wait_until

from .browse import BrowseRow, parse_browse_output
from .daemons import AVAHI_STATE_ARGV, avahi_argv, avahi_is_running, bus_argv, write_bus_config
from .netns import (
    INTERFACE,
    IPV4_NET,
    IPV6_NET,
    PREFIX,
    add_namespace,
    child_setup,
    cleanup_stale,
    close_at_exit,
    connect,
    forget_at_exit,
    kill_namespace,
    make_switch,
    run,
    stop_process,
)
from .peers import Host, Peer, PeerError, random_mac, real_oui_mac

# What the tests and benchmarks import from here (the LAN's parts live in the modules above).
__all__ = ["BrowseRow", "Host", "Peer", "PeerError", "TestLAN", "cleanup_stale", "fill_file_system",
           "parse_browse_output", "random_mac", "real_oui_mac"]


class TestLAN:
    """A throw-away LAN of network namespaces; see the module docstring for the topology.

    Use as a context manager (or call `start()` / `close()`). `close()` is idempotent and is also
    run at interpreter exit and on SIGTERM/SIGINT.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self, prefix_length: int = 24) -> None:
        """- Parameter prefix_length: the scanner's IPv4 prefix length (22: the subnet 10.231.0.0/22, which
          peerscand sweeps whole and `testlan.silent` fills with silent hosts; peers and hosts keep a /24 address)."""
        self.tag = f"{os.getpid()}-{secrets.token_hex(2)}"
        self.base = f"{PREFIX}{self.tag}"
        self.switch_ns = f"{self.base}-sw"
        self.scanner_ns = f"{self.base}-sc"
        self.scanner_interface = INTERFACE
        self.scanner_ipv4 = f"{IPV4_NET}.1"
        self.scanner_ipv6 = f"{IPV6_NET}:1"
        self.tmpdir = Path()
        self.bus_address = ""
        self.uses_bridge = True
        self.peers: list[Peer] = []
        self.hosts: list[Host] = []
        self.prefix_length = prefix_length
        self._namespaces: list[str] = []
        self._procs: list[subprocess.Popen] = []
        self._dbus: subprocess.Popen | None = None
        self._avahi: subprocess.Popen | None = None
        self._closed = False
        # Extra [server] settings for avahi-daemon.conf (e.g. {"cache-entries-max": "16384"}), used from the next
        # start_avahi on: a stress test raises Avahi's limits for a large LAN.
        self.avahi_server_options: dict[str, str] = {}

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> TestLAN:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> TestLAN:
        """Create the switch and scanner namespaces and the private D-Bus system bus."""
        cleanup_stale()
        close_at_exit(self)
        try:
            self.tmpdir = Path(tempfile.mkdtemp(prefix=f"{self.base}-"))
            self.tmpdir.chmod(0o755)  # an unprivileged client must reach the bus socket
            self._add_namespace(self.switch_ns, switch=True)
            self.uses_bridge = make_switch(self.switch_ns)
            self._add_namespace(self.scanner_ns)
            connect(self.switch_ns, self.uses_bridge, self.scanner_ns, "sc", self.scanner_ipv4, self.scanner_ipv6,
                    ipv4_prefix=self.prefix_length)
            self._start_bus()
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Tear everything down: processes, namespaces, the bus, temp files. Idempotent."""
        if self._closed:
            return
        self._closed = True
        main = threading.current_thread() is threading.main_thread()
        if main:  # a SIGTERM arriving now must not cut the teardown short; it is handled after
            blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})
        try:
            for peer in self.peers:
                if peer.proc:
                    stop_process(peer.proc, signal.SIGKILL)
            for proc in self._procs:
                stop_process(proc, signal.SIGTERM, timeout=3)
            if self._avahi:
                stop_process(self._avahi, signal.SIGTERM, timeout=3)
            if self._dbus:
                stop_process(self._dbus, signal.SIGTERM, timeout=3)
            for ns in reversed(self._namespaces):
                kill_namespace(ns)
            if self.tmpdir != Path() and self.tmpdir.exists():
                shutil.rmtree(self.tmpdir, ignore_errors=True)
        finally:
            forget_at_exit(self)
            if main:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    # -- topology -------------------------------------------------------------------------------

    def _add_namespace(self, ns: str, switch: bool = False) -> None:
        self._namespaces.append(ns)  # before it exists: a half-made namespace is removed too
        add_namespace(ns, switch=switch)

    def _connect(self, ns: str, port: str, ipv4: str | None, ipv6: str | None, mac: str | None = None) -> None:
        connect(self.switch_ns, self.uses_bridge, ns, port, ipv4, ipv6, mac)

    # -- D-Bus and avahi-daemon -----------------------------------------------------------------

    def _start_bus(self) -> None:
        config, self.bus_address = write_bus_config(self.tmpdir)
        self._dbus = self._popen_scanner_raw(bus_argv(config), stdout=subprocess.PIPE,
                                             stderr=open(self.tmpdir / "dbus.log", "ab"))
        assert self._dbus.stdout
        if not self._dbus.stdout.readline():
            raise RuntimeError(f"dbus-daemon did not start; see {self.tmpdir}/dbus.log")

    def start_avahi(self, wait: bool = True) -> None:
        """Start avahi-daemon in the scanner namespace (own mount namespace, private /run).

        Its log goes to ``<tmpdir>/avahi.log``. With ``wait``, returns once it is running.
        """
        if self._avahi and self._avahi.poll() is None:
            raise RuntimeError("avahi-daemon is already running")
        log = open(self.tmpdir / "avahi.log", "ab")
        self._avahi = self._popen_scanner_raw(avahi_argv(self.tmpdir, self.avahi_server_options), stderr=log,
                                              stdout=log)
        log.close()
        if wait:
            self.wait_avahi_ready()

    def stop_avahi(self, sig: int = signal.SIGTERM) -> None:
        """Stop avahi-daemon with ``sig`` (SIGKILL simulates a crash) and reap it."""
        if self._avahi:
            stop_process(self._avahi, sig)
            self._avahi = None

    def restart_avahi(self, sig: int = signal.SIGTERM, wait: bool = True) -> None:
        """Stop avahi-daemon with ``sig`` and start it again."""
        self.stop_avahi(sig)
        self.start_avahi(wait=wait)

    @property
    def avahi_pid(self) -> int | None:
        """avahi-daemon's pid (the started ``unshare``/``sh`` exec it), or None when it is not running."""
        return self._avahi.pid if self.avahi_running else None

    def stop_bus(self) -> None:
        """Stop the private D-Bus system bus (SIGTERM), as a crash or restart of dbus-daemon would."""
        if self._dbus:
            stop_process(self._dbus, signal.SIGTERM, timeout=3)
            self._dbus = None

    def start_bus(self) -> None:
        """Start the private D-Bus system bus again (same socket path) after `stop_bus`."""
        if self._dbus and self._dbus.poll() is None:
            raise RuntimeError("the bus is already running")
        (self.tmpdir / "system_bus_socket").unlink(missing_ok=True)
        self._start_bus()

    @property
    def avahi_running(self) -> bool:
        """Whether the avahi-daemon process started by `start_avahi` is alive."""
        return self._avahi is not None and self._avahi.poll() is None

    def wait_avahi_ready(self, timeout: float = 10) -> None:
        """Wait until avahi-daemon answers on the bus with server state RUNNING."""
        def running() -> bool:
            result = self.run_in_scanner(AVAHI_STATE_ARGV, check=False)
            return avahi_is_running(result.returncode, result.stdout)

        wait_until(running, timeout, interval=0.05, what="avahi-daemon to be running",
                   give_up=lambda: None if self.avahi_running else "avahi-daemon exited",
                   details=lambda: f"see {self.tmpdir}/avahi.log")

    # -- running things in the scanner namespace ------------------------------------------------

    def scanner_env(self) -> dict[str, str]:
        """The environment for programs in the scanner namespace: ours plus the private bus."""
        return {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": self.bus_address}

    def _popen_scanner_raw(self, argv: list[str], **kw: Any) -> subprocess.Popen:
        kw.setdefault("env", self.scanner_env())
        return subprocess.Popen(["ip", "netns", "exec", self.scanner_ns, *argv],
                                preexec_fn=child_setup, start_new_session=True, **kw)

    def popen_in_scanner(self, argv: list[str], **kw: Any) -> subprocess.Popen:
        """Start ``argv`` in the scanner namespace with ``DBUS_SYSTEM_BUS_ADDRESS`` set.

        Keyword arguments go to `subprocess.Popen` (an ``env`` given is used as is). The process
        is stopped (SIGTERM, then SIGKILL) at teardown if still running.
        """
        proc = self._popen_scanner_raw(argv, **kw)
        self._procs.append(proc)
        return proc

    def run_in_scanner(self, argv: list[str], timeout: float = 30, check: bool = True,
                       **kw: Any) -> subprocess.CompletedProcess:
        """Run ``argv`` to completion in the scanner namespace; returns its CompletedProcess (text)."""
        kw.setdefault("env", self.scanner_env())
        return subprocess.run(["ip", "netns", "exec", self.scanner_ns, *argv], capture_output=True,
                              text=True, timeout=timeout, check=check, **kw)

    def avahi_browse(self, timeout: float = 15) -> list[BrowseRow]:
        """Run ``avahi-browse -a -r -p -t -k`` in the scanner namespace and parse its rows.

        ``-t`` ends it after ALL_FOR_NOW and the resolves; rows come once per (interface,
        protocol). Use ``[r for r in rows if r.event == "="]`` for the resolved services.
        """
        result = self.run_in_scanner(["avahi-browse", "-a", "-r", "-p", "-t", "-k"], timeout=timeout)
        return parse_browse_output(result.stdout)

    # -- peers ----------------------------------------------------------------------------------

    def add_peer(self, hostname: str) -> Peer:
        """Create a peer namespace joined to the switch and start its responder.

        The peer publishes ``<hostname>.local.`` once it registers a service.
        - Returns: the running `Peer`.
        """
        index = len(self.peers)
        if index >= 200:
            raise ValueError("at most 200 peers")
        peer = Peer(self, index, hostname, f"{self.base}-p{index}")
        if self.hosts:  # addresses are numbered over peers and hosts together
            number = 10 + len(self.peers) + len(self.hosts)
            peer.ipv4, peer.ipv6 = f"{IPV4_NET}.{number}", f"{IPV6_NET}:{number}"
            peer.addresses = [peer.ipv4, peer.ipv6]
        self.peers.append(peer)
        self._add_namespace(peer.namespace)
        self._connect(peer.namespace, f"p{index}", peer.ipv4, peer.ipv6)
        peer._start()
        return peer

    def add_host(self, name: str, *, mac: str | None = None, ipv4: str | bool = True,
                 ipv6: str | bool = True) -> Host:
        """Create a host that speaks no mDNS (see `Host`), joined to the switch.

        - Parameters:
          - mac: its MAC address (default: the kernel's random, locally administered one); `real_oui_mac` and
            `random_mac` make one.
          - ipv4, ipv6: an address, True for the next free one (10.231.0.(10+n), fd70:7363:616e::(10+n), n counted
            with the peers), or False for none (an IPv6-only host has ``ipv4=False``).
        """
        index = len(self.peers) + len(self.hosts)
        namespace = f"{self.base}-h{len(self.hosts)}"
        v4 = f"{IPV4_NET}.{10 + index}" if ipv4 is True else (ipv4 or None)
        v6 = f"{IPV6_NET}:{10 + index}" if ipv6 is True else (ipv6 or None)
        self._add_namespace(namespace)
        self._connect(namespace, f"h{len(self.hosts)}", v4, v6, mac)
        actual = json.loads(run("ip", "-j", "-n", namespace, "link", "show", INTERFACE))[0]["address"]
        host = Host(self, name, namespace, actual, v4, v6)
        self.hosts.append(host)
        return host

    def scanner_neighbours(self) -> list[dict]:
        """The scanner's neighbour table (``ip -j neigh show``): dicts with dst, dev, lladdr, state (a list)."""
        return json.loads(run("ip", "-j", "-n", self.scanner_ns, "neigh", "show") or "[]")

    def arp_scan(self, timeout: float = 60) -> tuple[dict[str, str], float]:
        """``arp-scan -l`` on the scanner's interface: the hosts that answered (address → MAC) and the seconds it
        took."""
        start = time.monotonic()
        out = self.run_in_scanner(["arp-scan", "-l", "-I", INTERFACE, "-q", "-x", "-g"], timeout=timeout).stdout
        elapsed = time.monotonic() - start
        hosts = {}
        for line in out.splitlines():
            parts = line.split("\t")
            if len(parts) >= 2:
                hosts[parts[0]] = parts[1].lower()
        return hosts, elapsed


def fill_file_system(path: Path) -> None:
    """Write zeros to the file ``path`` until its file system is full (unbuffered: the last partial write fails
    here, not at close). Delete the file to make room again."""
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 65536)
        except OSError:
            pass
