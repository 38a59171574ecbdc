"""Wi-Fi-like hosts on the test LAN: a `Host` whose ARP and NDP answers come late and are sometimes lost, as a phone in
Wi-Fi power save answers, and which may doze (answer nothing for stretches).

The kernel here has no netem, so the answers come from user space: the host's own kernel is muted on its link —
``net.ipv4.conf.lan0.arp_ignore=8`` (it answers no ARP request for any local address, and learns nothing from them)
and an nftables rule in its namespace that drops its outgoing neighbour advertisements — and ``wifiresponder.py
serve`` in its namespace answers instead, from an AF_PACKET socket (whose frames bypass those hooks), each answer
after a uniform delay (default 0.2–2.5 s) or, with a chance of ``loss`` (default 25 %), not at all; everything drawn
by one generator seeded per host. The host's kernel still does everything else: it asks for the scanner's address
itself when it answers traffic (echo replies, ICMP errors), as a phone that is awake does.

`probe_answers` measures what a host answers from the scanner's namespace (the mechanism's check: no answer faster
than the least delay, none twice, the share lost).

Teardown: a `WifiHost`'s responder runs in the host's namespace, which `TestLAN.close` empties (SIGKILL to every
process in it) and deletes on every exit path; it also dies with the harness (PR_SET_PDEATHSIG). `WifiHost.stop` ends
it gracefully, with its counts.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from .netns import INTERFACE, run, start_reporter, stop_reporter
from .peers import PEER_PYTHON, Host

if TYPE_CHECKING:
    from .lan import TestLAN

RESPONDER = Path(__file__).with_name("wifiresponder.py")
DELAY = (0.2, 2.5)  # seconds, uniform
LOSS = 0.25

__all__ = ["DELAY", "LOSS", "WifiHost", "add_wifi_host", "probe_answers"]


class WifiHost:
    """A host whose ARP and NDP answers come from `wifiresponder.py`: late, sometimes lost, none while dozing.

    - Parameters:
      - host: the `Host` (its namespace, MAC and addresses) whose kernel is muted.
      - seed: the responder's generator's seed (loss, delays, the doze's phase).
      - loss: the chance that a request goes unanswered.
      - delay: (least, most) seconds an answer waits.
      - doze: (awake, asleep) seconds: in cycles, answer for ``awake`` seconds, then nothing for ``asleep``.
    """

    def __init__(self, host: Host, *, seed: int, loss: float = LOSS, delay: tuple[float, float] = DELAY,
                 doze: tuple[float, float] | None = None) -> None:
        self.host = host
        self.seed = seed
        self.loss = loss
        self.delay = delay
        self.doze = doze
        self.proc: subprocess.Popen[str] | None = None
        self.counts: dict | None = None  # the responder's counts, once stopped

    @property
    def name(self) -> str:
        return self.host.name

    @property
    def mac(self) -> str:
        return self.host.mac

    @property
    def ipv4(self) -> str | None:
        return self.host.ipv4

    @property
    def ipv6_addresses(self) -> list[str]:
        """Every IPv6 address of the host's link (its global one and its link-local one)."""
        links = json.loads(run("ip", "-j", "-n", self.host.namespace, "-6", "addr", "show", "dev", INTERFACE))
        return [info["local"] for link in links for info in link.get("addr_info", [])]

    def start(self, timeout: float = 10) -> WifiHost:
        """Mutes the host's kernel and starts the responder; returns once its socket is open."""
        namespace = self.host.namespace
        run("ip", "netns", "exec", namespace, "sysctl", "-qw", f"net.ipv4.conf.{INTERFACE}.arp_ignore=8")
        run("ip", "netns", "exec", namespace, "nft",
            "add table ip6 wifi; add chain ip6 wifi out { type filter hook output priority 0; }; "
            "add rule ip6 wifi out icmpv6 type nd-neighbor-advert drop")
        argv = ["ip", "netns", "exec", namespace, PEER_PYTHON, "-u", str(RESPONDER), "serve", "--interface",
                INTERFACE, "--mac", self.mac, "--loss", str(self.loss), "--delay", *map(str, self.delay),
                "--seed", str(self.seed)]
        if self.ipv4:
            argv += ["--ipv4", self.ipv4]
        for address in self.ipv6_addresses:
            argv += ["--ipv6", address]
        if self.doze:
            argv += ["--doze", ",".join(map(str, self.doze))]
        log = self.host.lan.tmpdir / f"wifi-{self.name}.log"
        self.proc = start_reporter(argv, log, f"the responder of {self.name}", timeout)
        return self

    def stop(self) -> dict:
        """Stops the responder (SIGTERM); returns its counts: requests, answered, lost, asleep (unanswered while
        dozing), undelivered (the link was down), pending (not yet due), delay_min, delay_max."""
        if self.proc is not None:
            self.counts, self.proc = stop_reporter(self.proc), None
        return self.counts or {}

    def leave(self) -> None:
        """The host really leaves: its link goes down (nothing it sends arrives; the responder keeps running)."""
        self.host.silence()

    def come_back(self) -> None:
        """The link comes back up; the responder answers again as before."""
        self.host.unsilence()


def add_wifi_host(lan: TestLAN, name: str, *, seed: int, mac: str | None = None, loss: float = LOSS,
                  delay: tuple[float, float] = DELAY, doze: tuple[float, float] | None = None,
                  ipv4: str | bool = True, ipv6: str | bool = True) -> WifiHost:
    """A new host on ``lan`` (`TestLAN.add_host`'s ``mac``, ``ipv4``, ``ipv6``) made Wi-Fi-like and started (see
    `WifiHost` for the rest)."""
    host = lan.add_host(name, mac=mac, ipv4=ipv4, ipv6=ipv6)
    return WifiHost(host, seed=seed, loss=loss, delay=delay, doze=doze).start()


def probe_answers(lan: TestLAN, address: str, *, count: int = 40, spacing: float = 0.1, wait: float = 3.0) -> dict:
    """Asks for ``address`` ``count`` times from the scanner's namespace, by raw frames (ARP requests, or neighbour
    solicitations for an IPv6 address), ``spacing`` seconds apart, and waits ``wait`` seconds more.

    - Returns: ``delays``: per request, the seconds its answer took, or None; ``duplicates``: answers to requests
      already answered.
    """
    mac = json.loads(run("ip", "-j", "-n", lan.scanner_ns, "link", "show", INTERFACE))[0]["address"]
    result = lan.run_in_scanner([PEER_PYTHON, str(RESPONDER), "probe", "--interface", INTERFACE, "--mac", mac,
                                 "--target", address, "--count", str(count), "--spacing", str(spacing), "--wait",
                                 str(wait)], timeout=count * spacing + wait + 30)
    return json.loads(result.stdout.strip().splitlines()[-1])
