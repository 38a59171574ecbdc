"""peerscan's metrics as a real Prometheus sees them (issue 38; docs/metrics.md): Debian's `prometheus` in the test
LAN's scanner namespace (testkit/prometheus.py) scrapes peerscan-web's `/metrics` every second and evaluates the
shipped rules (packaging/prometheus/peerscan-rules.yml) every second, beside peerscand and peerscan-web (test_web.py's).

- the shipped rules pass `promtool check rules` and their unit tests (`promtool test rules`), which make each alert
  fire and stay silent (no LAN: ~0.5 s);
- `/metrics` in Prometheus's text format passes `promtool check metrics`; as OpenMetrics it draws from promtool only
  the one complaint its text parser makes of every counter family (`counter_families`); Prometheus scrapes it every
  second (the target up, its interval 1 s);
- a device renamed and a host renumbered start no series but the renamed device's one new info series (the series
  Prometheus holds over the whole test, from its series API; the instant `count({__name__=~"peerscan_.+"})` too);
- an important device taken offline makes its shipped alert pending within peerscand's --offline-after (+ a probe
  round, the question's wait, a scrape and an evaluation); a plain device taken offline with it makes none.
"""

from __future__ import annotations

import re
import subprocess
import time

import pytest

from testkit.prometheus import RULES, Prometheus, promtool
from testkit.waiting import wait_for_value
from testlan.lan import real_oui_mac
from Tests.Integration.test_presence import QUESTION, ROUND, WINDOW
from Tests.Integration.test_scanner import by_mac, start_scanner
from Tests.Integration.test_web import PORT, Web

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
PEERSCAN_SERIES = '{__name__=~"peerscan_.+"}'
SCRAPE, EVALUATION = 1, 1  # Prometheus's intervals here (s)
SLACK = 10  # for a loaded machine (s): the alert's wait is peerscand's window, a round, the question, a scrape, a rule


def test_the_rules_pass_promtool_check_rules_and_their_unit_tests():
    checked = promtool("check", "rules", str(RULES))
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    assert b"SUCCESS: 4 rules found" in checked.stdout, checked.stdout
    tested = promtool("test", "rules", "peerscan-rules.test.yml", cwd=RULES.parent)
    assert tested.returncode == 0, tested.stdout.decode() + tested.stderr.decode()


@pytest.fixture
def stack(lan, start_daemon, socket_path, tmp_path):
    """peerscand (the scanner tests' short presence flags) and peerscan-web in the scanner namespace, and Prometheus
    beside them scraping peerscan-web; a named mDNS peer and a silent host with a vendor on the LAN."""
    alpha = lan.add_peer("alpha")
    alpha.register("Alpha", "_http._tcp", 80)
    plug = lan.add_host("plug", mac=real_oui_mac(0x38))
    daemon = start_scanner(lan, start_daemon)
    web = Web(lan, socket_path, tmp_path)
    try:
        with Prometheus(lan.scanner_ns, [f"127.0.0.1:{PORT}"], popen=lan.popen_in_scanner,
                        directory=tmp_path / "prometheus") as prometheus:
            yield daemon, web, prometheus, alpha, plug
    finally:
        web.stop()


def device_ids(daemon, *macs: str) -> list[str]:
    snapshot = daemon.wait_for(lambda s: all(by_mac(s, mac) for mac in macs), timeout=30, what=f"devices {macs}")
    return [by_mac(snapshot, mac)["id"] for mac in macs]


def wait_listed(prometheus: Prometheus, device: str, metric: str = "peerscan_device_present", **labels: str) -> dict:
    """The device's series of `metric` (with these `labels`) once Prometheus has scraped it: its labels and value."""
    matchers = ",".join(f'{label}="{value}"' for label, value in {"device": device, **labels}.items())
    return wait_for_value(lambda: prometheus.query(f"{metric}{{{matchers}}}"), timeout=30,
                          what=f"{metric}{{{matchers}}} in Prometheus", details=prometheus.log_tail)[0]


def renumber(host, address: str) -> str:
    """The host's IPv4 address replaced by `address` (its MAC address and IPv6 address stay); returns `address`."""
    prefix = f"/{host.lan.prefix_length}"
    for verb, old_or_new in (("del", host.ipv4), ("add", address)):
        subprocess.run(["ip", "-n", host.namespace, "addr", verb, old_or_new + prefix, "dev", host.interface],
                       check=True, capture_output=True)
    host.ipv4 = address
    return address


def promtool_complaints(body: bytes) -> set[str]:
    """What `promtool check metrics` says of a body (nothing when it passes)."""
    checked = promtool("check", "metrics", stdin=body)
    complaints = set((checked.stdout + checked.stderr).decode().splitlines())
    assert (checked.returncode == 0) == (not complaints), (checked.returncode, complaints)
    return complaints


def counter_families(body: bytes) -> set[str]:
    """promtool 2.42 reads an OpenMetrics body with the text format's parser: a counter family declared without `_total`
    (`# TYPE peerscan_presence_transitions counter`, as OpenMetrics says) leaves its `…_total` samples a family of their
    own with no help, which is all it may complain of (Tests/Integration/test_metrics.py checks that body with
    OpenMetrics' own parser)."""
    text = body.decode()  # only families with samples (peerscan_alerts has none before an alert destination has one)
    return {f"{name}_total no help text" for name in re.findall(r"^# TYPE (\S+) counter$", text, re.M)
            if re.search(rf"^{name}_total[{{ ]", text, re.M)}


def series_held(prometheus: Prometheus, since: float) -> set[tuple]:
    """Every peerscan_ series Prometheus holds samples of since `since` (its series API: stale ones included), as
    sorted label tuples."""
    found = prometheus.api("series", **{"match[]": PEERSCAN_SERIES, "start": f"{since:.3f}",
                                        "end": f"{time.time() + 1:.3f}"})
    return {tuple(sorted(series.items())) for series in found}


def test_the_metrics_pass_promtool_in_both_formats_and_prometheus_scrapes_them(stack):
    daemon, web, prometheus, alpha, plug = stack
    alpha_id, plug_id = device_ids(daemon, alpha.mac, plug.mac)
    wait_listed(prometheus, alpha_id)
    wait_listed(prometheus, plug_id)
    for accept, content_type in ((OPENMETRICS, "application/openmetrics-text; version=1.0.0"),
                                 ("text/plain", "text/plain; version=0.0.4")):
        status, headers, body = web.request("GET", "/metrics", headers={"Accept": accept})
        assert status == 200 and headers["Content-Type"].startswith(content_type), (accept, status, headers)
        assert re.search(rf'^peerscan_device_present{{device="{alpha_id}"}} 1(\.0)?$', body.decode(), re.M), \
            body.decode()[:2000]
        assert promtool_complaints(body) == (counter_families(body) if accept == OPENMETRICS else set()), accept
    prometheus.wait_scraped(3)
    targets = prometheus.api("targets")["activeTargets"]
    assert [(t["health"], t["scrapeInterval"], t["lastError"]) for t in targets] == [("up", "1s", "")], targets
    assert prometheus.value("peerscan_daemon_up") == 1
    assert prometheus.value("peerscan_scanning") == 1
    info = wait_listed(prometheus, plug_id, "peerscan_device_info")["metric"]
    assert info["vendor"] == "Cisco Systems, Inc" and info["important"] == "false", info


def test_a_rename_and_a_renumbering_add_only_the_renamed_devices_info_series(stack):
    daemon, web, prometheus, alpha, plug = stack
    started = time.time() - 60
    alpha_id, plug_id = device_ids(daemon, alpha.mac, plug.mac)
    for device in (alpha_id, plug_id):
        for name in ("peerscan_device_present", "peerscan_device_last_seen_timestamp_seconds"):
            wait_listed(prometheus, device, name)
    # Its info series once its evidence is whole: the sources are a label (a host name, then a MAC address).
    wait_listed(prometheus, alpha_id, "peerscan_device_info", source="mdns,neighbour")
    wait_listed(prometheus, plug_id, "peerscan_device_info", source="neighbour")
    prometheus.wait_scraped(2)
    before = series_held(prometheus, started)
    count_before = prometheus.value(f"count({PEERSCAN_SERIES})")

    status, reply = web.write("SetDeviceLabel", {"id": alpha_id, "name": "Kitchen"})
    assert status == 200 and reply["name"] == "Kitchen", reply
    renamed = wait_listed(prometheus, alpha_id, "peerscan_device_info", name="Kitchen")
    new_address = renumber(plug, "10.231.0.99")
    daemon.wait_for(lambda s: new_address in by_mac(s, plug.mac)["addresses"], timeout=30,
                    what="the plug at its new address")
    prometheus.wait_scraped(3)

    after = series_held(prometheus, started)
    new = after - before
    assert new == {tuple(sorted(renamed["metric"].items()))}, \
        f"new series besides the renamed device's info: {sorted(new)}"
    assert not before - after, "no series lost"
    count_after = prometheus.value(f"count({PEERSCAN_SERIES})")
    assert count_after == count_before, (count_before, count_after)  # the old info series is stale
    devices = len(daemon.devices())
    assert count_after <= 3 * devices + 60, (count_after, devices)


def test_an_important_device_offline_makes_its_shipped_alert_pending_and_a_plain_one_none(lan, stack):
    daemon, web, prometheus, alpha, plug = stack
    other = lan.add_host("other", mac=real_oui_mac(0x39))
    plug_id, other_id = device_ids(daemon, plug.mac, other.mac)
    status, _ = web.write("SetDeviceLabel", {"id": plug_id, "name": "Kitchen plug", "important": True})
    assert status == 200
    wait_listed(prometheus, plug_id, "peerscan_device_info", important="true")
    wait_listed(prometheus, other_id)
    assert prometheus.query('ALERTS{alertname="PeerscanImportantDeviceOffline"}') == [], "none while online"

    plug.silence()
    other.silence()
    left = time.monotonic()
    pending = wait_for_value(
        lambda: prometheus.query('ALERTS{alertname="PeerscanImportantDeviceOffline",alertstate="pending"}'),
        timeout=WINDOW + ROUND + QUESTION + SCRAPE + EVALUATION + SLACK, what="the alert pending",
        details=lambda: f"plug: {by_mac(daemon.snapshot, plug.mac)}\n{prometheus.log_tail()}")
    took = time.monotonic() - left
    assert [alert["metric"]["device"] for alert in pending] == [plug_id], pending
    print(f"pending {took:.1f} s after the plug went silent (--offline-after {WINDOW} s, rounds {ROUND} s)")
    daemon.wait_for(lambda s: by_mac(s, other.mac)["online"] is False, timeout=30, what="the plain device offline")
    prometheus.wait_scraped(2)
    assert prometheus.value(f'peerscan_device_present{{device="{other_id}"}}') == 0
    alerts = prometheus.alerts()
    assert [(a["labels"]["device"], a["state"]) for a in alerts] == [(plug_id, "pending")], alerts
    assert alerts[0]["annotations"]["summary"] == "Kitchen plug is offline", alerts[0]
