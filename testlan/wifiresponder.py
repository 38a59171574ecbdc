"""ARP and NDP answers from user space for one Wi-Fi-like test-LAN host, late and sometimes lost; and the probe that
measures them.

Run by path inside a namespace by `testlan.wifi` (no package imports, as responder.py); not meant to be run by hand.

``serve`` — in the host's namespace, whose kernel answers neither ARP (``arp_ignore=8`` on the link) nor neighbour
solicitations (nftables drops its neighbour advertisements): an AF_PACKET socket on the link, filtered in the kernel
(classic BPF) to ARP requests and ICMPv6 neighbour solicitations, answers the requests for the host's IPv4 address
and the solicitations for its IPv6 addresses as its kernel would (a unicast ARP reply; a solicited, overriding
advertisement with the target's link-layer address), each after a delay drawn uniformly from ``--delay`` and with the
chance ``--loss`` of not at all, as a phone in Wi-Fi power save. With ``--doze AWAKE,ASLEEP`` it also sleeps: in
cycles of AWAKE seconds answering, then ASLEEP seconds answering nothing (the first cycle's phase drawn too). One
generator seeded with ``--seed`` draws everything, in the order the requests arrive. Frames sent by AF_PACKET bypass
the host's own netfilter hooks, so the nftables rule drops the kernel's advertisements, never these. Prints
``{"ready": true}`` once the socket is open; on SIGTERM or SIGINT, one JSON line of counts, and exits 0.

``probe`` — in the scanner's namespace: sends ``--count`` ARP requests (or neighbour solicitations with ``--ipv6``)
for one address, ``--spacing`` seconds apart, each from a sender address of its own so that the answer names the
request it answers, waits ``--wait`` seconds more, and prints one JSON line: the delay of each answer by request
(null: none), and how many answers came for requests already answered (a kernel answering too would show there).
"""

from __future__ import annotations

import argparse
import ctypes
import heapq
import ipaddress
import json
import random
import select
import signal
import socket
import struct
import sys
import time

ETH_P_ALL, ETH_P_ARP, ETH_P_IPV6 = 0x0003, 0x0806, 0x86DD
PACKET_OUTGOING = 4
SO_ATTACH_FILTER = 26
ND_SOLICIT, ND_ADVERT = 135, 136


def program(arp_op: int, icmpv6_type: int) -> list[tuple[int, int, int, int]]:
    """Classic BPF that passes ARP frames of ``arp_op`` and ICMPv6 messages of ``icmpv6_type`` (no extension
    headers), and queues nothing else: ``ldh [12]; jeq ARP ? arp : ipv6`` | ``arp: ldh [20]; jeq op ? accept : drop``
    | ``ipv6: jeq IPv6 ? next : drop; ldb [20]; jeq 58 ? next : drop; ldb [54]; jeq type ? accept : drop``."""
    return [(0x28, 0, 0, 12), (0x15, 0, 2, ETH_P_ARP), (0x28, 0, 0, 20), (0x15, 5, 6, arp_op),
            (0x15, 0, 5, ETH_P_IPV6), (0x30, 0, 0, 20), (0x15, 0, 3, 58), (0x30, 0, 0, 54),
            (0x15, 0, 1, icmpv6_type), (0x06, 0, 0, 0x40000), (0x06, 0, 0, 0)]


class Stop(Exception):
    """SIGTERM or SIGINT: end the loop and report."""


def _stop(signum: int, frame: object) -> None:
    raise Stop


def open_socket(interface: str, bpf: list[tuple[int, int, int, int]]) -> socket.socket:
    """An AF_PACKET socket on ``interface`` that queues only what ``bpf`` (`program`) passes."""
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    code = b"".join(struct.pack("HBBI", *instruction) for instruction in bpf)
    buffer = ctypes.create_string_buffer(code)
    # sock_fprog: the length and the address of the program, which the kernel copies.
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, struct.pack("HL", len(bpf), ctypes.addressof(buffer)))
    sock.bind((interface, 0))
    while select.select([sock], [], [], 0)[0]:  # what queued before the filter was attached
        sock.recv(2048)
    return sock


def mac_bytes(mac: str) -> bytes:
    return bytes.fromhex(mac.replace(":", ""))


def checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def icmpv6(source: bytes, destination: bytes, message: bytes) -> bytes:
    """An IPv6 packet (hop limit 255, as NDP requires) carrying ``message`` with its checksum filled in."""
    pseudo = source + destination + struct.pack("!I3xB", len(message), 58)
    message = message[:2] + struct.pack("!H", checksum(pseudo + message[:2] + b"\0\0" + message[4:])) + message[4:]
    return struct.pack("!IHBB", 6 << 28, len(message), 58, 255) + source + destination + message


def arp_frame(op: int, source_mac: bytes, source_ip: bytes, target_mac: bytes, target_ip: bytes,
              destination: bytes) -> bytes:
    return (destination + source_mac + struct.pack("!H", ETH_P_ARP) + struct.pack("!HHBBH", 1, 0x0800, 6, 4, op)
            + source_mac + source_ip + target_mac + target_ip)


def solicitation(source_mac: bytes, source: bytes, target: bytes, destination: bytes | None = None) -> bytes:
    """A neighbour solicitation for ``target`` (to its solicited-node group unless ``destination``)."""
    group = destination or bytes.fromhex("ff0200000000000000000001ff") + target[13:]
    ethernet = (b"\x33\x33" + group[12:]) if group[0] == 0xFF else b"\xff" * 6
    message = struct.pack("!BBHI", ND_SOLICIT, 0, 0, 0) + target + bytes([1, 1]) + source_mac
    return ethernet + source_mac + struct.pack("!H", ETH_P_IPV6) + icmpv6(source, group, message)


def answer(frame: bytes, mac: bytes, ipv4: bytes | None, ipv6: set[bytes]) -> bytes | None:
    """The host's answer to ``frame`` (an ARP request or a neighbour solicitation), or None if it is not for it."""
    kind = struct.unpack("!H", frame[12:14])[0]
    if kind == ETH_P_ARP and len(frame) >= 42 and frame[20:22] == b"\0\1" and frame[38:42] == ipv4:
        return arp_frame(2, mac, ipv4, frame[22:28], frame[28:32], frame[22:28])
    if kind != ETH_P_IPV6 or len(frame) < 78 or frame[20] != 58 or frame[21] != 255 or frame[54] != ND_SOLICIT:
        return None
    target, source = frame[62:78], frame[22:38]
    if target not in ipv6:
        return None
    requester = frame[6:12]
    options = frame[78:]
    while len(options) >= 8 and options[1]:
        if options[0] == 1:  # the source link-layer address
            requester = options[2:8]
        options = options[options[1] * 8:]
    solicited = source != bytes(16)
    destination = source if solicited else bytes.fromhex("ff020000000000000000000000000001")
    flags = (0x60000000 if solicited else 0x20000000)  # solicited, override
    message = struct.pack("!BBHI", ND_ADVERT, 0, 0, flags) + target + bytes([2, 1]) + mac
    ethernet = requester if solicited else b"\x33\x33\0\0\0\1"
    return ethernet + mac + struct.pack("!H", ETH_P_IPV6) + icmpv6(target, destination, message)


def serve(args: argparse.Namespace) -> None:
    generator = random.Random(args.seed)
    mac = mac_bytes(args.mac)
    ipv4 = socket.inet_aton(args.ipv4) if args.ipv4 else None
    ipv6 = {ipaddress.IPv6Address(address).packed for address in args.ipv6}
    low, high = args.delay
    awake, asleep = args.doze or (0.0, 0.0)
    started = time.monotonic()
    phase = generator.uniform(0, awake + asleep) if asleep else 0.0
    counts = {"requests": 0, "answered": 0, "lost": 0, "asleep": 0, "undelivered": 0, "stale": 0}
    delays: list[float] = []
    pending: list[tuple[float, int, bytes]] = []  # (when, order, frame)
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    sock = open_socket(args.interface, program(1, ND_SOLICIT))
    print(json.dumps({"ready": True}), flush=True)
    try:
        while True:
            now = time.monotonic()
            while pending and pending[0][0] <= now:
                _, _, frame = heapq.heappop(pending)
                try:
                    sock.send(frame)
                    counts["answered"] += 1
                except OSError:  # the link is down (the host left)
                    counts["undelivered"] += 1
            timeout = max(0.0, pending[0][0] - now) if pending else None
            try:
                ready = select.select([sock], [], [], timeout)[0]
                if not ready:
                    continue
                frame, address = sock.recvfrom(2048)
            except OSError:  # ENETDOWN once after the link went down
                counts["stale"] += 1
                continue
            if address[2] == PACKET_OUTGOING or (reply := answer(frame, mac, ipv4, ipv6)) is None:
                continue
            counts["requests"] += 1
            if asleep and (time.monotonic() - started + phase) % (awake + asleep) >= awake:
                counts["asleep"] += 1
            elif generator.random() < args.loss:
                counts["lost"] += 1
            else:
                delay = generator.uniform(low, high)
                delays.append(delay)
                heapq.heappush(pending, (time.monotonic() + delay, counts["requests"], reply))
    except Stop:
        pass
    finally:
        sock.close()
    counts["pending"] = len(pending)
    if delays:
        counts.update(delay_min=round(min(delays), 3), delay_max=round(max(delays), 3))
    print(json.dumps(counts), flush=True)


def probe(args: argparse.Namespace) -> None:
    """See the module docstring: one request per sender address, answers matched by it."""
    sock = open_socket(args.interface, program(2, ND_ADVERT))
    mac = mac_bytes(args.mac)
    target = ipaddress.ip_address(args.target)
    sent: dict[bytes, tuple[int, float]] = {}  # the request's sender address → (index, time)
    delays: list[float | None] = [None] * args.count
    duplicates = 0
    deadline = time.monotonic() + args.count * args.spacing + args.wait
    next_send, index = time.monotonic(), 0
    while time.monotonic() < deadline:
        if index < args.count and time.monotonic() >= next_send:
            if target.version == 4:
                sender = bytes([10, 232, index >> 8, index & 0xFF])  # off the LAN: only the answer goes there
                frame = arp_frame(1, mac, sender, bytes(6), target.packed, b"\xff" * 6)
            else:
                sender = bytes.fromhex("fd707363616e00000000000000ee") + struct.pack("!H", index)
                frame = solicitation(mac, sender, target.packed)
            sent[sender] = (index, time.monotonic())
            sock.send(frame)
            index, next_send = index + 1, next_send + args.spacing
        wait = max(0.0, min(next_send if index < args.count else deadline, deadline) - time.monotonic())
        if not select.select([sock], [], [], wait)[0]:
            continue
        frame = sock.recv(2048)
        if frame[12:14] == struct.pack("!H", ETH_P_ARP) and frame[20:22] == b"\0\2" and frame[28:32] == target.packed:
            key = frame[38:42]
        elif frame[12:14] == struct.pack("!H", ETH_P_IPV6) and len(frame) >= 78 and frame[54] == ND_ADVERT \
                and frame[62:78] == target.packed:
            key = frame[38:54]
        else:
            continue
        if key in sent:
            number, when = sent[key]
            if delays[number] is None:
                delays[number] = round(time.monotonic() - when, 3)
            else:
                duplicates += 1
    print(json.dumps({"delays": delays, "duplicates": duplicates}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    serve_parser = commands.add_parser("serve")
    serve_parser.add_argument("--interface", required=True)
    serve_parser.add_argument("--mac", required=True)
    serve_parser.add_argument("--ipv4")
    serve_parser.add_argument("--ipv6", action="append", default=[])
    serve_parser.add_argument("--loss", type=float, default=0.25)
    serve_parser.add_argument("--delay", type=float, nargs=2, default=(0.2, 2.5))
    serve_parser.add_argument("--doze", type=lambda text: tuple(float(x) for x in text.split(",")))
    serve_parser.add_argument("--seed", type=int, default=0)
    probe_parser = commands.add_parser("probe")
    probe_parser.add_argument("--interface", required=True)
    probe_parser.add_argument("--mac", required=True)
    probe_parser.add_argument("--target", required=True)
    probe_parser.add_argument("--count", type=int, default=40)
    probe_parser.add_argument("--spacing", type=float, default=0.1)
    probe_parser.add_argument("--wait", type=float, default=3.0)
    args = parser.parse_args()
    try:
        serve(args) if args.command == "serve" else probe(args)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
