"""``python3 -m testlan up|demo|cleanup`` — bring up a test LAN, run the demo on it, or remove leftovers.

Run as root with /usr/bin/python3 (it has python-zeroconf).
"""

from __future__ import annotations

import argparse
import signal
from pathlib import Path

from .demo import default_binary, demo
from .lan import TestLAN, cleanup_stale

SAMPLE_SERVICES = [
    ("Web server", "_http._tcp", 80, {"path": "/", "version": "1"}),
    ("SSH", "_ssh._tcp", 22, None),
    ("Printer", "_ipp._tcp", 631, {"rp": "ipp/print", "color": "T", "duplex": None}),
]


def up(peer_count: int) -> None:
    """Bring up the LAN with sample peers and avahi; stay until Ctrl-C or SIGTERM."""
    with TestLAN() as lan:
        lan.start_avahi()
        for i in range(peer_count):
            peer = lan.add_peer(f"peer{i + 1}")
            for name, type_, port, txt in SAMPLE_SERVICES[: 2 + i % 2]:
                peer.register(f"{name} on {peer.hostname}", type_, port, txt)
        print(f"test LAN up: scanner namespace {lan.scanner_ns}, interface {lan.scanner_interface}")
        print(f"  run a command there with the private bus:\n"
              f"    sudo ip netns exec {lan.scanner_ns} env DBUS_SYSTEM_BUS_ADDRESS={lan.bus_address} "
              f"avahi-browse -a -r -p -t")
        print(f"  logs: {lan.tmpdir}")
        print("Ctrl-C or SIGTERM tears it down.", flush=True)
        signal.pause()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python3 -m testlan", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    up_parser = commands.add_parser("up", help="bring up a LAN with sample peers and avahi-daemon")
    up_parser.add_argument("--peers", type=int, default=2)
    demo_parser = commands.add_parser("demo", help="peers that come, change and go, watched by peerscand")
    demo_parser.add_argument("--duration", type=float, default=None, help="seconds (default: until Ctrl-C)")
    demo_parser.add_argument("--peerscand", default=default_binary("peerscand"), help="the peerscand binary")
    demo_parser.add_argument("--peerscanctl", default=default_binary("peerscanctl"), help="the peerscanctl binary")
    demo_parser.add_argument("--peerscan-web", default=default_binary("peerscan-web"),
                             help="the peerscan-web binary (run beside peerscand; '' for none)")
    demo_parser.add_argument("--web-port", type=int, default=8737,
                             help="the host's loopback port forwarded to the page (0: no forward)")
    demo_parser.add_argument("--log", type=Path, default=Path(".build/demo/peerscand.log"), help="peerscand's log")
    commands.add_parser("cleanup", help="remove namespaces and temp dirs of dead harness processes")
    args = parser.parse_args()
    if args.command == "up":
        try:
            up(args.peers)
        except KeyboardInterrupt:
            pass
    elif args.command == "demo":
        try:
            demo(args.duration, args.peerscand, args.peerscanctl, args.log, args.peerscan_web or None, args.web_port)
        except KeyboardInterrupt:
            pass
    else:
        for ns in cleanup_stale():
            print(f"removed {ns}")


if __name__ == "__main__":
    main()
