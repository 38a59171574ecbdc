"""Fidelity: how many changesets peerscand publishes per real event on the network, and how late.

Run as root: ``/usr/bin/python3 -m benchmarks.fidelity [--rounds N] [--timeout S] [--json]``
(needs ``swift build`` first; PEERSCAND=path overrides ``.build/debug/peerscand``).

Method. One test LAN (testlan/) holds both observers in the scanner namespace, as in
discovery_latency.py: ``peerscand --dump`` and a long-running ``avahi-browse -a -r -p -k``, each line
timestamped as it arrives. An anchor peer publishes both service types first, so "appear" measures
new instances, not type discovery. Each round starts a fresh peer (fresh host and instance name) and
plays six events, each from just before its responder command (the time base), 1.5 s apart once
observed (avahi drops a replaced record only after a second):

- appear: two services of one instance name (``_bench._tcp``, ``_benchb._tcp``), published at once
  (``register_all``), each seen over IPv4 and IPv6: four rows. Done when the device has both
  services and both addresses. avahi-browse: its first ``=`` row of the host.
- txt, port: an update of the first service's TXT, then its port. avahi-browse never shows them.
- address-add, address-remove: a second IPv4 address published for the host name, then withdrawn
  (goodbye). avahi-browse shows no address records.
- withdraw: the peer withdraws all its services at once (``unregister_all``: goodbye packets). Done
  when the device is gone.
  avahi-browse: its first ``-`` row of the host.

Counted per event: peerscand's changesets that touch the device (an insert, delete, update or move
of its id) from the event's start until the next event starts. The goal is exactly 1 for every kind.
Reported: the mean changesets per event and how many events were not exactly one, the median and
p90 delay of peerscand, the same for avahi-browse where it shows the event, and peerscand's median
minus avahi-browse's (the goal: at most 0.150 s).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.discovery_latency import Stream, parse_arguments, start_observers, summary
from testclient import applier
from testlan.lan import TestLAN

ROOT = Path(__file__).resolve().parents[1]
TYPES = ("_bench._tcp", "_benchb._tcp")
KINDS = ("appear", "txt", "port", "address-add", "address-remove", "withdraw")
SPACING = 1.5
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io")


def dump_parser() -> Callable[[str], list[tuple[dict, dict | None]]]:
    """Parse peerscand --dump lines into (snapshot after the line, its changes or None)."""
    state: dict[str, Any] = {"snapshot": None, "sequence": -1}

    def parse(line: str) -> list[tuple[dict, dict | None]]:
        message = json.loads(line)
        if message["event"] == "snapshot":
            if message.get("final"):
                return []
            state["snapshot"], changes = message["snapshot"], None
        else:
            if message["sequence"] != state["sequence"] + 1:
                raise RuntimeError(f"changeset gap: {state['sequence']} -> {message['sequence']}")
            state["snapshot"], changes = applier.apply(state["snapshot"], message["changes"]), message["changes"]
        state["sequence"] = message["sequence"]
        return [(state["snapshot"], changes)]

    return parse


def touches(changes: dict | None, device_id: str) -> bool:
    """Whether a changeset inserts, deletes, updates or moves the item ``device_id``."""
    if not changes:
        return False
    for kind in ("itemInserts", "itemDeletes", "itemUpdates", "itemMoves"):
        for entry in changes.get(kind, []):
            if entry.get("id", entry.get("item", {}).get("id")) == device_id:
                return True
    return False


def device(snapshot: dict, host: str) -> dict | None:
    return next((d for d in applier.devices(snapshot).values() if d["hostName"] == host), None)


def run_round(lan: TestLAN, dump: Stream, browse: Stream, label: str, timeout: float) -> dict[str, dict]:
    hostname, name, port = f"fid-{label}", f"Fid {label}", 5000
    host = f"{hostname}.local"
    device_id = str(uuid.uuid5(NAMESPACE, host))
    peer = lan.add_peer(hostname)
    extra = f"10.231.0.{200 + peer.index % 50}"
    services = [{"name": name, "type": t, "port": port, "txt": {"v": "0"}} for t in TYPES]

    def has(check: Callable[[dict], bool]) -> Callable[[tuple[dict, Any]], bool]:
        return lambda value: (d := device(value[0], host)) is not None and check(d)

    events: list[tuple[str, Callable[[], Any], Callable, Callable | None]] = [
        ("appear", lambda: peer.register_all(services),
         has(lambda d: {s["type"] for s in d["services"]} == set(TYPES)
             and {peer.ipv4, peer.ipv6} <= set(d["addresses"])),
         lambda r: r.event == "=" and r.host == host),
        ("txt", lambda: peer.update(name, TYPES[0], txt={"v": "1"}),
         has(lambda d: any(s["type"] == TYPES[0] and s["txt"] == {"v": "1"} for s in d["services"])), None),
        ("port", lambda: peer.update(name, TYPES[0], port=port + 1),
         has(lambda d: any(s["type"] == TYPES[0] and s["port"] == port + 1 for s in d["services"])), None),
        ("address-add", lambda: peer.add_address(extra), has(lambda d: extra in d["addresses"]), None),
        ("address-remove", lambda: peer.remove_address(extra), has(lambda d: extra not in d["addresses"]), None),
        ("withdraw", lambda: peer.unregister_all(),
         lambda value: device(value[0], host) is None, lambda r: r.event == "-" and r.name == name),
    ]
    starts, result = [], {}
    for kind, command, in_dump, in_browse in events:
        t0 = time.monotonic()
        starts.append(t0)
        command()
        result[kind] = {"peerscand": dump.first_after(t0, in_dump, t0 + timeout),
                        "avahi_browse": browse.first_after(t0, in_browse, t0 + timeout) if in_browse else None}
        time.sleep(SPACING)
    starts.append(time.monotonic())
    peer.stop()
    with dump.cond:
        timeline = list(dump.events)
    for index, kind in enumerate(KINDS):
        begin, end = starts[index], starts[index + 1]
        result[kind]["changesets"] = sum(1 for t, (_, changes) in timeline
                                         if begin <= t < end and touches(changes, device_id))
    if dump.proc.poll() is not None or browse.proc.poll() is not None:
        raise RuntimeError(f"an observer exited; see {lan.tmpdir}")
    return result


def report(rounds: list[dict], timeout: float) -> dict:
    kinds = {}
    for kind in KINDS:
        counts = [r[kind]["changesets"] for r in rounds]
        ours = summary([r[kind]["peerscand"] for r in rounds])
        theirs = summary([r[kind]["avahi_browse"] for r in rounds])
        kinds[kind] = {
            "changesets_per_event": statistics.mean(counts),
            "events_not_one": sum(1 for c in counts if c != 1),
            "peerscand": ours,
            "avahi_browse": theirs,
            "added": ours["median"] - theirs["median"] if ours["median"] is not None and theirs["median"] else None,
            "samples": {"changesets": counts, "peerscand": [r[kind]["peerscand"] for r in rounds],
                        "avahi_browse": [r[kind]["avahi_browse"] for r in rounds]},
        }
    return {"rounds": len(rounds), "timeout_s": timeout, "time_base": "start of the responder command",
            "kinds": kinds}


def markdown(result: dict) -> str:
    n, timeout = result["rounds"], result["timeout_s"]

    def cells(stats: dict) -> str:
        if stats["median"] is None:
            return "– | –"
        missed = f" ({n - stats['seen']}/{n} missed)" if stats["seen"] < n else ""
        return f"{stats['median']:.3f}{missed} | {stats['p90']:.3f}"

    lines = [f"Fidelity over {n} rounds (seconds from the start of the responder command; timeout {timeout:g} s).", "",
             "| event | changesets per event | events ≠ 1 | peerscand median | p90 | avahi-browse median | p90 | "
             "added |", "|---|---|---|---|---|---|---|---|"]
    for kind, k in result["kinds"].items():
        added = f"{k['added'] * 1000:+.0f} ms" if k["added"] is not None else "–"
        lines.append(f"| {kind} | {k['changesets_per_event']:.2f} | {k['events_not_one']} | {cells(k['peerscand'])} | "
                     f"{cells(k['avahi_browse'])} | {added} |")
    return "\n".join(lines)


def main() -> int:
    args = parse_arguments(__doc__.splitlines()[0], 45, "one peer namespace and address per round")
    with TestLAN() as lan:
        lan.start_avahi()
        dump, browse = start_observers(lan, dump_parser())
        t0 = time.monotonic()
        anchor = lan.add_peer("anchor")
        anchor.register_all([{"name": "Anchor", "type": t, "port": 4000} for t in TYPES])
        seen = dump.first_after(t0, lambda v: (d := device(v[0], "anchor.local")) is not None
                                and len(d["services"]) == len(TYPES), t0 + 15)
        if seen is None:
            raise RuntimeError(f"the anchor was not seen; see {lan.tmpdir}")
        run_round(lan, dump, browse, "warmup", args.timeout)
        rounds = []
        for i in range(args.rounds):
            rounds.append(run_round(lan, dump, browse, f"r{i}", args.timeout))
            print(f"round {i + 1}/{args.rounds}: " + ", ".join(
                f"{kind} {r['changesets']}×{r['peerscand'] or float('nan'):.3f}" for kind, r in rounds[-1].items()),
                file=sys.stderr, flush=True)
    result = report(rounds, args.timeout)
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
