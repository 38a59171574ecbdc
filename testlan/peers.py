"""The test LAN's hosts: a `Peer` runs a python-zeroconf responder (responder.py) driven over its stdin, a `Host`
speaks no mDNS and only answers what its kernel answers; and MAC addresses to give them."""

from __future__ import annotations

import json
import queue
import re
import signal
import subprocess
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .netns import INTERFACE, IPV4_NET, IPV6_NET, child_setup, run, stop_process

if TYPE_CHECKING:
    from .lan import TestLAN

RESPONDER = Path(__file__).with_name("responder.py")
# The peers' interpreter: Debian's, which has python-zeroconf (python3-zeroconf), whatever runs the harness.
PEER_PYTHON = "/usr/bin/python3"


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
            preexec_fn=child_setup, start_new_session=True,
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
        run("ip", "-n", self.namespace, "addr", "add", f"{address}/{plen}", "dev", self.interface,
             *(["nodad"] if ":" in address else []))
        self.addresses.append(address)
        self.command("set_addresses", addresses=self.addresses)

    def remove_address(self, address: str) -> None:
        """Withdraw an address of the host name (goodbye packet) and remove it from the interface."""
        self.addresses.remove(address)
        self.command("set_addresses", addresses=self.addresses)
        plen = 24 if ":" not in address else 64
        run("ip", "-n", self.namespace, "addr", "del", f"{address}/{plen}", "dev", self.interface)

    @property
    def mac(self) -> str:
        """The MAC address of the peer's interface."""
        return json.loads(run("ip", "-j", "-n", self.namespace, "link", "show", self.interface))[0]["address"]

    def link_down(self) -> None:
        """The peer's link goes down (it walked out of range): nothing it sends or answers arrives any more."""
        run("ip", "-n", self.namespace, "link", "set", self.interface, "down")

    def link_up(self) -> None:
        """The link comes back up."""
        run("ip", "-n", self.namespace, "link", "set", self.interface, "up")

    def answer_neighbours(self, answers: bool) -> None:
        """Whether the peer's kernel answers ARP requests and neighbour solicitations (nftables in its namespace drops
        its ARP replies and neighbour advertisements while not): the scanner's entries for it fail, while it still
        resolves the scanner itself (its own requests go out) and so can answer it by unicast."""
        run("ip", "netns", "exec", self.namespace, "nft", "delete table arp mute", check=False)
        run("ip", "netns", "exec", self.namespace, "nft", "delete table ip6 mute", check=False)
        if answers:
            return
        run("ip", "netns", "exec", self.namespace, "nft",
            "add table arp mute; add chain arp mute out { type filter hook output priority 0; }; "
            "add rule arp mute out arp operation reply drop; "
            "add table ip6 mute; add chain ip6 mute out { type filter hook output priority 0; }; "
            "add rule ip6 mute out icmpv6 type nd-neighbor-advert drop")

    def stop(self, graceful: bool = True) -> None:
        """Stop the responder: ``graceful`` sends goodbyes for all services, else SIGKILL (silent)."""
        if self.proc is None:
            return
        if graceful and self.proc.poll() is None:
            try:
                self.command("quit", timeout=5)
            except PeerError:
                pass
        stop_process(self.proc, signal.SIGTERM if graceful else signal.SIGKILL)
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
        run("ip", "-n", self.namespace, "link", "set", self.interface, "down")

    def unsilence(self) -> None:
        """Answer again: the link comes back up."""
        run("ip", "-n", self.namespace, "link", "set", self.interface, "up")

    def set_probe_loss(self, percent: float) -> None:
        """Drop this share of the host's ARP replies and neighbour advertisements at random (nftables `numgen` in
        the host's namespace); 0 removes the rules."""
        run("ip", "netns", "exec", self.namespace, "nft", "delete table arp loss", check=False)
        run("ip", "netns", "exec", self.namespace, "nft", "delete table ip6 loss", check=False)
        if percent <= 0:
            return
        threshold = max(1, round(percent * 100))  # numgen over 10,000 for fractions of a percent
        chance = f"numgen random mod 10000 < {threshold} " if threshold < 10000 else ""
        rules = (f"add table arp loss; add chain arp loss out {{ type filter hook output priority 0; }}; "
                 f"add rule arp loss out counter; add rule arp loss out {chance}counter drop; "
                 f"add table ip6 loss; add chain ip6 loss out {{ type filter hook output priority 0; }}; "
                 f"add rule ip6 loss out icmpv6 type nd-neighbor-advert counter; "
                 f"add rule ip6 loss out icmpv6 type nd-neighbor-advert {chance}counter drop")
        run("ip", "netns", "exec", self.namespace, "nft", rules)

    def probe_loss_counts(self) -> tuple[int, int]:
        """(answers sent, answers dropped) since `set_probe_loss`: ARP replies and neighbour advertisements."""
        ruleset = run("ip", "netns", "exec", self.namespace, "nft", "list ruleset")
        counts = [int(n) for n in re.findall(r"counter packets (\d+)", ruleset)]
        # Per table: the counting rule, then the dropping one.
        return sum(counts[0::2]), sum(counts[1::2])

    def claim(self, address: str) -> None:
        """Take `address` too (another host's, say: an address conflict) and make it known: the host forgets its
        neighbours and sends a datagram from the address to the scanner, so the ARP request that precedes it tells
        the scanner's kernel the address is at this host's MAC (the kernel overrides its entry: a request from an
        address is news of it). Call it again to claim it again (the rightful owner may have answered meanwhile)."""
        run("ip", "-n", self.namespace, "addr", "replace", f"{address}/{self.lan.prefix_length}", "dev",
             self.interface)
        # Forget the scanner's MAC address (learnt when the scanner asked for ours), so that the kernel asks for it
        # again, from the claimed address.
        run("ip", "-n", self.namespace, "neigh", "flush", "dev", self.interface)
        script = ("import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind((sys.argv[1], 0)); "
                  "s.sendto(b'x', (sys.argv[2], 9))")
        run("ip", "netns", "exec", self.namespace, PEER_PYTHON, "-c", script, address, self.lan.scanner_ipv4)


def real_oui_mac(index: int, oui: str = "00:00:0c") -> str:
    """A MAC address in a block the IEEE assigned (default Cisco Systems' 00:00:0c), numbered by ``index``."""
    return f"{oui}:{(index >> 16) & 0xff:02x}:{(index >> 8) & 0xff:02x}:{index & 0xff:02x}"


def random_mac(index: int) -> str:
    """A locally administered (randomized-looking) MAC address, numbered by ``index``: no vendor."""
    return f"02:50:53:{(index >> 16) & 0xff:02x}:{(index >> 8) & 0xff:02x}:{index & 0xff:02x}"
