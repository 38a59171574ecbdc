"""peerscan-web's ``GET /metrics`` (docs/metrics.md) on the test LAN: peerscand scanning the LAN in the scanner
namespace, peerscan-web beside it (test_web's ``Web``), a real device's series followed from online to offline, both
formats checked by Debian's ``promtool check metrics``, and GetStatistics's reply.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from prometheus_client.openmetrics.parser import text_string_to_metric_families
from test_web import Web

from testclient.varlinkclient import client
from testkit.waiting import wait_until
from Tests.Integration.test_presence import known, phone
from Tests.Integration.test_scanner import by_mac, start_scanner

OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8"
PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8"


def scrape(web: Web, accept: str | None = None) -> tuple[str, str]:
    """(content type, body) of one scrape."""
    status, headers, body = web.request("GET", "/metrics", headers={"Accept": accept} if accept else {})
    assert status == 200, (status, body)
    return headers["Content-Type"], body.decode()


def samples(body: str) -> dict[str, str]:
    """Each sample's name and labels → its value."""
    return dict(line.rsplit(" ", 1) for line in body.splitlines() if line and not line.startswith("#"))


@pytest.fixture
def scanner_web(lan, start_daemon, socket_path, tmp_path):
    daemon = start_scanner(lan, start_daemon)
    served = Web(lan, socket_path, tmp_path)
    served.daemon = daemon
    yield served
    served.stop()


def test_a_devices_series_appear_and_follow_it_offline(lan, scanner_web, socket_path):
    peer = phone(lan)
    device = by_mac(known(scanner_web.daemon, peer), peer.mac)
    present = f'peerscan_device_present{{device="{device["id"]}"}}'
    wait_until(lambda: samples(scrape(scanner_web)[1]).get(present) == "1", timeout=20, what="present 1")
    content_type, body = scrape(scanner_web)
    assert content_type == PROMETHEUS
    series = samples(body)
    assert series["peerscan_daemon_up"] == "1" and series["peerscan_scanning"] == "1"
    info = next(key for key in series if key.startswith(f'peerscan_device_info{{device="{device["id"]}"'))
    assert f'name="{device["displayName"]}"' in info and 'source="mdns,neighbour"' in info, info
    assert float(series[f'peerscan_device_last_seen_timestamp_seconds{{device="{device["id"]}"}}']) > 1.7e9
    assert series['peerscan_source_up{source="avahi"}'] == "1"
    assert int(series['peerscan_clients{api="varlink"}']) >= 2  # the follower, and this scrape's GetStatistics
    assert int(series["peerscan_probe_round_duration_seconds_count"]) >= 1
    assert int(series["peerscan_daemon_resident_memory_bytes"]) > 0

    peer.stop(graceful=False)
    peer.link_down()
    scanner_web.daemon.wait_for(lambda s: by_mac(s, peer.mac)["online"] is False, timeout=60, what="offline")
    wait_until(lambda: samples(scrape(scanner_web)[1]).get(present) == "0", timeout=20, what="present 0")
    series = samples(scrape(scanner_web)[1])
    assert int(series['peerscan_presence_transitions_total{direction="offline",reason="unanswered"}']) >= 1
    assert f'peerscan_device_last_seen_timestamp_seconds{{device="{device["id"]}"}}' in series
    assert series['peerscan_devices{section="networks",state="offline"}'] != "0"


def test_a_renamed_and_renumbered_device_changes_only_its_info_series(lan, scanner_web):
    peer = phone(lan)
    device = by_mac(known(scanner_web.daemon, peer), peer.mac)
    info = f'peerscan_device_info{{device="{device["id"]}"'
    wait_until(lambda: info in scrape(scanner_web)[1], timeout=20, what="its info series")
    before = set(samples(scrape(scanner_web)[1]))
    status, _ = scanner_web.write("SetDeviceLabel", {"id": device["id"], "name": 'Kitchen "phone"'})
    assert status == 200
    old_address = peer.ipv4
    peer.add_address("10.231.0.201")
    peer.remove_address(old_address)
    scanner_web.daemon.wait_for(
        lambda s: (d := by_mac(s, peer.mac)) is not None and "10.231.0.201" in d["addresses"]
        and old_address not in d["addresses"] and d["label"] == 'Kitchen "phone"', timeout=30, what="renumbered")
    wait_until(lambda: 'name="Kitchen \\"phone\\""' in scrape(scanner_web)[1], timeout=20, what="renamed")
    after = set(samples(scrape(scanner_web)[1]))
    changed = before ^ after
    assert len(changed) == 2 and all(series.startswith(info) for series in changed), changed
    assert any('name="Kitchen \\"phone\\""' in series for series in after & changed)


def test_openmetrics_is_served_when_asked_and_both_formats_pass_promtool(lan, scanner_web, tmp_path):
    phone(lan)
    accept = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"
    wait_until(lambda: "peerscan_device_info{" in scrape(scanner_web)[1], timeout=30, what="a device's series")
    content_type, open_metrics = scrape(scanner_web, accept)
    assert content_type == OPENMETRICS and open_metrics.endswith("\n# EOF\n")
    assert "# TYPE peerscan_presence_transitions counter\n" in open_metrics
    _, text = scrape(scanner_web)
    assert "# EOF" not in text and "# TYPE peerscan_presence_transitions_total counter\n" in text
    # OpenMetrics' own parser (prometheus_client's, strict: # EOF, counters' family names, canonical bounds).
    families = {family.name: family for family in text_string_to_metric_families(open_metrics)}
    assert families["peerscan_presence_transitions"].type == "counter"
    assert families["peerscan_probe_round_duration_seconds"].type == "histogram"
    if shutil.which("promtool") is None:
        pytest.skip("promtool is not installed (scripts/install-deps installs Debian's prometheus)")
    checked = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # promtool reads every body with the Prometheus text parser, which takes an OpenMetrics counter's samples
    # (NAME_total under "# TYPE NAME counter") for a family of their own without help: that, and nothing else.
    checked = subprocess.run(["promtool", "check", "metrics"], input=open_metrics, capture_output=True, text=True)
    counters = {name for name, family in families.items() if family.type == "counter" and family.samples}
    complaints = set(filter(None, (checked.stdout + checked.stderr).splitlines()))
    assert complaints == {f"{name}_total no help text" for name in counters}, complaints


def test_get_statistics_counts_the_clients_and_the_probe_rounds(scanner_web, socket_path):
    statistics = client(socket_path).open("io.peerscan", namespaced=False).GetStatistics()
    assert statistics["clients"]["varlink"] >= 2 and statistics["clients"].get("mqtt") is None
    assert statistics["addressConflicts"] == 0 and statistics["evilTwinWarnings"] == 0
    histogram = statistics["probeRoundDurations"]
    assert histogram["counts"] == sorted(histogram["counts"]) and histogram["counts"][-1] <= histogram["count"]
    assert statistics["process"]["openDescriptors"] > 0 and re.match(r"^\d", str(statistics["process"]["startTime"]))
