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
"""

from __future__ import annotations

import atexit
import ctypes
import dataclasses
import glob
import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

PREFIX = "psl-"
INTERFACE = "lan0"
IPV4_NET = "10.231.0"
IPV6_NET = "fd70:7363:616e:"
RESPONDER = Path(__file__).with_name("responder.py")
PEER_PYTHON = "/usr/bin/python3"

_NS_RE = re.compile(rf"^{PREFIX}(\d+)-")
_libc = ctypes.CDLL(None, use_errno=True)


def _child_setup() -> None:
    """In the child before exec: die with the harness even if the harness gets SIGKILL.

    PR_SET_PDEATHSIG follows the *thread* that started the child: a process started from a thread that ends
    (e.g. an avahi-daemon restarted from a helper thread) is killed then.
    """
    _libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _run(*argv: str, check: bool = True, timeout: float = 30, **kw: Any) -> str:
    """Run a command, return its stdout; raise with stderr on failure."""
    result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, **kw)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({result.returncode}): {result.stderr.strip()}")
    return result.stdout


def _namespaces() -> list[str]:
    return [line.split()[0] for line in _run("ip", "netns", "list").splitlines() if line.strip()]


def _pid_alive(pid: int) -> bool:
    """True if ``pid`` runs; a zombie (an init that does not reap leaves them) counts as dead."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _kill_namespace(ns: str) -> None:
    """SIGKILL every process in namespace ``ns``, then delete it."""
    for _ in range(20):
        pids = [int(p) for p in _run("ip", "netns", "pids", ns, check=False).split()]
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.05)
    _run("ip", "netns", "del", ns, check=False)


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
            _kill_namespace(ns)
            removed.append(ns)
    for path in glob.glob(os.path.join(tempfile.gettempdir(), f"{prefix}*")):
        match = _NS_RE.match(os.path.basename(path))
        if match and not _pid_alive(int(match.group(1))):
            shutil.rmtree(path, ignore_errors=True)
    return removed


# ---------------------------------------------------------------------------------------------
# Teardown on every exit path: one module-level registry, atexit and signal handlers.

_live: set[TestLAN] = set()
_previous_handlers: dict[int, Any] = {}


def _close_all() -> None:
    for lan in list(_live):
        lan.close()


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


# ---------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BrowseRow:
    """One line of ``avahi-browse -p`` output.

    ``event`` is ``"+"`` (found), ``"="`` (resolved) or ``"-"`` (removed). ``host``, ``address``,
    ``port`` and ``txt`` are set on resolved rows only. ``txt`` keeps avahi-browse's order.
    """

    event: str
    interface: str
    protocol: str  # "IPv4" or "IPv6"
    name: str
    type: str
    domain: str
    host: str | None = None
    address: str | None = None
    port: int | None = None
    txt: tuple[str, ...] = ()


def _unescape(text: str) -> str:
    """Undo avahi's label escaping (``\\032`` decimal bytes, ``\\.``, ``\\\\``)."""
    out = bytearray()
    i = 0
    raw = text.encode()
    while i < len(raw):
        if raw[i] == 0x5C and i + 1 < len(raw):
            if raw[i + 1 : i + 4].isdigit() and len(raw[i + 1 : i + 4]) == 3:
                out.append(int(raw[i + 1 : i + 4]))
                i += 4
                continue
            out.append(raw[i + 1])
            i += 2
            continue
        out.append(raw[i])
        i += 1
    return out.decode(errors="replace")


def parse_browse_output(text: str) -> list[BrowseRow]:
    """Parse ``avahi-browse -p`` (parsable) output into rows; unknown lines are skipped."""
    rows = []
    for line in text.splitlines():
        fields = line.split(";")
        if fields[0] in ("+", "-") and len(fields) >= 6:
            rows.append(BrowseRow(fields[0], fields[1], fields[2], *(_unescape(f) for f in fields[3:6])))
        elif fields[0] == "=" and len(fields) >= 10:
            txt_field = ";".join(fields[9:])  # TXT strings may contain ';'
            txt = tuple(_unescape(t) for t in re.findall(r'"((?:[^"\\]|\\.)*)"', txt_field))
            rows.append(
                BrowseRow(
                    "=", fields[1], fields[2], *(_unescape(f) for f in fields[3:6]),
                    host=fields[6], address=fields[7], port=int(fields[8]), txt=txt,
                )
            )
    return rows


class PeerError(RuntimeError):
    """A responder command failed or got no acknowledgement in time."""


class Peer:
    """One peer host: its namespace, addresses, and the zeroconf responder running there.

    Every method returns after the responder acknowledged the command, i.e. after zeroconf has
    finished sending its announcements (register includes ~1 s of probing).
    """

    def __init__(self, lan: TestLAN, index: int, hostname: str, namespace: str) -> None:
        self.lan = lan
        self.index = index
        self.hostname = hostname
        self.namespace = namespace
        self.interface = INTERFACE
        self.ipv4 = f"{IPV4_NET}.{10 + index}"
        self.ipv6 = f"{IPV6_NET}:{10 + index}"
        self.addresses: list[str] = [self.ipv4, self.ipv6]
        self._lock = threading.Lock()
        self._lines: queue.Queue[str | None] = queue.Queue()
        self.proc: subprocess.Popen[str] | None = None

    def _start(self) -> None:
        argv = ["ip", "netns", "exec", self.namespace, PEER_PYTHON, "-u", str(RESPONDER),
                "--hostname", self.hostname, "--address", self.ipv4, "--address", self.ipv6]
        log = open(self.lan.tmpdir / f"responder-{self.hostname}.log", "ab")
        self.proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
            preexec_fn=_child_setup, start_new_session=True,
        )
        log.close()
        threading.Thread(target=self._read, daemon=True, name=f"peer-{self.hostname}").start()
        ready = self._next_line(15)
        if not json.loads(ready).get("ready"):
            raise PeerError(f"responder {self.hostname} did not start: {ready}")

    def _read(self) -> None:
        assert self.proc and self.proc.stdout
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _next_line(self, timeout: float) -> str:
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            raise PeerError(f"responder {self.hostname}: no answer within {timeout} s") from None
        if line is None:
            raise PeerError(f"responder {self.hostname} exited; see {self.lan.tmpdir}/responder-{self.hostname}.log")
        return line

    def command(self, cmd: str, timeout: float = 15, **args: Any) -> dict:
        """Send one JSON command to the responder and wait for its acknowledgement.

        - Returns: the acknowledgement object.
        - Raises: `PeerError` when the responder reports an error or does not answer in time.
        """
        with self._lock:
            if self.proc is None or self.proc.stdin is None:
                raise PeerError(f"responder {self.hostname} is not running")
            self.proc.stdin.write(json.dumps({"cmd": cmd, **args}) + "\n")
            self.proc.stdin.flush()
            answer = json.loads(self._next_line(timeout))
        if not answer.get("ok"):
            raise PeerError(f"{self.hostname} {cmd}: {answer.get('error')}")
        return answer

    def register(self, name: str, type: str, port: int, txt: dict | list | None = None,
                 addresses: list[str] | None = None) -> dict:
        """Publish service ``name`` of ``type`` (``_http._tcp``) on ``<hostname>.local.``.

        - Parameters:
          - txt: a dict (``{"k": "v", "flag": None}``; None gives a key without '=') or a list
            of raw strings, sent in order (``["a=1", "flag"]``).
          - addresses: the A/AAAA addresses; default the peer's own IPv4 and ULA IPv6. Address
            records belong to the host name, so all services of a peer share the union of them.
          Instance names must not contain '.' (python-zeroconf 0.47 cannot publish them).
        """
        return self.command("register", name=name, type=type, port=port, txt=txt, addresses=addresses)

    def register_all(self, services: list[dict]) -> dict:
        """Publish several services at once (each a dict of ``register``'s arguments: name, type, port, txt)."""
        return self.command("register_all", services=services)

    def update(self, name: str, type: str, *, port: int | None = None, txt: dict | list | None = None,
               addresses: list[str] | None = None) -> dict:
        """Change port, TXT and/or addresses of a registered service in place (``update_service``)."""
        changes = {k: v for k, v in (("port", port), ("txt", txt), ("addresses", addresses)) if v is not None}
        return self.command("update", name=name, type=type, **changes)

    def unregister(self, name: str, type: str) -> dict:
        """Withdraw a service (zeroconf sends goodbye packets)."""
        return self.command("unregister", name=name, type=type)

    def unregister_all(self) -> dict:
        """Withdraw every service at once (goodbye packets for all of them), as a device that leaves does."""
        return self.command("unregister_all")

    def add_address(self, address: str) -> None:
        """Add an address to the peer's interface and publish it for the host name."""
        plen = 24 if ":" not in address else 64
        _run("ip", "-n", self.namespace, "addr", "add", f"{address}/{plen}", "dev", self.interface,
             *(["nodad"] if ":" in address else []))
        self.addresses.append(address)
        self.command("set_addresses", addresses=self.addresses)

    def remove_address(self, address: str) -> None:
        """Withdraw an address of the host name (goodbye packet) and remove it from the interface."""
        self.addresses.remove(address)
        self.command("set_addresses", addresses=self.addresses)
        plen = 24 if ":" not in address else 64
        _run("ip", "-n", self.namespace, "addr", "del", f"{address}/{plen}", "dev", self.interface)

    def stop(self, graceful: bool = True) -> None:
        """Stop the responder: ``graceful`` sends goodbyes for all services, else SIGKILL (silent)."""
        if self.proc is None:
            return
        if graceful and self.proc.poll() is None:
            try:
                self.command("quit", timeout=5)
            except PeerError:
                pass
        _stop_process(self.proc, signal.SIGTERM if graceful else signal.SIGKILL)
        self.proc = None


class Host:
    """A host that speaks no mDNS and sends nothing on its own: a namespace on the switch whose kernel answers ARP
    and NDP (and drops or answers what else arrives), as a printer with mDNS off or an IoT plug does.

    Its only traffic is the kernel's answers: ARP replies, neighbour advertisements, echo replies, ICMP errors (no
    router solicitations, no DAD; the kernel still sends MLD reports when IPv6 comes up).
    """

    def __init__(self, lan: TestLAN, name: str, namespace: str, mac: str, ipv4: str | None, ipv6: str | None) -> None:
        self.lan = lan
        self.name = name
        self.namespace = namespace
        self.interface = INTERFACE
        self.mac = mac
        self.ipv4 = ipv4
        self.ipv6 = ipv6

    def silence(self) -> None:
        """Stop answering anything: the host's link goes down (its namespace and addresses stay). The scanner's
        entry for it fails at the kernel's next probe (~3 s after a forced one)."""
        _run("ip", "-n", self.namespace, "link", "set", self.interface, "down")

    def unsilence(self) -> None:
        """Answer again: the link comes back up."""
        _run("ip", "-n", self.namespace, "link", "set", self.interface, "up")

    def set_probe_loss(self, percent: float) -> None:
        """Drop this share of the host's ARP replies and neighbour advertisements at random (nftables `numgen` in
        the host's namespace); 0 removes the rules."""
        _run("ip", "netns", "exec", self.namespace, "nft", "delete table arp loss", check=False)
        _run("ip", "netns", "exec", self.namespace, "nft", "delete table ip6 loss", check=False)
        if percent <= 0:
            return
        threshold = max(1, round(percent * 100))  # numgen over 10,000 for fractions of a percent
        chance = f"numgen random mod 10000 < {threshold} " if threshold < 10000 else ""
        rules = (f"add table arp loss; add chain arp loss out {{ type filter hook output priority 0; }}; "
                 f"add rule arp loss out counter; add rule arp loss out {chance}counter drop; "
                 f"add table ip6 loss; add chain ip6 loss out {{ type filter hook output priority 0; }}; "
                 f"add rule ip6 loss out icmpv6 type nd-neighbor-advert counter; "
                 f"add rule ip6 loss out icmpv6 type nd-neighbor-advert {chance}counter drop")
        _run("ip", "netns", "exec", self.namespace, "nft", rules)

    def probe_loss_counts(self) -> tuple[int, int]:
        """(answers sent, answers dropped) since `set_probe_loss`: ARP replies and neighbour advertisements."""
        ruleset = _run("ip", "netns", "exec", self.namespace, "nft", "list ruleset")
        counts = [int(n) for n in re.findall(r"counter packets (\d+)", ruleset)]
        # Per table: the counting rule, then the dropping one.
        return sum(counts[0::2]), sum(counts[1::2])

    def claim(self, address: str) -> None:
        """Take `address` too (another host's, say: an address conflict) and make it known: the host forgets its
        neighbours and sends a datagram from the address to the scanner, so the ARP request that precedes it tells
        the scanner's kernel the address is at this host's MAC (the kernel overrides its entry: a request from an
        address is news of it). Call it again to claim it again (the rightful owner may have answered meanwhile)."""
        _run("ip", "-n", self.namespace, "addr", "replace", f"{address}/{self.lan.prefix_length}", "dev",
             self.interface)
        # Forget the scanner's MAC address (learnt when the scanner asked for ours), so that the kernel asks for it
        # again, from the claimed address.
        _run("ip", "-n", self.namespace, "neigh", "flush", "dev", self.interface)
        script = ("import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], 0)); "
                  "s.sendto(b'x', (sys.argv[2], 9))")
        _run("ip", "netns", "exec", self.namespace, PEER_PYTHON, "-c", script, address, self.lan.scanner_ipv4)


def _stop_process(proc: subprocess.Popen, sig: int = signal.SIGTERM, timeout: float = 5) -> None:
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


class TestLAN:
    """A throw-away LAN of network namespaces; see the module docstring for the topology.

    Use as a context manager (or call `start()` / `close()`). `close()` is idempotent and is also
    run at interpreter exit and on SIGTERM/SIGINT.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(self) -> None:
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
        self.prefix_length = 24
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
        _live.add(self)
        _install_handlers()
        try:
            self.tmpdir = Path(tempfile.mkdtemp(prefix=f"{self.base}-"))
            self.tmpdir.chmod(0o755)  # an unprivileged client must reach the bus socket
            self._add_namespace(self.switch_ns, switch=True)
            self._make_switch()
            self._add_namespace(self.scanner_ns)
            self._connect(self.scanner_ns, "sc", self.scanner_ipv4, self.scanner_ipv6)
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
                    _stop_process(peer.proc, signal.SIGKILL)
            for proc in self._procs:
                _stop_process(proc, signal.SIGTERM, timeout=3)
            if self._avahi:
                _stop_process(self._avahi, signal.SIGTERM, timeout=3)
            if self._dbus:
                _stop_process(self._dbus, signal.SIGTERM, timeout=3)
            for ns in reversed(self._namespaces):
                _kill_namespace(ns)
            if self.tmpdir != Path() and self.tmpdir.exists():
                shutil.rmtree(self.tmpdir, ignore_errors=True)
        finally:
            _live.discard(self)
            if main:
                signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    # -- topology -------------------------------------------------------------------------------

    def _add_namespace(self, ns: str, switch: bool = False) -> None:
        _run("ip", "netns", "add", ns)
        self._namespaces.append(ns)
        _run("ip", "-n", ns, "link", "set", "lo", "up")
        # No DAD, so link-local addresses are usable at once; no router solicitations.
        settings = ["net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0",
                    "net.ipv6.conf.default.router_solicitations=0"]
        if switch:  # the switch has no addresses at all
            settings += ["net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1"]
        _run("ip", "netns", "exec", ns, "sysctl", "-qw", *settings)

    def _make_switch(self) -> None:
        """A bridge without multicast snooping; if bridges are unavailable, a dummy link whose
        macvlan children in bridge mode play the switch."""
        try:
            _run("ip", "-n", self.switch_ns, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        except RuntimeError:
            self.uses_bridge = False
            _run("ip", "-n", self.switch_ns, "link", "add", "br0", "type", "dummy")
        _run("ip", "-n", self.switch_ns, "link", "set", "br0", "up")

    def _connect(self, ns: str, port: str, ipv4: str | None, ipv6: str | None, mac: str | None = None) -> None:
        """Join namespace ``ns`` to the switch as interface lan0 with the given addresses (and MAC address)."""
        sw = ("ip", "-n", self.switch_ns, "link")
        if self.uses_bridge:
            _run(*sw, "add", port, "type", "veth", "peer", "name", INTERFACE, "netns", ns)
            _run(*sw, "set", port, "master", "br0", "up")
        else:
            _run(*sw, "add", "link", "br0", "name", port, "type", "macvlan", "mode", "bridge")
            _run(*sw, "set", port, "netns", ns)
            _run("ip", "-n", ns, "link", "set", port, "name", INTERFACE)
        if mac:
            _run("ip", "-n", ns, "link", "set", INTERFACE, "address", mac)
        if ipv4:
            _run("ip", "-n", ns, "addr", "add", f"{ipv4}/24", "dev", INTERFACE)
        if ipv6:
            _run("ip", "-n", ns, "addr", "add", f"{ipv6}/64", "dev", INTERFACE, "nodad")
        _run("ip", "-n", ns, "link", "set", INTERFACE, "up")

    # -- D-Bus and avahi-daemon -----------------------------------------------------------------

    def _start_bus(self) -> None:
        socket_path = self.tmpdir / "system_bus_socket"
        config = self.tmpdir / "dbus-system.conf"
        config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={socket_path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
  </policy>
  <includedir>/usr/share/dbus-1/system.d</includedir>
</busconfig>
""")
        self.bus_address = f"unix:path={socket_path}"
        self._dbus = self._popen_scanner_raw(
            ["dbus-daemon", f"--config-file={config}", "--nofork", "--nopidfile", "--print-address"],
            stdout=subprocess.PIPE, stderr=open(self.tmpdir / "dbus.log", "ab"),
        )
        assert self._dbus.stdout
        if not self._dbus.stdout.readline():
            raise RuntimeError(f"dbus-daemon did not start; see {self.tmpdir}/dbus.log")

    def start_avahi(self, wait: bool = True) -> None:
        """Start avahi-daemon in the scanner namespace (own mount namespace, private /run).

        Its log goes to ``<tmpdir>/avahi.log``. With ``wait``, returns once it is running.
        """
        if self._avahi and self._avahi.poll() is None:
            raise RuntimeError("avahi-daemon is already running")
        conf = self.tmpdir / "avahi-daemon.conf"
        extra = "".join(f"{key}={value}\n" for key, value in self.avahi_server_options.items())
        conf.write_text(f"""[server]
host-name=scanner
domain-name=local
use-ipv4=yes
use-ipv6=yes
allow-interfaces={INTERFACE}
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
{extra}[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
""")
        empty = self.tmpdir / "empty-services"
        empty.mkdir(exist_ok=True)
        # /run/avahi-daemon does not exist on a host without the daemon running, so the private
        # mount namespace gets a whole tmpfs /run (the pid file and socket live there).
        script = (f"mount -t tmpfs tmpfs /run && mkdir /run/avahi-daemon && "
                  f"mount --bind {empty} /etc/avahi/services && "
                  f"exec avahi-daemon -f {conf} --no-drop-root --no-chroot --no-rlimits")
        log = open(self.tmpdir / "avahi.log", "ab")
        self._avahi = self._popen_scanner_raw(["unshare", "-m", "sh", "-c", script], stderr=log, stdout=log)
        log.close()
        if wait:
            self.wait_avahi_ready()

    def stop_avahi(self, sig: int = signal.SIGTERM) -> None:
        """Stop avahi-daemon with ``sig`` (SIGKILL simulates a crash) and reap it."""
        if self._avahi:
            _stop_process(self._avahi, sig)
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
            _stop_process(self._dbus, signal.SIGTERM, timeout=3)
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
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not self.avahi_running:
                raise RuntimeError(f"avahi-daemon exited; see {self.tmpdir}/avahi.log")
            result = self.run_in_scanner(
                ["dbus-send", "--system", "--print-reply", "--dest=org.freedesktop.Avahi", "/",
                 "org.freedesktop.Avahi.Server.GetState"], check=False)
            if result.returncode == 0 and "int32 2" in result.stdout:
                return
            time.sleep(0.05)
        raise TimeoutError(f"avahi-daemon not running after {timeout} s; see {self.tmpdir}/avahi.log")

    # -- running things in the scanner namespace ------------------------------------------------

    def scanner_env(self) -> dict[str, str]:
        """The environment for programs in the scanner namespace: ours plus the private bus."""
        return {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": self.bus_address}

    def _popen_scanner_raw(self, argv: list[str], **kw: Any) -> subprocess.Popen:
        kw.setdefault("env", self.scanner_env())
        return subprocess.Popen(["ip", "netns", "exec", self.scanner_ns, *argv],
                                preexec_fn=_child_setup, start_new_session=True, **kw)

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
        actual = json.loads(_run("ip", "-j", "-n", namespace, "link", "show", INTERFACE))[0]["address"]
        host = Host(self, name, namespace, actual, v4, v6)
        self.hosts.append(host)
        return host

    def scanner_neighbours(self) -> list[dict]:
        """The scanner's neighbour table (``ip -j neigh show``): dicts with dst, dev, lladdr, state (a list)."""
        return json.loads(_run("ip", "-j", "-n", self.scanner_ns, "neigh", "show") or "[]")

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


def real_oui_mac(index: int, oui: str = "00:00:0c") -> str:
    """A MAC address in a block the IEEE assigned (default Cisco Systems' 00:00:0c), numbered by ``index``."""
    return f"{oui}:{(index >> 16) & 0xff:02x}:{(index >> 8) & 0xff:02x}:{index & 0xff:02x}"


def fill_file_system(path: Path) -> None:
    """Write zeros to the file ``path`` until its file system is full (unbuffered: the last partial write fails
    here, not at close). Delete the file to make room again."""
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(b"\0" * 65536)
        except OSError:
            pass


def random_mac(index: int) -> str:
    """A locally administered (randomized-looking) MAC address, numbered by ``index``: no vendor."""
    return f"02:50:53:{(index >> 16) & 0xff:02x}:{(index >> 8) & 0xff:02x}:{index & 0xff:02x}"
