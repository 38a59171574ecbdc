"""A block of silent hosts on the test LAN: up to a /22's worth of addresses that answer ARP and nothing else, each with
a MAC address of its own, from one namespace.

A namespace per host (`TestLAN.add_host`) costs ~10 `ip` commands and a kernel network namespace each, and each host's
kernel learns the scanner's address when it answers: an entry per host in the kernel's neighbour table, which is
global across namespaces (gc_thresh3, 1,024 by default). A block instead is one namespace joined to the switch, with no
address on its link and IPv6 off (its kernel says and learns nothing), and `blockresponder.py` answers the ARP
requests for the block's addresses from an AF_PACKET socket, from the address's MAC address. So 1,000 silent hosts
cost the kernel's table only the scanner's own 1,000 entries, and start in well under a second.

The hosts send nothing on their own and have no IPv6 address: they are found only by a sweep of the scanner's subnet
(peerscand's probing, `arp-scan -l`). Use it with ``TestLAN(prefix_length=22)`` for more than a /24 holds.

Teardown: the responder runs in the block's namespace, which `TestLAN.close` empties (SIGKILL to every process in it)
and deletes on every exit path; it also dies with the harness (PR_SET_PDEATHSIG). `SilentBlock.stop` ends it
gracefully, with its counts.
"""

from __future__ import annotations

import ipaddress
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from .netns import INTERFACE, connect, run, start_reporter, stop_reporter
from .peers import PEER_PYTHON, real_oui_mac

if TYPE_CHECKING:
    from .lan import TestLAN

RESPONDER = Path(__file__).with_name("blockresponder.py")
# Addresses below this offset in the scanner's subnet are left to the scanner (.1), peers and hosts (from .10).
FIRST_OFFSET = 256
# The block's MAC addresses are numbered from here (00:00:0c:01:00:00 on), apart from `real_oui_mac(n)` of other hosts.
MAC_START = 0x10000

__all__ = ["SilentBlock", "add_silent_block"]


class SilentBlock:
    """``count`` silent hosts at consecutive IPv4 addresses from ``first``, MAC addresses ``real_oui_mac(MAC_START +
    i, oui)``; see the module docstring."""

    def __init__(self, lan: TestLAN, count: int, first: str, oui: str) -> None:
        self.lan = lan
        self.count = count
        self.first = ipaddress.IPv4Address(first)
        self.oui = oui
        self.namespace = f"{lan.base}-sb"
        self.proc: subprocess.Popen[str] | None = None
        self.counts: dict | None = None  # the responder's counts, once stopped

    @property
    def addresses(self) -> list[str]:
        return [str(self.first + i) for i in range(self.count)]

    @property
    def macs(self) -> list[str]:
        return [real_oui_mac(MAC_START + i, self.oui) for i in range(self.count)]

    def start(self, timeout: float = 10) -> SilentBlock:
        """Makes the namespace, joins it to the switch and starts the responder; returns once its socket is open."""
        self.lan._add_namespace(self.namespace)  # deleted by TestLAN.close with the others
        run("ip", "netns", "exec", self.namespace, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
            "net.ipv6.conf.default.disable_ipv6=1")
        connect(self.lan.switch_ns, self.lan.uses_bridge, self.namespace, "sb", None, None)
        argv = ["ip", "netns", "exec", self.namespace, PEER_PYTHON, "-u", str(RESPONDER), "serve", "--interface",
                INTERFACE, "--first", str(self.first), "--count", str(self.count), "--oui", self.oui,
                "--start-index", str(MAC_START)]
        self.proc = start_reporter(argv, self.lan.tmpdir / "silent-block.log", "the silent block's responder", timeout)
        return self

    def stop(self) -> dict:
        """Stops the responder (SIGTERM); returns its counts: ``answered`` (ARP requests for the block's addresses)
        and ``other`` (requests for other addresses)."""
        if self.proc is not None:
            self.counts, self.proc = stop_reporter(self.proc), None
        return self.counts or {}


def add_silent_block(lan: TestLAN, count: int, *, oui: str = "00:00:0c") -> SilentBlock:
    """``count`` silent hosts on ``lan``'s IPv4 subnet (the scanner's address and prefix length), from offset
    `first_offset` (10.231.1.0 on a /22 for up to 766; 1,000 start at 10.231.0.23), started.

    - Raises: ValueError if the subnet has no room for them (`first_offset`: a /22 takes up to 1,006).
    """
    network = ipaddress.IPv4Interface(f"{lan.scanner_ipv4}/{lan.prefix_length}").network
    offset = first_offset(count, network.num_addresses)
    return SilentBlock(lan, count, str(network.network_address + offset), oui).start()


def first_offset(count: int, subnet_size: int) -> int:
    """Where a block of ``count`` starts in a subnet of ``subnet_size`` addresses: at `FIRST_OFFSET`, or as far up as
    it fits, ending before the broadcast address, but not below 16 (the scanner's .1 and six peers or hosts from
    .10 stay free).

    - Raises: ValueError if it does not fit.
    """
    offset = min(FIRST_OFFSET, subnet_size - 1 - count)
    if offset < 16:
        raise ValueError(f"{count} silent hosts do not fit in a subnet of {subnet_size} addresses")
    return offset
