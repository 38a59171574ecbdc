"""peerscand under load and repeated faults on a large churning mDNS LAN (the harness: conftest.py).

`make stress-ci` (STRESS_PROFILE=ci, ~5 min): 100 virtual hosts with ~400 services churning for a minute, 100
Monitor clients. `make stress` (STRESS_PROFILE=full): 220 hosts with ~880 services churning for 5 minutes, 10 avahi
kills, and the Avahi limits probe (test_avahi_limits.py). The scenarios run in this order on one LAN and one
peerscand; each checks, once its fault has settled:

- GetSnapshot's devices equal the ground truth the harness published (host name, id, display name, addresses,
  services with port and TXT): nothing lost, nothing stale, ids those of the first meeting (stable);
- every Monitor client's replayed state (the independent applier's and 99 raw clients') equals GetSnapshot at its
  sequence, with no gap, no broken changeset, no snapshot without `resync: true`;
- no churn: a fault on a quiet LAN causes no changeset that touches a device (the host item may change).

Numbers (settle times, changesets, CPU and peak RSS of peerscand and avahi-daemon from /proc, datagrams the scanner
namespace dropped) are printed and kept in the evidence folder's report.json.

The LAN is made lossless at the scanner: avahi-daemon's mDNS sockets get an 8 MiB receive buffer
(STRESS_AVAHI_RCVBUF=0 keeps the kernel's 208 KiB). With the default, at 2,000 services avahi-daemon dropped ~25 % of
the IPv4 and many IPv6 datagrams when peerscand started (UDP RcvbufErrors); a lost goodbye then leaves the service in
avahi's cache, and so in peerscand, until its records expire (120 s for SRV/A/AAAA): what peerscand can know.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import threading
import time

from testclient import applier
from testclient.fleet import Fleet
from testclient.varlinkclient import MonitorFollower
from testkit.waiting import wait_until
from testlan.lan import fill_file_system

from attribution import udp_drops
from conftest import Stress

POLL = 0.2  # seconds between polls: most ask GetSnapshot, which is not free on a large LAN

QUIET_WAIT = 12.0  # past --resync-grace (10 s): a device Avahi did not report again would be deleted by then


def header_state(stress: Stress) -> str:
    return applier.config_item(stress.daemon.get_snapshot()["snapshot"], "host")["avahiState"]


def quiet_check(stress: Stress, since: int, what: str) -> dict:
    """After a fault on a quiet LAN: equal to the truth, and no changeset touched a device since `since`."""
    settle = stress.settle(what=what)
    time.sleep(QUIET_WAIT)
    stress.settle(timeout=5, what=f"{what}-after-grace")
    touched = stress.changesets_touching_devices(since)
    if touched:
        with stress.follower.condition:  # the changesets themselves, for the evidence
            sequences = {sequence for sequence, _ in touched}
            changes = [r for r in stress.follower.replies if r["sequence"] in sequences]
        stress.save(f"{what}-churn.json", {"touched": touched, "changesets": changes})
    assert not touched, f"{what}: {len(touched)} changesets touched devices that did not change: {touched[:5]}"
    return {"settle_s": round(settle, 2)}


def churn_in_background(stress: Stress) -> tuple[threading.Event, threading.Thread, list]:
    stop, made = threading.Event(), []
    thread = threading.Thread(target=lambda: made.append(stress.world.churn(3600, stop)), daemon=True)
    thread.start()
    return stop, thread, made


def finish_churn(stress: Stress, stop: threading.Event, thread: threading.Thread, what: str) -> dict:
    stop.set()
    thread.join(timeout=120)
    assert not thread.is_alive(), "the churn did not stop"
    assert stress.world.failure is None, f"a churn batch failed (the test LAN, not peerscand): {stress.world.failure}"
    time.sleep(max(0.0, stress.world.settle_time()))
    settle = stress.settle(what=what)
    return {"settle_s": round(settle, 2), **stress.check_clients(what)}


def test_load_many_hosts_churning_with_100_monitor_clients(stress: Stress) -> None:
    """The LAN churns for the profile's minutes under 100 Monitor clients; once the churn stops and the last
    announcements are cached, GetSnapshot equals the truth and every client equals GetSnapshot. peerscand's CPU and
    peak RSS over the churn are reported beside avahi-daemon's own (the same run, /proc)."""
    prof = stress.profile
    stress.follower = MonitorFollower(stress.daemon.socket)
    stress.fleet = Fleet(stress.daemon.socket, prof.clients - 1)
    initial = stress.settle(timeout=120, what="initial")
    stress.check_clients("initial")
    before_d, before_a = stress.daemon.stats(), stress.avahi_stats()
    first_sequence = stress.follower.sequence
    started = time.monotonic()
    made = stress.world.churn(prof.churn_seconds)
    churned = time.monotonic() - started
    time.sleep(max(0.0, stress.world.settle_time()))
    # 150 s: past the 120 s TTL of a host's records, after which avahi-daemon drops what a lost goodbye left.
    settle = stress.settle(timeout=150, what="load")
    clients = stress.check_clients("load")
    after_d, after_a = stress.daemon.stats(), stress.avahi_stats()
    stress.report["udp_after_load"] = udp_drops(stress.lan)
    result = {
        "hosts": len(stress.world.hosts), "services": stress.world.service_count, "changes": made,
        "churn_s": round(churned, 1), "changesets": stress.follower.sequence - first_sequence,
        "initial_settle_s": round(initial, 2), "settle_s": round(settle, 2),
        "peerscand": {"cpu_s": round(after_d["cpu_s"] - before_d["cpu_s"], 2), "peak_rss_mib": after_d["peak_rss_mib"],
                      "rss_mib": after_d["rss_mib"]},
        "avahi_daemon": {"cpu_s": round(after_a["cpu_s"] - before_a["cpu_s"], 2),
                         "peak_rss_mib": after_a["peak_rss_mib"], "rss_mib": after_a["rss_mib"]},
        "clients": clients, "scanner_udp": stress.report["udp_after_load"],
    }
    stress.report["load"] = result
    print(f"\nload: {result}", flush=True)
    assert result["changesets"] > 0 and made > 0


def test_avahi_killed_and_restarted_during_load(stress: Stress) -> None:
    """avahi-daemon is SIGKILLed and started again the profile's number of times while the LAN churns: afterwards
    nothing is lost or stale and every client agrees. Then once more on a quiet LAN: not one changeset touches a
    device (peerscand keeps the devices through the outage and resyncs without churn, as docs/scanning.md promises)."""
    kills = stress.profile.avahi_kills
    stop, thread, _ = churn_in_background(stress)
    try:
        for round_ in range(kills):
            time.sleep(2 + round_ % 3)
            stress.kill_avahi(signal.SIGKILL)
            time.sleep(1 + round_ % 2)
            stress.start_avahi()
    finally:
        result = finish_churn(stress, stop, thread, "avahi-load")
    # And once on a quiet LAN: no churn.
    since = stress.follower.sequence
    stress.kill_avahi(signal.SIGKILL)
    wait_until(lambda: header_state(stress) != "running", 20, "the outage shown", interval=POLL)
    stress.start_avahi()
    quiet = quiet_check(stress, since, "avahi-quiet")
    quiet.update(stress.check_clients("avahi-quiet"))
    stress.report["avahi_restarts"] = {"kills": kills, "load": result, "quiet": quiet}
    print(f"\navahi restarts: {stress.report['avahi_restarts']}", flush=True)


def test_dbus_bus_restarted(stress: Stress) -> None:
    """The bus goes away under a running avahi-daemon and comes back (as `systemctl restart dbus` does); avahi-daemon
    reconnects to it by itself (if it exited instead, it is started again, as systemd would, and that is reported)."""
    since = stress.follower.sequence
    stress.lan.stop_bus()
    wait_until(lambda: header_state(stress) in ("unavailable", "connecting"), 30, "the bus outage shown", interval=POLL)
    time.sleep(2)
    stress.lan.start_bus()
    # avahi-daemon 0.8 exits once it handles the bus's disconnection; a busy one takes a while to get to it (it
    # handles one D-Bus message per turn of its loop). Either it is back on the bus or it is gone.
    deadline = time.monotonic() + 30
    while stress.lan.avahi_running and header_state(stress) != "running" and time.monotonic() < deadline:
        time.sleep(0.2)
    avahi_survived = stress.lan.avahi_running and header_state(stress) == "running"
    if not avahi_survived:
        stress.avahi_cpu_before = stress.avahi_stats()["cpu_s"]
        stress.lan.stop_avahi()
        stress.start_avahi()
    wait_until(lambda: header_state(stress) == "running", 60, "avahi running again", interval=POLL)
    quiet = quiet_check(stress, since, "dbus-quiet")
    quiet["avahi_survived_the_bus"] = avahi_survived
    stop, thread, _ = churn_in_background(stress)
    time.sleep(stress.profile.fault_churn_seconds / 2)
    quiet["after"] = finish_churn(stress, stop, thread, "dbus-after")
    stress.report["dbus_restart"] = quiet
    print(f"\nD-Bus restart: {quiet}", flush=True)


def test_peerscand_restarted_clients_resume_and_ids_stay(stress: Stress) -> None:
    """peerscand stops (SIGTERM) and starts again on the same state directory: every client reconnects asking to
    resume with its epoch and last sequence and gets `resync: true` with a snapshot of the new run; that first
    snapshot is already complete (no device changeset follows it: the startup settling), every device keeps its id,
    and the clients follow the churn that comes after."""
    old = stress.daemon.get_snapshot()
    ids = {d["hostName"]: d["id"] for d in applier.devices(old["snapshot"]).values()}
    stress.follower.wait_sequence(old["sequence"])
    stress.follower.close()
    assert stress.daemon.stop() == 0
    restarted = time.monotonic()
    stress.daemon.start()
    # The independent applier's client resumes with its epoch and last sequence: a new run answers with a resync.
    stress.follower = MonitorFollower(stress.daemon.socket, start=(old["snapshot"], old["sequence"]),
                                      epoch=old["epoch"], since=old["sequence"])
    stress.follower.wait_replies(1, timeout=60)
    first = stress.follower.replies[0]
    assert first.get("resync") is True and first["epoch"] != old["epoch"]
    settle = stress.settle(what="peerscand-restart") + 0
    served = time.monotonic() - restarted
    # The first snapshot the restarted daemon served was already complete: no device changeset after it.
    time.sleep(QUIET_WAIT)
    touched = stress.changesets_touching_devices(first["sequence"])
    now = stress.daemon.get_snapshot()
    new_ids = {d["hostName"]: d["id"] for d in applier.devices(now["snapshot"]).values()}
    assert new_ids == ids, "ids changed across the restart"
    assert not touched, f"changesets after the restarted daemon's first snapshot: {touched[:5]}"
    clients = stress.check_clients("peerscand-restart")
    with stress.fleet.lock:
        not_resumed = [c.number for c in stress.fleet.clients if c.epoch != now["epoch"] or c.resyncs < 1]
    assert not not_resumed, f"fleet clients that did not resume with a resync: {not_resumed[:10]}"
    stop, thread, _ = churn_in_background(stress)
    time.sleep(stress.profile.fault_churn_seconds / 2)
    after = finish_churn(stress, stop, thread, "peerscand-after")
    result = {"settle_s": round(settle, 2), "served_equal_s": round(served, 2), "clients": clients, "after": after}
    stress.report["peerscand_restart"] = result
    print(f"\npeerscand restart: {result}", flush=True)


def test_scanner_veth_down_and_up(stress: Stress) -> None:
    """The scanner's link goes down for 5 s and up again (a cable pulled, a Wi-Fi roam): avahi-daemon withdraws the
    interface with everything learnt on it, and learns it again once it is back. peerscand keeps what was withdrawn
    (`interface withdrawn`) and confirms what Avahi reports again: once the withdrawal's grace is over (`interface
    resync finished`), the snapshot equals the truth, every client agrees, and not one changeset touched a device."""
    lan = stress.lan
    since = stress.follower.sequence
    withdrawn_before = stress.daemon.count("interface withdrawn")
    finished_before = stress.daemon.count("interface resync finished")
    subprocess.run(["ip", "-n", lan.scanner_ns, "link", "set", "lan0", "down"], check=True)
    wait_until(lambda: stress.daemon.count("interface withdrawn") > withdrawn_before, 30, "the withdrawal logged",
               interval=POLL)
    time.sleep(5)
    # IPv6 addresses are flushed when a link goes down (keep_addr_on_down=0): the scanner's is put back before the
    # link comes up, as a configured address is. (Put back just after, it changed avahi-daemon's IPv6 address while
    # it probed its host name, and avahi-daemon took its own announcements for a conflict: scanner-2 … scanner-13.)
    subprocess.run(["ip", "-n", lan.scanner_ns, "addr", "replace", f"{lan.scanner_ipv6}/64", "dev", "lan0", "nodad"],
                   check=True)
    came_back = time.monotonic()
    subprocess.run(["ip", "-n", lan.scanner_ns, "link", "set", "lan0", "up"], check=True)
    wait_until(lambda: stress.daemon.count("interface resync finished") > finished_before, 120,
               "the withdrawal finished", interval=POLL)
    finished = time.monotonic() - came_back
    settle = stress.settle(timeout=60, what="veth")
    touched = stress.changesets_touching_devices(since)
    stress.save("veth-churn.json", touched)
    line = [x for x in stress.daemon.stderr_lines if "interface resync finished" in x][-1]
    clients = stress.check_clients("veth")
    result = {"settle_s": round(settle, 2), "finished_after_link_up_s": round(finished, 2), "log": line,
              "device_changesets": len(touched), "devices_touched": len({i for _, ids in touched for i in ids}),
              "devices": len(stress.world.hosts), "clients": clients}
    stress.report["veth"] = result
    print(f"\nveth down/up: {result}", flush=True)
    assert not touched, f"veth: {len(touched)} changesets touched devices through a link flap: {touched[:5]}"
    assert "removed=0" in line, line


def test_state_directory_full(stress: Stress) -> None:
    """The state directory's file system (a 16 MiB tmpfs) fills up while the LAN churns: peerscand keeps serving
    (snapshot = truth, clients consistent), logs `registry write failed` once (at most once a minute, per
    docs/reliability.md), and once there is room again logs `registry writes resumed` and writes every present
    device."""
    filler = stress.state / "filler"
    filled = time.monotonic()
    fill_file_system(filler)
    try:
        stop, thread, _ = churn_in_background(stress)
        time.sleep(stress.profile.fault_churn_seconds)
        full = finish_churn(stress, stop, thread, "disk-full")
        time.sleep(3)
        assert stress.daemon.process.poll() is None
        # The write-ahead log reuses its pages once checkpointed: a batch that does not grow the files still fits, so
        # a full disk shows only once the database or its log must grow (then: one line, at most once a minute).
        failed = stress.daemon.count("registry write failed")
        allowed = 1 + int((time.monotonic() - filled) // 60)
        assert failed <= allowed, f"'registry write failed' logged {failed} times (at most once a minute: {allowed})"
    finally:
        filler.unlink()
    took = 0.0
    if failed:
        took = wait_until(lambda: stress.daemon.count("registry writes resumed") >= 1, 30, "registry writes resumed",
                          interval=POLL)
    time.sleep(2)  # the next write batch
    database = sqlite3.connect(stress.state / "registry.sqlite", timeout=10)
    try:
        stored = {row[0] for row in database.execute("SELECT id FROM device")}
    finally:
        database.close()
    present = {d["id"] for d in stress.world.expected().values()}
    assert present <= stored, f"{len(present - stored)} present devices not written after the disk had room again"
    result = {**full, "resumed_after_s": round(took, 2), "failures_logged": failed}
    stress.report["disk_full"] = result
    print(f"\nstate directory full: {result}", flush=True)


def test_resources_over_the_whole_run(stress: Stress) -> None:
    """The totals: peerscand's and avahi-daemon's CPU and peak RSS over every scenario (restarts summed)."""
    result = {"peerscand": stress.daemon.stats(), "avahi_daemon": stress.avahi_stats(), "udp": udp_drops(stress.lan),
              "daemon_alive": stress.daemon.process.poll() is None}
    stress.report["totals"] = result
    print(f"\ntotals: {result}", flush=True)
    assert result["daemon_alive"]
