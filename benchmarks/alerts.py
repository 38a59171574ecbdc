"""Alerts on the Wi-Fi-like test LAN (issue 38): what reaches a webhook receiver, how fast, and whether anything is
lost or doubled across a receiver outage with a peerscand restart in it.

Run as root (needs ``swift build`` first; PEERSCAND=path overrides ``.build/debug/peerscand``, peerscan-alerts is
taken beside it)::

    /usr/bin/python3 -m benchmarks.alerts [--minutes 10] [--outage-minutes 10] [--hosts 30] [--leavers 5] [--seed 1]

The LAN of benchmarks/presence.py: ``--hosts`` Wi-Fi-like hosts that stay (late and lost ARP/NDP answers), and
``--leavers`` that leave and come back in a loop (present 30–60 s, gone until peerscand shows them offline and 5–15 s
more). peerscand runs as root with ``--probe-interval 5 --offline-after 20 --alert-flap-window 0`` (every transition
alerts: the latency of each is measured; the default window would fold a leaver's return), every host is marked
important (so offline and online alert), and peerscan-alerts delivers to a receiver on its own host (json://).

1. For ``--minutes``: every alert the receiver gets is timed against the transition it reports (the time peerscand's
   --dump line of that changeset arrived): p50, p95, max (goal p95 ≤ 5 s); offline alerts of a staying host, or of
   a leaver while present, are false (goal 0).
2. Then the outage, ``--outage-minutes``: the receiver's port closes; the leavers leave once (offline alerts) and come
   back (online alerts); halfway, peerscand is stopped and started again on the same registry; the leavers leave and
   come back once more; then the receiver returns. Every alert of the run peerscand queued (its `alert queued` lines,
   both daemons', the tests' aside) must arrive once: lost and doubled (goal 0 / 0), and how long the backlog took to
   drain once the receiver was back.

The delay is measured from the changeset's --dump line (peerscand made the transition final) to the receiver's
read of the request; a line read a moment after the alert it caused counts as 0.

Reported: one JSON line.
"""

from __future__ import annotations

import argparse
import json
import random
import threading
import time
from collections import Counter
from pathlib import Path

from benchmarks.presence import OFFLINE_AFTER, PROBE_INTERVAL, Leaver, percentile, transitions
from benchmarks.scanner import PEERSCAND, Daemon, device_of
from testkit.receiver import Receiver
from testkit.waiting import wait_until
from testlan.lan import TestLAN
from testlan.wifi import WifiHost, add_wifi_host

ALERTS = ("--alert-flap-window", "0", "--alert-name-wait", "0")
PEERSCANCTL = PEERSCAND.with_name("peerscanctl")
PEERSCAN_ALERTS = PEERSCAND.with_name("peerscan-alerts")


def start_daemon(lan: TestLAN) -> Daemon:
    return Daemon(lan, "--probe-interval", str(PROBE_INTERVAL), "--offline-after", str(OFFLINE_AFTER), *ALERTS)


def queued(log_text: str) -> list[tuple[str, str]]:
    """(id, event) of every `alert queued` line but the tests'."""
    found = []
    for line in log_text.splitlines():
        if " alert queued " not in line:
            continue
        fields = dict(part.split("=", 1) for part in line.split() if "=" in part)
        if fields.get("event") != "test":
            found.append((fields["id"], fields["event"]))
    return found


def wifi_hosts(lan: TestLAN, hosts: int, leavers: int, seed: int) -> tuple[list[WifiHost], list[WifiHost]]:
    """The run's hosts on ``lan``: ``hosts`` Wi-Fi-like ones that stay and ``leavers`` alike that will leave, each
    losing 20–30 % of its answers (drawn per host from ``seed``, as is each responder's own seed)."""
    rng = random.Random(seed)
    staying = [add_wifi_host(lan, f"w{n}", seed=seed * 1000 + n, loss=rng.uniform(0.2, 0.3)) for n in range(hosts)]
    leaving = [add_wifi_host(lan, f"l{n}", seed=seed * 1000 + 500 + n, loss=rng.uniform(0.2, 0.3))
               for n in range(leavers)]
    return staying, leaving


def mark_important(lan: TestLAN, socket: Path, macs) -> None:
    """`peerscanctl set MAC --important` for each address: its offline and online alert out of the box."""
    for mac in macs:
        lan.run_in_scanner([str(PEERSCANCTL), "set", mac, "--important", "--socket", str(socket)])


def leave_and_return(daemon: Daemon, hosts) -> None:
    """Each host leaves until peerscand shows it offline, then comes back until it shows it online."""
    for host in hosts:
        host.leave()
    daemon.wait_for(lambda s: all(device_of(s, h.mac)["online"] is False for h in hosts), timeout=120)
    for host in hosts:
        host.come_back()
    daemon.wait_for(lambda s: all(device_of(s, h.mac)["online"] is True for h in hosts), timeout=120)


def benchmark(minutes: float, outage_minutes: float, hosts: int, leavers: int, seed: int) -> dict:
    bound = OFFLINE_AFTER + PROBE_INTERVAL
    with TestLAN() as lan:
        lan.start_avahi()
        lan.run_in_scanner(["sysctl", "-qw", "net.ipv4.ping_group_range=0 2147483647"])
        staying, leaving = wifi_hosts(lan, hosts, leavers, seed)
        receiver_host = lan.add_host("receiver", ipv6=False)
        receiver = Receiver(receiver_host.namespace, receiver_host.ipv4)
        socket = lan.tmpdir / "io.peerscan"
        daemon = start_daemon(lan)
        log = open(lan.tmpdir / "peerscan-alerts.log", "w")
        sender = lan.popen_in_scanner([str(PEERSCAN_ALERTS), "--socket", str(socket), "--notify",
                                       f"json://{receiver_host.ipv4}:8080/hook"], stdout=log, stderr=log)
        stop = threading.Event()
        threads: list[Leaver] = []
        try:
            everyone = {host.mac for host in staying + leaving}
            daemon.wait_for(lambda s: all((d := device_of(s, mac)) and d["online"] for mac in everyone), timeout=180)
            ids = {mac: device_of(daemon.snapshot, mac)["id"] for mac in everyone}
            mark_important(lan, socket, everyone)
            time.sleep(2)  # the new-device alerts of the hosts found (--alert-name-wait 0) go before the run
            started = time.monotonic()
            threads = [Leaver(host, daemon, random.Random(seed * 7 + n), stop, bound) for n, host in enumerate(leaving)]
            for thread in threads:
                thread.start()
            stop.wait(minutes * 60)
            stop.set()
            for thread in threads:
                thread.join(timeout=2 * bound + 90)
            time.sleep(PROBE_INTERVAL + 2)  # the last transitions' alerts arrive
            ended = time.monotonic()
            changes = [t for t in transitions(daemon, everyone) if started <= t[0] <= ended]
            arrivals = [r for r in receiver.received("/hook", status=200) if started <= r.arrived <= ended]

            outage = {}
            if outage_minutes > 0:
                gone = time.monotonic()
                receiver.vanish()
                leave_and_return(daemon, leaving)
                daemon.stop()
                first_log = (lan.tmpdir / "peerscand.log").read_text()  # read once stopped: every line it wrote
                daemon = start_daemon(lan)
                daemon.wait_for(lambda s: all((d := device_of(s, h.mac)) and d["online"] for h in leaving), 180)
                leave_and_return(daemon, leaving)
                time.sleep(max(0.0, gone + outage_minutes * 60 - time.monotonic()))
                receiver.come_back()
                back = time.monotonic()
                decided = queued(first_log) + queued((lan.tmpdir / "peerscand.log").read_text())
                wanted = {alert_id for alert_id, _ in decided}
                wait_until(lambda: wanted <= {r.json["id"] for r in receiver.received("/hook", status=200)},
                           timeout=600, what="every alert queued at the receiver")
                drained = time.monotonic() - back
                received = [r.json["id"] for r in receiver.received("/hook", status=200)]
                outage = {"minutes": round((back - gone) / 60, 1), "alerts_in_run": len(decided),
                          "events": dict(Counter(event for _, event in decided)),
                          "lost": len(wanted - set(received)), "doubled": len(received) - len(set(received)),
                          "drained_s": round(drained, 1), "restarted": True}
        finally:
            stop.set()
            sender.terminate()
            sender.wait(timeout=20)
            log.close()
            daemon.stop()
            receiver.close()
    errors = [str(thread.error) for thread in threads if thread.error]
    if errors:
        raise RuntimeError("; ".join(errors))
    by_device = {device: mac for mac, device in ids.items()}
    staying_macs = {host.mac for host in staying}
    present = {thread.host.mac: thread.present for thread in threads}
    delays, false_alerts, unmatched = [], 0, 0
    for request in arrivals:
        alert = request.json
        mac = by_device.get(alert.get("device"))
        if alert["event"] not in ("offline", "online") or mac is None:
            continue
        online = alert["event"] == "online"
        # The transition's changeset: its --dump line may be read a moment after the alert it caused arrived.
        made = [when for when, other, state in changes
                if other == mac and state is online and when <= request.arrived + 1]
        if not made:
            unmatched += 1
            continue
        delays.append(max(0.0, request.arrived - made[-1]))
        if not online and (mac in staying_macs or any(since <= made[-1] <= until for since, until in present[mac])):
            false_alerts += 1
    return {
        "minutes": minutes, "hosts": hosts, "leavers": leavers, "probe_interval": PROBE_INTERVAL,
        "offline_after": OFFLINE_AFTER, "transitions": len(changes),
        "presence_alerts": sum(1 for r in arrivals if r.json["event"] in ("offline", "online")),
        "false_offline_alerts": false_alerts, "unmatched_alerts": unmatched,
        "transition_to_alert_s": {"count": len(delays), "p50": percentile(delays, 0.5),
                                  "p95": percentile(delays, 0.95), "max": round(max(delays), 1) if delays else None},
        "outage": outage,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--outage-minutes", type=float, default=10)
    parser.add_argument("--hosts", type=int, default=30)
    parser.add_argument("--leavers", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    print(json.dumps(benchmark(arguments.minutes, arguments.outage_minutes, arguments.hosts, arguments.leavers,
                               arguments.seed)))


if __name__ == "__main__":
    main()
