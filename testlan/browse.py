"""avahi-browse's parsable output (``-p``), as the tests and benchmarks read it to compare peerscand with Avahi's own
client."""

from __future__ import annotations

import dataclasses
import re


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
