"""Discovery latency: peerscand's --dump stream against a long-running ``avahi-browse -a -r -p``.

Run as root: ``/usr/bin/python3 -m benchmarks.discovery_latency [--rounds N] [--timeout S] [--json]``
(needs ``swift build`` first; PEERSCAND=path overrides ``.build/debug/peerscand``).

Method. One test LAN (testlan/: network namespaces, a private bus, a real avahi-daemon) holds both
observers at once, in the scanner namespace: ``peerscand --dump`` (state and Varlink socket in the
harness's temp dir) and ``avahi-browse -a -r -p -k`` (no ``-t``). A reader thread per observer timestamps every
output line as it arrives (``time.monotonic``); peerscand's lines are replayed with testclient/applier.py. An anchor
peer publishes a ``_bench._tcp`` service throughout, so the service type is already known and
"appear" measures a new instance, not type discovery. Each round (one unmeasured warm-up round
first) starts a fresh peer namespace with a fresh host and instance name and times four actions,
each from just before the responder command is sent (the time base is the START of the command):

- appear: ``register`` on the new host. The command blocks ~0.8 s (the "command" column):
  python-zeroconf 0.47 probes 3 times 175 ms apart, sends its first announcement at ~0.35 s and
  returns after two more, 225 ms apart -- so the service can be seen before the command returns.
  peerscand: the first changeset after which the device holds the service; avahi-browse: the
  first ``=`` (resolved) row.
- txt, port: ``update`` of TXT, then of the port. peerscand: the changeset showing the new value;
  avahi-browse: an ``=`` row with the new value, which never comes: it resolves each service once
  and frees the resolver (the known complaint); reported as "never (within timeout)".
- gone: ``unregister`` (goodbye packets). peerscand: the device is deleted (it was the host's only
  service); avahi-browse: the first ``-`` row.

Each observation waits at most --timeout seconds from the start of the command; actions are spaced
1.5 s apart after both observations end, since on a cache-flush announcement avahi only drops
cached records older than 1 s. Reported: median and p90 (nearest rank) over the rounds in which the
change was seen, and the ratio of the medians peerscand/avahi-browse.

Caveats. Both observers sit behind the same avahi-daemon, so its cache rules dominate: goodbyes
and replaced TXT/SRV records are dropped only 1 s later (RFC 6762 10.1/10.2), and avahi's open
resolvers report a new value only once the old record is gone. Every repeated announcement (3 per
update, 225 ms apart) or goodbye (3, 125 ms apart; ``unregister`` returns after the first)
restarts that second (``expire_in_one_second`` in avahi-core/cache.c): txt and port take
~0.45 + 1 s, gone ~0.25 + 1 s. A veth LAN has no loss or
delay; IPv4 and IPv6 rows race and the first counts. Timestamps include this process's pipe and
GIL latency (well under 1 ms).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from testclient import applier
from testkit.peerscand import PEERSCAND, Peerscand, command
from testlan.lan import TestLAN, parse_browse_output

ROOT = Path(__file__).resolve().parents[1]
TYPE = "_bench._tcp"
ACTIONS = ("appear", "txt", "port", "gone")
SETTLE = 1.5


class Stream:
    """The output lines of a child, parsed and timestamped by a reader thread as they arrive."""

    def __init__(self, proc: subprocess.Popen, parse: Callable[[str], list[Any]]) -> None:
        self.proc, self.parse = proc, parse
        self.events: list[tuple[float, Any]] = []
        self.eof, self.error = False, None
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.proc.stdout:
                now = time.monotonic()
                values = self.parse(line)
                with self.cond:
                    self.events += [(now, value) for value in values]
                    self.cond.notify_all()
        except Exception as error:  # a bad line, or the pipe closed under us at teardown
            self.error = error
        with self.cond:
            self.eof = True
            self.cond.notify_all()

    def first_after(self, t0: float, predicate: Callable[[Any], bool], deadline: float) -> float | None:
        """Seconds from ``t0`` to the first event at or after ``t0`` matching, or None by ``deadline``."""
        index = 0
        with self.cond:
            while True:
                for t, value in self.events[index:]:
                    if t >= t0 and predicate(value):
                        return t - t0
                index = len(self.events)
                remaining = deadline - time.monotonic()
                if self.error:
                    raise RuntimeError(f"reading {Path(self.proc.args[4]).name} failed: {self.error!r}")
                if remaining <= 0 or self.eof:
                    return None
                self.cond.wait(remaining)


def dump_parser() -> Callable[[str], list[dict]]:
    """Parse peerscand --dump lines into the snapshot after each line (checks sequence numbers)."""
    state: dict[str, Any] = {"snapshot": None, "sequence": -1}

    def parse(line: str) -> list[dict]:
        message = json.loads(line)
        if message["event"] == "snapshot":
            if message.get("final"):
                return []
            state["snapshot"] = message["snapshot"]
        else:
            if message["sequence"] != state["sequence"] + 1:
                raise RuntimeError(f"changeset gap: {state['sequence']} -> {message['sequence']}")
            state["snapshot"] = applier.apply(state["snapshot"], message["changes"])
        state["sequence"] = message["sequence"]
        return [state["snapshot"]]

    return parse


def service_in(snapshot: dict, host: str, name: str) -> dict | None:
    for device in applier.devices(snapshot).values():
        if device["hostName"] == host:
            return next((s for s in device["services"] if s["name"] == name and s["type"] == TYPE), None)
    return None


def predicates(action: str, host: str, name: str, port: int) -> tuple[Callable, Callable]:
    """(peerscand snapshot predicate, avahi-browse row predicate) showing that ``action`` took effect."""
    def row(event: str, check: Callable = lambda r: True) -> Callable:
        return lambda r: r.event == event and r.name == name and r.type == TYPE and check(r)

    def svc(check: Callable) -> Callable:
        return lambda s: (x := service_in(s, host, name)) is not None and check(x)

    if action == "appear":
        return svc(lambda x: x["port"] == port), row("=", lambda r: r.host == host and r.port == port)
    if action == "txt":
        return svc(lambda x: x["txt"] == {"v": "1"}), row("=", lambda r: "v=1" in r.txt)
    if action == "port":
        return svc(lambda x: x["port"] == port + 1), row("=", lambda r: r.port == port + 1)
    gone = lambda s: all(d["hostName"] != host for d in applier.devices(s).values())  # noqa: E731
    return gone, row("-")


def run_round(lan: TestLAN, dump: Stream, browse: Stream, label: str, timeout: float) -> dict[str, dict]:
    host, name, port = f"bench-{label}", f"Bench {label}", 5000
    peer = lan.add_peer(host)
    commands = {
        "appear": lambda: peer.register(name, TYPE, port, {"v": "0"}),
        "txt": lambda: peer.update(name, TYPE, txt={"v": "1"}),
        "port": lambda: peer.update(name, TYPE, port=port + 1),
        "gone": lambda: peer.unregister(name, TYPE),
    }
    result = {}
    for action in ACTIONS:
        in_dump, in_browse = predicates(action, f"{host}.local", name, port)
        t0 = time.monotonic()
        commands[action]()
        command = time.monotonic() - t0
        result[action] = {"command": command,
                          "peerscand": dump.first_after(t0, in_dump, t0 + timeout),
                          "avahi_browse": browse.first_after(t0, in_browse, t0 + timeout)}
        time.sleep(SETTLE)
    peer.stop()
    if dump.proc.poll() is not None or browse.proc.poll() is not None:
        raise RuntimeError(f"an observer exited; see {lan.tmpdir}")
    return result


def summary(values: list[float | None]) -> dict:
    seen = sorted(v for v in values if v is not None)
    if not seen:
        return {"median": None, "p90": None, "seen": 0}
    return {"median": statistics.median(seen), "p90": seen[math.ceil(0.9 * len(seen)) - 1], "seen": len(seen)}


def report(rounds: list[dict], timeout: float) -> dict:
    actions = {}
    for action in ACTIONS:
        stats = {who: summary([r[action][who] for r in rounds]) for who in ("peerscand", "avahi_browse")}
        ours, theirs = stats["peerscand"]["median"], stats["avahi_browse"]["median"]
        actions[action] = {"command_median": statistics.median(r[action]["command"] for r in rounds), **stats,
                           "ratio": ours / theirs if ours is not None and theirs else None,
                           "samples": {w: [r[action][w] for r in rounds]
                                       for w in ("command", "peerscand", "avahi_browse")}}
    return {"rounds": len(rounds), "timeout_s": timeout, "time_base": "start of the responder command",
            "actions": actions}


def markdown(result: dict) -> str:
    n, timeout = result["rounds"], result["timeout_s"]

    def cells(stats: dict) -> str:
        if stats["median"] is None:
            return f"never (within {timeout:g} s) | –"
        missed = f" ({n - stats['seen']}/{n} missed)" if stats["seen"] < n else ""
        return f"{stats['median']:.3f}{missed} | {stats['p90']:.3f}"

    lines = [f"Latency in seconds from the start of the responder command, {n} rounds.", "",
             "| action | command | peerscand median | peerscand p90 | avahi-browse median | avahi-browse p90 | ratio |",
             "|---|---|---|---|---|---|---|"]
    for action, a in result["actions"].items():
        ratio = f"{a['ratio']:.3f}" if a["ratio"] is not None else "–"
        lines.append(f"| {action} | {a['command_median']:.3f} | {cells(a['peerscand'])} | "
                     f"{cells(a['avahi_browse'])} | {ratio} |")
    return "\n".join(lines)


def parse_arguments(description: str, most_rounds: int, why: str) -> argparse.Namespace:
    """The benchmarks' common options (--rounds, --timeout, --json), checked, with root and peerscand required."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds per observation (default 5)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()
    if os.geteuid() != 0:
        parser.error("run as root: the test LAN needs network namespaces")
    if not PEERSCAND.exists():
        parser.error(f"{PEERSCAND} is missing: run `swift build --product peerscand`")
    if not 1 <= args.rounds <= most_rounds:
        parser.error(f"--rounds must be between 1 and {most_rounds} ({why})")
    return args


def start_observers(lan: TestLAN, parse_dump: Callable[[str], list[Any]]) -> tuple[Stream, Stream]:
    """``peerscand --dump`` (parsed by ``parse_dump``) and a long-running ``avahi-browse -a -r -p -k``, both in the
    scanner namespace; peerscand's state, socket and log stay in the LAN's temp dir (nothing lands in /run).
    peerscand runs as an mDNS browser, as avahi-browse is one: no neighbour table, a device goes with its last
    service."""
    socket = lan.tmpdir / "io.peerscan"
    dump = Stream(Peerscand(command("--dump", "--state-directory", str(lan.tmpdir / "state"), "--socket", str(socket),
                                    "--no-neighbour-table", "--offline-after", "0", "--forget-after", "0"),
                            socket, popen=lan.popen_in_scanner, log=lan.tmpdir / "peerscand.log",
                            stdout=subprocess.PIPE).start(), parse_dump)
    browse = Stream(lan.popen_in_scanner(
        ["avahi-browse", "-a", "-r", "-p", "-k"], text=True, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL), parse_browse_output)
    return dump, browse


def main() -> int:
    args = parse_arguments(__doc__.splitlines()[0], 150, "one peer namespace per round")
    with TestLAN() as lan:
        lan.start_avahi()
        dump, browse = start_observers(lan, dump_parser())
        t0 = time.monotonic()
        lan.add_peer("anchor").register("Anchor", TYPE, 4000)
        in_dump, in_browse = predicates("appear", "anchor.local", "Anchor", 4000)
        if dump.first_after(t0, in_dump, t0 + 15) is None or browse.first_after(t0, in_browse, t0 + 15) is None:
            raise RuntimeError(f"the anchor service was not seen by both observers; see {lan.tmpdir}")
        run_round(lan, dump, browse, "warmup", args.timeout)
        rounds = []
        for i in range(args.rounds):
            rounds.append(run_round(lan, dump, browse, f"r{i}", args.timeout))
            print(f"round {i + 1}/{args.rounds}: " + ", ".join(
                f"{a} {r['peerscand'] or float('nan'):.3f}/{r['avahi_browse'] or float('nan'):.3f}"
                for a, r in rounds[-1].items()), file=sys.stderr, flush=True)
    result = report(rounds, args.timeout)
    print(json.dumps(result, indent=2) if args.json else markdown(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
