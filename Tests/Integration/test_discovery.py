"""peerscand against a real avahi-daemon and real mDNS traffic from python-zeroconf peers, in network namespaces."""

from __future__ import annotations

import signal
import time
import uuid

from testclient import applier
from testkit.waiting import wait_for_value

ALPHA_SERVICES = [("Alpha", "_http._tcp", 80, {"path": "/"}), ("Alpha", "_ssh._tcp", 22, {})]
BETA_SERVICES = [("Beta", "_ipp._tcp", 631, {"model": "X1"}), ("Beta", "_http._tcp", 8080, {"path": "/admin"})]


def publish(peer, services):
    for name, type_, port, txt in services:
        peer.register(name, type_, port, txt)


def device_named(snapshot: dict, host: str) -> dict | None:
    return next((d for d in applier.devices(snapshot).values() if d["hostName"] == host), None)


def has_device(host: str, types: set[str], addresses: set[str] | None = None):
    def predicate(snapshot: dict) -> bool:
        device = device_named(snapshot, host)
        return (device is not None and {s["type"] for s in device["services"]} == types
                and (addresses is None or addresses <= set(device["addresses"])))
    return predicate


def two_peers(lan):
    alpha, beta = lan.add_peer("alpha"), lan.add_peer("beta")
    publish(alpha, ALPHA_SERVICES)
    publish(beta, BETA_SERVICES)
    return alpha, beta


def wait_for_both(daemon, alpha, beta):
    daemon.wait_for(has_device("alpha.local", {"_http._tcp", "_ssh._tcp"}, {alpha.ipv4, alpha.ipv6}), what="alpha")
    return daemon.wait_for(has_device("beta.local", {"_ipp._tcp", "_http._tcp"}, {beta.ipv4, beta.ipv6}), what="beta")


def entries_of(changes_list: list[dict], device_id: str) -> dict[str, int]:
    """How often a device appears under each kind of item change."""
    counts = {"itemInserts": 0, "itemDeletes": 0, "itemUpdates": 0, "itemMoves": 0}
    for changes in changes_list:
        for kind in counts:
            for entry in changes.get(kind, []):
                if entry.get("id", entry.get("item", {}).get("id")) == device_id:
                    counts[kind] += 1
    return counts


def test_two_hosts_appear_as_two_devices_with_everything_avahi_browse_sees(lan, start_daemon):
    alpha, beta = two_peers(lan)
    daemon = start_daemon()
    snapshot = wait_for_both(daemon, alpha, beta)
    devices = applier.devices(snapshot)
    assert sorted(d["hostName"] for d in devices.values()) == ["alpha.local", "beta.local"]
    alpha_device = device_named(snapshot, "alpha.local")
    # The UUID rule, computed independently: uuid5(uuid5(DNS, "peerscan.io"), canonical host name).
    assert alpha_device["id"] == str(uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_DNS, "peerscan.io"), "alpha.local"))
    assert alpha_device["displayName"] == "Alpha"
    assert alpha_device["interfaces"] == ["lan0"]
    assert {(s["name"], s["type"], s["port"]) for s in alpha_device["services"]} == {
        ("Alpha", "_http._tcp", 80), ("Alpha", "_ssh._tcp", 22)}
    assert next(s for s in alpha_device["services"] if s["type"] == "_http._tcp")["txt"] == {"path": "/"}
    # Sorted by display name: Alpha, then Beta.
    assert [d["displayName"] for d in applier.devices(snapshot).values()] == ["Alpha", "Beta"]

    # The anchor: every service and address avahi-browse resolves is in our snapshot.
    rows = [row for row in lan.avahi_browse() if row.event == "=" and row.host in ("alpha.local", "beta.local")]
    assert {row.protocol for row in rows} == {"IPv4", "IPv6"}
    for row in rows:
        device = device_named(daemon.wait_for(lambda s: True), row.host)
        assert (row.name, row.type, row.port) in {(s["name"], s["type"], s["port"]) for s in device["services"]}
        assert row.address.split("%")[0] in {a.split("%")[0] for a in device["addresses"]}


def test_txt_port_and_new_service_are_single_updates(lan, start_daemon):
    alpha, beta = two_peers(lan)
    daemon = start_daemon()
    wait_for_both(daemon, alpha, beta)
    beta_id = device_named(daemon.snapshot, "beta.local")["id"]
    start = daemon.sequence

    beta.update("Beta", "_ipp._tcp", txt={"model": "X2"})
    daemon.wait_for(lambda s: next(x for x in device_named(s, "beta.local")["services"]
                                   if x["type"] == "_ipp._tcp")["txt"] == {"model": "X2"}, what="TXT change")
    beta.update("Beta", "_http._tcp", port=8081)
    daemon.wait_for(lambda s: next(x for x in device_named(s, "beta.local")["services"]
                                   if x["type"] == "_http._tcp")["port"] == 8081, what="port change")
    beta.register("Beta", "_ssh._tcp", 22)
    daemon.wait_for(has_device("beta.local", {"_ipp._tcp", "_http._tcp", "_ssh._tcp"}), what="new service")

    counts = entries_of(daemon.changes_since(start), beta_id)
    assert counts["itemInserts"] == 0 and counts["itemDeletes"] == 0, counts
    assert counts["itemUpdates"] >= 3, counts
    # Alpha was not touched at all.
    alpha_id = device_named(daemon.snapshot, "alpha.local")["id"]
    assert entries_of(daemon.changes_since(start), alpha_id) == {"itemInserts": 0, "itemDeletes": 0,
                                                                 "itemUpdates": 0, "itemMoves": 0}


def test_a_device_appears_whole_in_one_change_and_leaves_in_one(lan, start_daemon):
    """Avahi reports a service seen over IPv4 and IPv6 as two rows, resolved and removed milliseconds apart: the
    device is inserted once with both addresses, and deleted once, with no address update before either."""
    daemon = start_daemon()
    daemon.wait_running()
    alpha = lan.add_peer("alpha")
    start = daemon.sequence
    alpha.register("Alpha", "_http._tcp", 80, {"path": "/"})
    daemon.wait_for(has_device("alpha.local", {"_http._tcp"}, {alpha.ipv4, alpha.ipv6}), what="alpha, both addresses")
    alpha_id = device_named(daemon.snapshot, "alpha.local")["id"]
    inserted = [changes for changes in daemon.changes_since(start) if entries_of([changes], alpha_id)["itemInserts"]]
    assert len(inserted) == 1
    insert = next(entry for entry in inserted[0]["itemInserts"] if entry["item"]["id"] == alpha_id)
    assert set(insert["item"]["addresses"]) == {alpha.ipv4, alpha.ipv6}, "whole at once"
    assert entries_of(daemon.changes_since(start), alpha_id) == {
        "itemInserts": 1, "itemDeletes": 0, "itemUpdates": 0, "itemMoves": 0}

    start = daemon.sequence
    alpha.unregister("Alpha", "_http._tcp")
    daemon.wait_for(lambda s: device_named(s, "alpha.local") is None, what="alpha gone")
    assert entries_of(daemon.changes_since(start), alpha_id) == {
        "itemInserts": 0, "itemDeletes": 1, "itemUpdates": 0, "itemMoves": 0}


def test_every_address_of_a_host_is_followed_as_it_comes_and_goes(lan, start_daemon):
    """A resolver reports one address per row; the host's A and AAAA records give all of them: a second IPv4 and a
    second IPv6 address added later, then withdrawn, are each one update of the same device."""
    daemon = start_daemon()
    daemon.wait_running()
    alpha = lan.add_peer("alpha")
    alpha.register("Alpha", "_http._tcp", 80, {"path": "/"})
    daemon.wait_for(has_device("alpha.local", {"_http._tcp"}, {alpha.ipv4, alpha.ipv6}), what="alpha")
    alpha_id = device_named(daemon.snapshot, "alpha.local")["id"]
    extra = ["10.231.0.210", "fd70:7363:616e::210"]

    def addresses(snapshot: dict) -> set[str]:
        return set((device_named(snapshot, "alpha.local") or {}).get("addresses", []))

    for address in extra:
        start = daemon.sequence
        alpha.add_address(address)
        daemon.wait_for(lambda s: address in addresses(s), what=f"{address} added")
        assert entries_of(daemon.changes_since(start), alpha_id) == {
            "itemInserts": 0, "itemDeletes": 0, "itemUpdates": 1, "itemMoves": 0}, address
    assert addresses(daemon.snapshot) == {alpha.ipv4, alpha.ipv6, *extra}
    for address in extra:
        start = daemon.sequence
        alpha.remove_address(address)
        daemon.wait_for(lambda s: address not in addresses(s), what=f"{address} withdrawn")
        assert entries_of(daemon.changes_since(start), alpha_id) == {
            "itemInserts": 0, "itemDeletes": 0, "itemUpdates": 1, "itemMoves": 0}, address
    assert addresses(daemon.snapshot) == {alpha.ipv4, alpha.ipv6}
    assert device_named(daemon.snapshot, "alpha.local")["id"] == alpha_id


def test_a_host_with_more_addresses_than_its_rows_appears_with_all_of_them_at_once(lan, start_daemon):
    daemon = start_daemon()
    daemon.wait_running()
    beta = lan.add_peer("beta")
    beta.add_address("10.231.0.211")  # before any service: published with it from the start
    start = daemon.sequence
    beta.register("Beta", "_ipp._tcp", 631, {})
    everything = {beta.ipv4, beta.ipv6, "10.231.0.211"}
    daemon.wait_for(has_device("beta.local", {"_ipp._tcp"}, everything), what="beta with three addresses")
    beta_id = device_named(daemon.snapshot, "beta.local")["id"]
    assert entries_of(daemon.changes_since(start), beta_id) == {
        "itemInserts": 1, "itemDeletes": 0, "itemUpdates": 0, "itemMoves": 0}


def test_withdrawing_services_removes_them_and_the_last_removes_the_device(lan, start_daemon):
    alpha, beta = two_peers(lan)
    daemon = start_daemon()
    wait_for_both(daemon, alpha, beta)
    beta_id = device_named(daemon.snapshot, "beta.local")["id"]
    beta.unregister("Beta", "_http._tcp")
    daemon.wait_for(has_device("beta.local", {"_ipp._tcp"}), what="one service left")
    start = daemon.sequence
    beta.unregister("Beta", "_ipp._tcp")
    daemon.wait_for(lambda s: device_named(s, "beta.local") is None, what="beta removed")
    assert entries_of(daemon.changes_since(start), beta_id)["itemDeletes"] == 1
    assert device_named(daemon.snapshot, "alpha.local") is not None


def host_interfaces(snapshot: dict) -> list[str]:
    return applier.config_item(snapshot, "host")["interfaces"]


def test_the_host_item_lists_the_browsed_interfaces_and_only_links_change_them(lan, start_daemon):
    """Without --interface: the interfaces mDNS is browsed on (up, multicast, not loopback), from the first snapshot
    on; devices coming and going never change them, an interface going up or down does."""
    alpha, beta = two_peers(lan)
    daemon = start_daemon()
    wait_for_both(daemon, alpha, beta)
    beta.unregister("Beta", "_http._tcp")
    beta.unregister("Beta", "_ipp._tcp")
    daemon.wait_for(lambda s: device_named(s, "beta.local") is None, what="beta gone")
    assert host_interfaces(daemon.initial) == ["lan0"], "known in the very first snapshot"
    assert all(host_interfaces(snapshot) == ["lan0"] for _, _, snapshot in daemon.history)

    # Another multicast interface (a veth with its peer end, both inside the scanner's namespace) comes up, then goes
    # down again.
    start = daemon.sequence
    for command in (["link", "add", "extra0", "type", "veth", "peer", "name", "extra1"],
                    ["addr", "add", "10.231.9.1/24", "dev", "extra0"], ["link", "set", "extra0", "up"]):
        lan.run_in_scanner(["ip", *command])
    daemon.wait_for(lambda s: host_interfaces(s) == ["extra0", "lan0"], what="extra0 browsed")
    lan.run_in_scanner(["ip", "link", "set", "extra0", "down"])
    daemon.wait_for(lambda s: host_interfaces(s) == ["lan0"], what="extra0 no longer browsed")
    seen = [["lan0"]] + [host_interfaces(snapshot) for sequence, _, snapshot in daemon.history if sequence > start]
    assert [lists for index, lists in enumerate(seen) if index == 0 or seen[index - 1] != lists] == \
        [["lan0"], ["extra0", "lan0"], ["lan0"]], "one change each way"
    assert device_named(daemon.snapshot, "alpha.local") is not None


def test_scanning_off_deletes_the_networks_section_and_on_brings_it_back(lan, start_daemon):
    alpha, beta = two_peers(lan)
    daemon = start_daemon()
    before = applier.devices(wait_for_both(daemon, alpha, beta))

    daemon.signal(signal.SIGUSR1)
    snapshot = daemon.wait_for(lambda s: [x["id"] for x in s["sections"]] == ["config"], what="networks deleted")
    assert applier.config_item(snapshot, "scanning")["enabled"] is False
    assert any(c.get("sectionDeletes") == [{"id": "networks", "from": 1}] for c in daemon.changes_since(0))

    daemon.signal(signal.SIGUSR2)
    after = applier.devices(wait_for_both(daemon, alpha, beta))
    assert applier.config_item(daemon.snapshot, "scanning")["enabled"] is True
    assert set(after) == set(before)


def test_scanning_switch_survives_a_restart(lan, start_daemon):
    daemon = start_daemon()
    daemon.wait_running()
    daemon.signal(signal.SIGUSR1)
    daemon.wait_for(lambda s: len(s["sections"]) == 1, what="scanning off")
    assert daemon.stop() == 0
    again = start_daemon()
    snapshot = again.wait_for(lambda s: True, what="first snapshot")
    assert applier.config_item(snapshot, "scanning")["enabled"] is False
    assert [x["id"] for x in snapshot["sections"]] == ["config"]


def test_avahi_restart_causes_no_churn_and_removes_what_left_meanwhile(lan, start_daemon):
    alpha, beta = two_peers(lan)
    gamma = lan.add_peer("gamma")
    gamma.register("Gamma", "_http._tcp", 80)
    daemon = start_daemon()
    wait_for_both(daemon, alpha, beta)
    daemon.wait_for(has_device("gamma.local", {"_http._tcp"}), what="gamma")
    ids = {d["hostName"]: d["id"] for d in daemon.devices().values()}
    start = daemon.sequence

    lan.stop_avahi(signal.SIGKILL)
    daemon.wait_for(lambda s: applier.config_item(s, "host")["avahiState"] != "running", what="outage shown")
    assert len(daemon.devices()) == 3, "devices are kept through the outage"
    gamma.stop(graceful=False)  # leaves silently while nobody listens
    lan.start_avahi()
    daemon.wait_for(lambda s: applier.config_item(s, "host")["avahiState"] == "running", what="avahi back")
    daemon.wait_for(lambda s: device_named(s, "gamma.local") is None, timeout=40, what="gamma removed")
    assert daemon.process.poll() is None, "peerscand stayed up"

    changes = daemon.changes_since(start)
    for host in ("alpha.local", "beta.local"):
        counts = entries_of(changes, ids[host])
        if counts["itemInserts"] or counts["itemDeletes"]:
            print("\n".join(daemon.stderr_lines))
        assert counts["itemInserts"] == 0 and counts["itemDeletes"] == 0, (host, counts)
    assert entries_of(changes, ids["gamma.local"])["itemDeletes"] == 1


def set_scanner_link(lan, up: bool) -> None:
    """The scanner's link down or up, as a cable pulled and put back does. IPv6 addresses go with a link that goes
    down (keep_addr_on_down=0): the scanner's is put back before the link comes up, as a configured address is."""
    if up:
        lan.run_in_scanner(["ip", "addr", "replace", f"{lan.scanner_ipv6}/64", "dev", "lan0", "nodad"])
    lan.run_in_scanner(["ip", "link", "set", "lan0", "up" if up else "down"])


def wait_for_line(daemon, text: str, timeout: float = 30) -> str:
    """Waits until peerscand logged a line containing `text`; returns the last such line."""
    return wait_for_value(lambda: next((line for line in reversed(list(daemon.stderr_lines)) if text in line), None),
                          timeout, f"a '{text}' line", details=daemon.log_tail)


def test_a_link_down_and_up_again_is_no_churn(lan, start_daemon):
    """avahi-daemon withdraws everything it learnt on a link that goes down, as if every device had left. peerscand
    keeps them (`interface withdrawn`), confirms what Avahi reports again once the link is back, and removes only
    what it does not report within --resync-grace (`interface resync finished removed=0`): not one changeset touches
    a device (the host item shows the interface going and coming back)."""
    alpha, beta = two_peers(lan)
    daemon = start_daemon("--resync-grace", "5")
    wait_for_both(daemon, alpha, beta)
    start = daemon.sequence
    before = daemon.devices()

    set_scanner_link(lan, up=False)
    withdrawn = wait_for_line(daemon, "interface withdrawn")
    assert "interface=lan0" in withdrawn and "devices=2" in withdrawn, withdrawn
    time.sleep(3)
    set_scanner_link(lan, up=True)
    wait_for_line(daemon, "interface returned")
    finished = wait_for_line(daemon, "interface resync finished", timeout=30)
    assert "removed=0" in finished, finished
    time.sleep(1)
    changes = daemon.changes_since(start)
    assert all(entries_of(changes, device_id) == {"itemInserts": 0, "itemDeletes": 0, "itemUpdates": 0,
                                                  "itemMoves": 0} for device_id in before), changes
    assert daemon.devices() == before
    assert lan.avahi_browse(), "avahi-daemon learnt the link again"


def test_a_link_that_stays_down_loses_its_devices_after_the_grace_and_finds_them_when_back(lan, start_daemon):
    """A link down for longer than --resync-grace: its devices go (one changeset); when it is back they return with
    their ids."""
    alpha, beta = two_peers(lan)
    daemon = start_daemon("--resync-grace", "3")
    wait_for_both(daemon, alpha, beta)
    ids = set(daemon.devices())
    start = daemon.sequence

    set_scanner_link(lan, up=False)
    went = time.monotonic()
    daemon.wait_for(lambda s: not applier.devices(s), timeout=20, what="devices removed")
    waited = time.monotonic() - went
    assert 2.5 < waited < 10, f"removed {waited:.1f} s after the link went down (grace 3 s)"
    assert "removed=2" in wait_for_line(daemon, "interface resync finished")
    removals = [c for c in daemon.changes_since(start) if c.get("itemDeletes")]
    assert len(removals) == 1 and len(removals[0]["itemDeletes"]) == 2, "both in one changeset"

    set_scanner_link(lan, up=True)
    snapshot = wait_for_both(daemon, alpha, beta)
    assert set(applier.devices(snapshot)) == ids, "the same ids"


def test_device_ids_survive_a_daemon_restart(lan, start_daemon):
    alpha, beta = two_peers(lan)
    first = start_daemon()
    ids = set(applier.devices(wait_for_both(first, alpha, beta)))
    assert first.stop() == 0
    assert set(applier.devices(first.final)) == ids, "the final snapshot is the last state"
    second = start_daemon()
    assert set(applier.devices(wait_for_both(second, alpha, beta))) == ids


def test_services_beyond_one_avahi_clients_object_limit_are_all_followed(lan, start_daemon):
    """avahi-daemon holds each D-Bus client to `objects-per-client-max` browsers and resolvers (1,024 by default;
    peerscand keeps a resolver per service row and two record browsers per host), not the number of clients: when one
    client is full peerscand opens another, so every service is resolved, with both addresses, and nothing is refused.
    Here the limit is 12 and peerscand needs 24 objects (10 services on two protocols, two record browsers, a type
    browser and a service browser)."""
    lan.avahi_server_options = {"objects-per-client-max": "12"}
    lan.restart_avahi()
    peer = lan.add_peer("many")
    for n in range(10):
        peer.register(f"Service {n}", "_http._tcp", 8000 + n)
    daemon = start_daemon()
    daemon.wait_for(lambda s: any(len(d["services"]) == 10 and len(d["addresses"]) == 2
                                  for d in applier.devices(s).values()),
                    timeout=30, what="the device with its 10 services and both addresses")
    assert "avahi client added" in wait_for_line(daemon, "avahi client added", timeout=5)
    refusals = ("avahi resolver refused", "avahi browser failed")
    assert not [line for line in daemon.stderr_lines if any(refusal in line for refusal in refusals)]

    peer.register("Service 10", "_http._tcp", 8010)  # a later service, and its changes, on the extra clients too
    daemon.wait_for(lambda s: any(len(d["services"]) == 11 for d in applier.devices(s).values()), timeout=20,
                    what="the eleventh service")
    peer.update("Service 9", "_http._tcp", port=9009)
    daemon.wait_for(lambda s: any(x["port"] == 9009 for d in applier.devices(s).values() for x in d["services"]),
                    timeout=20, what="a port change after the first resolve")


def test_a_service_avahi_refuses_to_resolve_is_logged_once_at_warning(lan, start_daemon):
    """Past what Avahi lets one program hold (`objects-per-client-max` on every client it accepts, `clients-max`) a
    service stays unresolved: peerscand must say so — once at warning, with the service and Avahi's own error, the rest
    at debug — and keep serving what it could resolve. Here one client of 12 objects is all peerscand may have."""
    lan.avahi_server_options = {"objects-per-client-max": "12", "clients-max": "1"}
    lan.restart_avahi()
    peer = lan.add_peer("many")
    for n in range(10):
        peer.register(f"Service {n}", "_http._tcp", 8000 + n)
    daemon = start_daemon()
    daemon.wait_for(lambda s: applier.devices(s), what="the device, with what could be resolved")
    wait_for_line(daemon, "avahi resolver refused", timeout=10)
    refused = [line for line in daemon.stderr_lines if "avahi resolver refused" in line]
    warnings = [line for line in refused if " warning " in line]
    assert len(warnings) == 1, refused
    assert "avahi.error=" in warnings[0] and "avahi_service_resolver_new" in warnings[0], warnings[0]
    assert "_http._tcp" in warnings[0], warnings[0]
