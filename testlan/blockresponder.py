"""ARP answers from user space for a block of silent test-LAN hosts: many addresses, each with a MAC address of its own,
from one process in one namespace.

Run by path inside the block's namespace by `testlan.silent` (no package imports, as responder.py); not meant to be
run by hand.

``serve`` — an AF_PACKET socket on ``--interface``, filtered in the kernel (classic BPF, `wifiresponder.program`) to
ARP requests, answers each request for one of the block's addresses (``--first`` and the ``--count - 1`` addresses
after it) at once with a unicast ARP reply from that address's MAC address (``--oui`` and the address's index in the
block, as `testlan.peers.real_oui_mac` numbers them), as the host's kernel would. The block's own kernel has no address
on the link (and no IPv6), so it answers nothing and, unlike a namespace per host, learns no neighbour entry from the
requests: the kernel's neighbour table, which is global across namespaces (gc_thresh3), holds only the scanner's
entries. Prints ``{"ready": true}`` once the socket is open; on SIGTERM or SIGINT, one JSON line of counts
(requests answered, requests for other addresses), and exits 0.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import signal
import struct
import sys

from wifiresponder import ETH_P_ARP, ND_SOLICIT, PACKET_OUTGOING, Stop, _stop, arp_frame, open_socket, program


def block_mac(oui: str, index: int) -> bytes:
    """The MAC address of the block's `index`-th host: ``oui`` followed by the index (as `real_oui_mac`)."""
    return bytes.fromhex(oui.replace(":", "")) + index.to_bytes(3, "big")


def serve(args: argparse.Namespace) -> None:
    first = int(ipaddress.IPv4Address(args.first))
    counts = {"answered": 0, "other": 0}
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    sock = open_socket(args.interface, program(1, ND_SOLICIT))  # ARP requests (and no NDP: the block has no IPv6)
    print(json.dumps({"ready": True}), flush=True)
    try:
        while True:
            frame, address = sock.recvfrom(2048)
            if address[2] == PACKET_OUTGOING or len(frame) < 42 or frame[12:14] != struct.pack("!H", ETH_P_ARP):
                continue
            index = int.from_bytes(frame[38:42], "big") - first
            if not 0 <= index < args.count:
                counts["other"] += 1
                continue
            mac = block_mac(args.oui, args.start_index + index)
            sock.send(arp_frame(2, mac, frame[38:42], frame[22:28], frame[28:32], frame[22:28]))
            counts["answered"] += 1
    except Stop:
        pass
    finally:
        sock.close()
    print(json.dumps(counts), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--interface", required=True)
    serve_parser.add_argument("--first", required=True, help="the block's first IPv4 address")
    serve_parser.add_argument("--count", type=int, required=True)
    serve_parser.add_argument("--oui", required=True, help="the MAC addresses' first three octets, e.g. 00:00:0c")
    serve_parser.add_argument("--start-index", type=int, default=0, help="the first host's MAC number")
    args = parser.parse_args()
    try:
        serve(args)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
