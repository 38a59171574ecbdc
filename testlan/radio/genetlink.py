"""Generic netlink in a few lines of struct packing, for the radio guest's medium (medium.py: hwsim's family) and scans
(air.py: nl80211's scan events) — Debian 12's Python has no netlink module, and these need only messages, flat
attributes and a family's id and multicast groups."""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Iterator

NETLINK_GENERIC = 16
SOL_NETLINK, NETLINK_ADD_MEMBERSHIP = 270, 1
NLMSG_ERROR, NLM_F_REQUEST, NLM_F_ACK = 2, 1, 4
GENL_ID_CTRL, CTRL_CMD_GETFAMILY = 0x10, 3
CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME, CTRL_ATTR_MCAST_GROUPS = 1, 2, 7
CTRL_ATTR_MCAST_GRP_NAME, CTRL_ATTR_MCAST_GRP_ID = 1, 2


class NetlinkError(Exception):
    """The kernel refused a request (the message has the errno's text) or lacks a family."""


def open_socket() -> socket.socket:
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    return sock


def attribute(kind: int, payload: bytes) -> bytes:
    return struct.pack("=HH", 4 + len(payload), kind) + payload + b"\0" * (-len(payload) % 4)


def message(family: int, command: int, attributes: bytes, flags: int = NLM_F_REQUEST, version: int = 1) -> bytes:
    body = struct.pack("=BBH", command, version, 0) + attributes
    return struct.pack("=IHHII", 16 + len(body), family, flags, 0, 0) + body


def attributes(data: bytes) -> dict[int, bytes]:
    found, offset = {}, 0
    while offset + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, offset)
        if length < 4:
            break
        found[kind & 0x3FFF] = data[offset + 4:offset + length]
        offset += (length + 3) & ~3
    return found


def messages(data: bytes) -> Iterator[tuple[int, int, dict[int, bytes]]]:
    """(type, generic netlink command, attributes) of each message in a datagram; for NLMSG_ERROR the errno (0: an
    acknowledgement) in place of the command."""
    offset = 0
    while offset + 16 <= len(data):
        length, kind = struct.unpack_from("=IH", data, offset)
        if length < 16:
            break
        payload = data[offset + 16:offset + length]
        if kind == NLMSG_ERROR:
            yield kind, -struct.unpack_from("=i", payload)[0], {}
        else:
            yield kind, payload[0], attributes(payload[4:])
        offset += (length + 3) & ~3


def request(sock: socket.socket, data: bytes) -> dict[int, bytes]:
    """Sends a request (NLM_F_ACK set) and returns the reply's attributes (empty for a bare acknowledgement)."""
    sock.send(data)
    reply: dict[int, bytes] = {}
    while True:
        for kind, command, found in messages(sock.recv(65536)):
            if kind == NLMSG_ERROR:
                if command:
                    raise NetlinkError(f"generic netlink command {data[16]} refused: {os.strerror(command)}")
                return reply
            reply = found


def family_of(sock: socket.socket, name: str) -> tuple[int, dict[str, int]]:
    """A family's id and its multicast groups by name."""
    reply = request(sock, message(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, attribute(CTRL_ATTR_FAMILY_NAME,
                                                                               name.encode() + b"\0"),
                                  NLM_F_REQUEST | NLM_F_ACK))
    if CTRL_ATTR_FAMILY_ID not in reply:
        raise NetlinkError(f"no generic netlink family {name}")
    groups = {}
    for group in attributes(reply.get(CTRL_ATTR_MCAST_GROUPS, b"")).values():
        found = attributes(group)
        groups[found[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0").decode()] = struct.unpack(
            "=I", found[CTRL_ATTR_MCAST_GRP_ID][:4])[0]
    return struct.unpack("=H", reply[CTRL_ATTR_FAMILY_ID][:2])[0], groups


def subscribe(sock: socket.socket, group: int) -> None:
    sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)
