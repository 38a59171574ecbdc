"""The fake peerscand (testkit/fakedaemon.py) and the synthetic snapshots (testkit/synthetic.py) the page's benchmark
runs on: the differ's changesets replay with testclient/applier.py, Monitor resumes and resyncs as docs/protocol.md
says, and peerscan-web (its debug build, or ``PEERSCAN_WEB``) in a loopback-only namespace serves the fake's snapshot
as is.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from testclient import applier
from testkit import synthetic
from testkit.fakedaemon import FakeDaemon
from testkit.netns import call_in
from testkit.waiting import wait_until
from testkit.wire import RawConnection, answers

ROOT = Path(__file__).resolve().parents[2]
WEB = Path(os.environ.get("PEERSCAN_WEB", ROOT / ".build" / "debug" / "peerscan-web"))


def _changed(snapshot: dict) -> dict:
    """The snapshot with the networks section's 3rd item renamed in place, its 5th deleted and one device inserted."""
    items = list(snapshot["sections"][1]["items"])
    items[2] = {**items[2], "online": not items[2]["online"], "presenceReason": "withdrawn"}
    del items[4]
    items.append({**items[0], "id": synthetic.device_id("newcomer.local"), "hostName": "newcomer.local",
                  "displayName": "Newcomer"})
    items.sort(key=synthetic.sort_key)
    return synthetic.snapshot(items)


def test_synthetic_devices_are_sorted_unique_and_their_difference_replays() -> None:
    items = synthetic.devices(500)
    assert items == sorted(items, key=synthetic.sort_key)
    assert len({item["id"] for item in items}) == 500
    assert {item["kind"] for item in items} == {"peer"}
    assert any(item["displayName"] is None for item in items) and any("bluetooth" in item for item in items)
    old = synthetic.snapshot(items)
    new = _changed(old)
    changes = synthetic.difference(old, new)
    assert len(changes["itemUpdates"]) == 1 and len(changes["itemDeletes"]) == 1 and len(changes["itemInserts"]) == 1
    assert applier.apply(old, changes) == new
    with pytest.raises(ValueError, match="moved"):
        reordered = synthetic.snapshot(items[1:2] + items[:1] + items[2:])
        synthetic.difference(old, reordered)


def test_monitor_streams_resumes_and_resyncs(tmp_path: Path) -> None:
    first = synthetic.snapshot(synthetic.devices(20))
    second = _changed(first)
    with FakeDaemon(tmp_path / "io.peerscan", first, history=2) as daemon:
        assert answers(daemon.path)
        with RawConnection(daemon.path) as live:
            opening = live.call("io.peerscan.Monitor", {}, more=True)
            assert opening["continues"] and opening["parameters"]["snapshot"] == first
            assert "resync" not in opening["parameters"]
            daemon.push(synthetic.difference(first, second))
            reply = live.receive()["parameters"]
            assert reply["sequence"] == 1 and applier.apply(first, reply["changes"]) == second
        assert daemon.snapshot == second
        with RawConnection(daemon.path) as resumed:
            reply = resumed.call("io.peerscan.Monitor", {"epoch": daemon.epoch, "since": 0}, more=True)
            assert reply["parameters"]["sequence"] == 1 and "changes" in reply["parameters"]
        with RawConnection(daemon.path) as other_run:
            reply = other_run.call("io.peerscan.Monitor", {"epoch": "another-run", "since": 0}, more=True)
            assert reply["parameters"]["resync"] is True and reply["parameters"]["snapshot"] == second
        for _ in range(2):  # sequence 1 leaves the kept two
            daemon.push({}, second)
        with RawConnection(daemon.path) as too_old:
            reply = too_old.call("io.peerscan.Monitor", {"epoch": daemon.epoch, "since": 0}, more=True)
            assert reply["parameters"]["resync"] is True and reply["parameters"]["sequence"] == 3
        with RawConnection(daemon.path) as reader:
            device = second["sections"][1]["items"][0]
            assert reader.call("io.peerscan.GetDevice", {"id": device["id"]})["parameters"]["device"] == device
            assert reader.call("io.peerscan.GetDevice", {"id": "nobody"})["error"] == "io.peerscan.DeviceNotFound"
            known = reader.call("io.peerscan.ListKnownDevices")["parameters"]["devices"]
            assert len(known) == 20


def _get_in(namespace: Path, port: int, path: str) -> tuple[int, bytes]:
    """GET ``path`` from peerscan-web on the namespace's loopback."""

    def get() -> tuple[int, bytes]:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    return call_in(namespace, get)


def _listening(namespace: Path, port: int) -> bool:
    with contextlib.suppress(OSError):
        return _get_in(namespace, port, "/api/known")[0] == 200
    return False


def test_peerscan_web_serves_the_fakes_snapshot(loopback: Path, tmp_path: Path) -> None:
    if not WEB.exists():
        pytest.fail(f"{WEB} is not built: swift build --product peerscan-web (or set PEERSCAN_WEB)")
    snapshot = synthetic.snapshot(synthetic.devices(300))
    (tmp_path / "token").write_text("fake-daemon-test-token\n")
    port = 8737
    with FakeDaemon(tmp_path / "io.peerscan", snapshot) as daemon:
        daemon.push(synthetic.difference(snapshot, _changed(snapshot)))
        web = subprocess.Popen(["nsenter", f"--net={loopback}", "--", str(WEB), "--listen", f"127.0.0.1:{port}",
                                "--socket", str(daemon.path), "--token-file", str(tmp_path / "token")],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_until(lambda: _listening(loopback, port), timeout=30, what="peerscan-web answering")
            status, body = _get_in(loopback, port, "/api/snapshot")
        finally:
            web.terminate()
            web.wait(timeout=10)
    assert status == 200
    assert json.loads(body) == {"epoch": daemon.epoch, "sequence": 1, "snapshot": _changed(snapshot)}
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as probe:
        probe.connect(str(tmp_path / "io.peerscan"))
        pytest.fail("the fake still serves after close()")
